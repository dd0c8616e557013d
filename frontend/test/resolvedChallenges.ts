import type { Challenge, Stake, Winners } from "@/api";

/** Answers of the API (docs/protocol.md 3.5, 3.6) for two challenges whose solutions are revealed,
 * used by the tests of the Resolved and Winners' Circle tabs and of the reveal map. */

const REVEALED = {
  solutionDeadline: 1795513229,
  guessWindowSeconds: 3600,
  bond: "0.000000",
  minStake: "1.000000",
  openTransactionHash: `0x${"0a".repeat(32)}`,
  openBlockNumber: 12,
  termsDigest: `0x${"0d".repeat(32)}`,
} as const;

export const PYRAMID: Challenge = {
  ...REVEALED,
  id: 1,
  poemTitle: "Four Thousand Summers",
  poemText:
    "<p>I was counted in stone before counting had pages,<br>a staircase for a king who would climb it alone.</p>",
  instructionsText: "<p>Find the place this poem describes and enter its latitude and longitude.</p>",
  proximityThreshold: 150,
  solutionSha256: "cab101f694796c0971b82d1b8cfa241cf92383885731156dc155a35abaf76a31",
  solutionReveal: "29.979175, 31.134258",
  solutionSalt: "12c8f07922f6b1eec657a2c631eae8f855d271aed270d830a9f581b14f908ef3",
  stakedSum: "82.750000",
  responseCount: 4,
  startTimestamp: 1795426829,
  closesTimestamp: 1795430429,
  guessDeadline: 1795434029,
  termsSha256: "7e".repeat(32),
  phase: "paid",
};

export const OPERA: Challenge = {
  ...REVEALED,
  id: 2,
  poemTitle: "Sails That Never Leave",
  poemText: "<p>White shells stacked on a finger of sandstone,</p>",
  instructionsText: "<p>Find the place this poem describes.</p>",
  proximityThreshold: null,
  solutionSha256: "fd1f207a5603d191f563cb3b23771c37307059afbd27fd7dba464093d2d2916e",
  solutionReveal: "-33.856784, 151.215296",
  solutionSalt: "b1493bacb790f7abd9baab1e6793ca8a115c3a0dbc413b50ea55fe1f2a1c0f0e",
  stakedSum: "11.000000",
  responseCount: 2,
  startTimestamp: 1795426829,
  closesTimestamp: 1795430429,
  guessDeadline: 1795434029,
  termsSha256: "7f".repeat(32),
  phase: "revealing",
};

export const EARLIEST_TX = "0x3aea51062d9995293d7a7399d35f1637c759b04d80c50a5775c5d758576db4fb";
export const HIGHEST_TX = "0x75fd91738782bacd597d09c07213908eeaceb02ec394d1ccba371d4619dae47c";

/** A stake as the API lists it once the solution is revealed. */
export function revealedStake(over: Partial<Stake> & Pick<Stake, "id" | "submissionText" | "submitterAddress">): Stake {
  return {
    challengeId: 1,
    submissionStake: "1.000000",
    commitment: String(over.id).repeat(64).slice(0, 64),
    status: "confirmed",
    transactionHash: `0x${String(over.id).repeat(64).slice(0, 64)}`,
    blockNumber: 20,
    logIndex: 0,
    submissionTimestamp: 1795427429,
    paymentMethod: "authorization",
    authorization: null,
    guessReceived: true,
    submissionSalt: "ab".repeat(32),
    revealed: true,
    isCorrect: true,
    distanceMeters: "1.00",
    outcome: null,
    ...over,
  };
}

export const PYRAMID_WINNERS: Winners = {
  challengeId: 1,
  earliest: revealedStake({
    id: 1,
    submissionText: "29.9792, 31.1342",
    submissionStake: "5.000000",
    transactionHash: EARLIEST_TX,
    submitterAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    distanceMeters: "6.24",
  }),
  highest: revealedStake({
    id: 2,
    submissionText: "29.97918, 31.13426",
    submissionStake: "25.500000",
    submissionTimestamp: 1795428029,
    transactionHash: HIGHEST_TX,
    submitterAddress: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    distanceMeters: "0.59",
  }),
  phase: "paid",
  final: true,
  guessDeadline: 1795434029,
  prizes: { earliest: "33.100000", highest: "33.100000", share: "16.550000" },
  payments: [],
};

export const OPERA_WINNERS: Winners = {
  challengeId: 2,
  earliest: null,
  highest: null,
  phase: "revealing",
  final: false,
  guessDeadline: 1795434029,
  prizes: { earliest: "0.000000", highest: "0.000000", share: "0.000000" },
  payments: [],
};

export const PYRAMID_RESPONSES: Stake[] = [
  PYRAMID_WINNERS.earliest!,
  PYRAMID_WINNERS.highest!,
  revealedStake({
    id: 3,
    submissionText: "30.0444, 31.2357",
    submissionStake: "50.250000",
    submissionTimestamp: 1795428629,
    transactionHash: "0x1111111111111111111111111111111111111111111111111111111111111111",
    submitterAddress: "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
    distanceMeters: "12345.68",
    isCorrect: false,
    revealed: false,
  }),
];

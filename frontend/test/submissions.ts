import type { Stake } from "@/api/types";
import type { StoredStake } from "@/wallet/pending";
import { TEST_CONFIG } from "./fixtures";
import { PLAYER } from "./fakeWallet";

/** This browser's record of a stake (wallet/pending.ts) for the My submissions tests: a signed stake
 * of the fake wallet's player that Geopoem stored. `over` names what a test changes. */
export function stakeRecord(over: Partial<StoredStake> = {}): StoredStake {
  return {
    salt: "1".repeat(64),
    site: "http://localhost:3000",
    chainId: TEST_CONFIG.chainId,
    pot: TEST_CONFIG.potAddress,
    challengeId: 7,
    termsDigest: `0x${"d1".repeat(32)}`,
    termsSha256: "7e".repeat(32),
    submitterAddress: PLAYER,
    stake: "2.5",
    amountUnits: "2500000",
    text: "29.979175, 31.134258",
    latE6: "29979175",
    lonE6: "31134258",
    commitment: "c".repeat(64),
    paymentMethod: "authorization",
    authorization: {
      token: { name: "USDC", version: "2", chainId: TEST_CONFIG.chainId, verifyingContract: TEST_CONFIG.usdcAddress },
      validAfter: 0,
      validBefore: Math.floor(Date.now() / 1000) + 1800,
      nonce: `0x${"a".repeat(64)}`,
      signature: `0x${"5".repeat(128)}1b`,
    },
    state: "relayed",
    guess: { state: "waiting" },
    createdAt: Date.now() - 5_000,
    postedAt: Date.now() - 5_000,
    ...over,
  };
}

/** Geopoem's answer for a stake (docs/protocol.md 3.4). */
export function apiStake(over: Partial<Stake> = {}): Stake {
  return {
    id: null,
    challengeId: 7,
    submitterAddress: PLAYER,
    submissionStake: "2.500000",
    commitment: "c".repeat(64),
    status: "relaying",
    transactionHash: null,
    blockNumber: null,
    logIndex: null,
    submissionTimestamp: null,
    paymentMethod: "authorization",
    authorization: {
      validBefore: Math.floor(Date.now() / 1000) + 1800,
      relayStatus: "queued",
      relayCode: "",
      relayReason: "",
      relayTransactionHash: null,
    },
    guessReceived: false,
    submissionText: null,
    submissionSalt: null,
    revealed: false,
    isCorrect: null,
    distanceMeters: null,
    outcome: null,
    ...over,
  };
}

/** A stake in the pot, pending in block 16. */
export function pendingStake(over: Partial<Stake> = {}): Stake {
  return apiStake({
    id: 1,
    status: "pending",
    transactionHash: `0x${"ab".repeat(32)}`,
    blockNumber: 16,
    logIndex: 0,
    submissionTimestamp: 1767225700,
    authorization: null,
    ...over,
  });
}

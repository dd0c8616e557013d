import { describe, expect, it } from "vitest";
import vectors from "../../../tests/vectors.json";
import { buildChainWorld, type Guess } from "../../test/chainWorld";
import { TEST_CONFIG } from "../../test/fixtures";
import {
  decodeStakeCalldata,
  distanceBetween,
  nextPath,
  pickWinners,
  prizeSplit,
  verifyChallenge,
} from "./verify-outcomes";
import { canonicalCoordinates } from "./coordinates";
import { decimalToUnits, unitsToDecimal } from "./stake";
import type { ScoredResponse } from "@/api";

// The same vectors as verify_challenge.py (tests/test_verify_challenge_vectors.py) and the server.

describe("the verifier's rules (shared vectors)", () => {
  it.each(vectors.distances)("distance from $from to $to", ({ from, to, meters }) => {
    expect(distanceBetween(from, to).toFixed(2)).toBe(meters);
  });

  it.each(vectors.prizeSplits)("splits $total", ({ total, earliest, highest, operations }) => {
    const split = prizeSplit(decimalToUnits(total)!);
    const six = (u: bigint) => `${u / 1000000n}.${(u % 1000000n).toString().padStart(6, "0")}`;
    expect([six(split.earliest), six(split.highest), six(split.operations)]).toEqual([earliest, highest, operations]);
  });

  it.each(vectors.calldata)("decodes the calldata of challenge $challengeId", (v) => {
    expect(decodeStakeCalldata(v.data)).toEqual({
      recipient: v.treasury.toLowerCase(),
      amountUnits: BigInt(v.amountUnits),
      commitment: v.commitment,
      challengeId: BigInt(v.challengeId),
      timestamp: BigInt(v.timestamp),
    });
    expect(decodeStakeCalldata(v.data.slice(0, 2 + 2 * 68))).toBeNull();
    expect(decodeStakeCalldata(`0x23b872dd${v.data.slice(10)}`)).toBeNull();
  });

  it.each(vectors.winners)("winners: $about", ({ responses, earliest, highest }) => {
    const rows = responses
      .filter((r) => r.correct)
      .map(
        (r) =>
          ({
            id: r.id,
            submissionStake: unitsToDecimal(decimalToUnits(r.stake)!),
            blockNumber: r.position[0],
            transactionIndex: r.position[1],
            logIndex: r.position[2],
          }) as ScoredResponse,
      );
    const picked = pickWinners(rows);
    expect([picked.earliest?.id ?? null, picked.highest?.id ?? null]).toEqual([earliest, highest]);
  });

  it("follows the Link header on this page's origin only", () => {
    expect(nextPath('<http://internal:8000/api/responses?cursor=abc>; rel="next"', "https://geopoem.example/")).toBe(
      "/api/responses?cursor=abc",
    );
    expect(nextPath("", "https://geopoem.example/")).toBeNull();
  });
});

const PLAYER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const OTHER = "0x90F79bf6EB2c4F870365E785982E1f101E93b906";
const GUESSES: Guess[] = [
  { text: "29.979, 31.134", stake: "2.5", address: PLAYER, block: 20, txIndex: 0 },
  { text: "29.9795, 31.1343", stake: "7", address: OTHER, block: 21, txIndex: 0 },
  { text: "30.0444, 31.2357", stake: "3", address: PLAYER, block: 21, txIndex: 1 },
  { text: "29.9792, 31.1342", stake: "7", address: PLAYER, block: 22, txIndex: 0 },
];

async function run(world: Awaited<ReturnType<typeof buildChainWorld>>, batchSize = 100) {
  const phases: string[] = [];
  const report = await verifyChallenge({
    challenge: world.challenge,
    config: { ...TEST_CONFIG, batchSize },
    fetchImpl: (async (input: RequestInfo | URL, init?: RequestInit) =>
      world.route(String(input), init)) as typeof fetch,
    progress: (phase) => phases.push(phase),
  });
  return { report, phases };
}

describe("verifyChallenge against a consistent chain", () => {
  it("reproduces every outcome of an honest resolution", async () => {
    const world = await buildChainWorld(GUESSES);
    expect(world.winners.earliest?.id).toBe(100);
    expect(world.winners.highest?.id).toBe(101); // 7 USDC twice: the earlier in chain order
    const { report, phases } = await run(world);
    expect(report.differences).toEqual([]);
    expect(report.outcomes.map((o) => o.problems)).toEqual([[], [], [], []]);
    expect([report.reproduced, report.ok]).toEqual([4, true]);
    expect(phases).toContain("chain");
  });

  it.each([
    ["text", (r: ScoredResponse) => ({ ...r, submissionText: "29.9791, 31.1341" }), /commitment/],
    [
      "stake",
      (r: ScoredResponse) => ({ ...r, submissionStake: "8.000000" }),
      /calldata pays 7 USDC, the site shows a stake of 8\.000000/,
    ],
    ["salt", (r: ScoredResponse) => ({ ...r, submissionSalt: "ab".repeat(32) }), /commitment/],
    ["order", (r: ScoredResponse) => ({ ...r, logIndex: 9 }), /the Transfer is log 0, the site shows log 9/],
    ["block", (r: ScoredResponse) => ({ ...r, blockNumber: 1 }), /the chain position is block 21/],
  ])("names the response whose %s was changed", async (_what, change, problem) => {
    const world = await buildChainWorld(GUESSES);
    world.responses[1] = change(world.responses[1]!);
    const { report } = await run(world);
    expect(report.ok).toBe(false);
    expect(report.reproduced).toBe(3);
    const failing = report.outcomes.filter((o) => o.problems.length > 0);
    expect(failing.map((o) => o.response.id)).toEqual([101]);
    expect(failing[0]!.problems.join("; ")).toMatch(problem);
  });

  it.each([
    [false, 2, 0],
    [true, 4, 2],
  ])(
    "a claim whose transaction no chain holds (demo %s): reproduced %i, demo claims %i",
    async (demo, reproduced, unpaid) => {
      const world = await buildChainWorld(GUESSES);
      world.challenge = { ...world.challenge, isDemo: demo };
      for (const i of [0, 2]) {
        world.responses[i] = { ...world.responses[i]!, transactionHash: `0x${"d".repeat(63)}${i}` };
      }
      const { report } = await run(world);
      expect([report.reproduced, report.unpaidDemo, report.ok]).toEqual([reproduced, unpaid, demo]);
      if (!demo) expect(report.outcomes[0]!.problems).toEqual(["the transaction is not on this chain"]);
      // The claims the chain does hold are checked in full either way.
      expect(report.outcomes[1]!.unpaidDemo).toBeFalsy();
    },
  );

  it("names a winner the rules do not give", async () => {
    const world = await buildChainWorld(GUESSES);
    world.winners = {
      ...world.winners,
      highest: { ...world.winners.highest!, ...world.responses[3]!, prize: "7.800000" },
    };
    const { report } = await run(world);
    expect(report.differences).toContain(
      `the highest winner is response 101 (${world.responses[1]!.transactionHash}) by the rules; the site shows response 103`,
    );
    expect(report.outcomes.find((o) => o.response.id === 103)!.problems[0]).toMatch(/names it the highest winner/);
  });

  it("checks 10,000 responses in a few hundred batched requests", async () => {
    const guesses: Guess[] = Array.from({ length: 10_000 }, (_, i) => ({
      text: canonicalCoordinates(`29.${970000 + i}, 31.134`)!,
      stake: `${1 + (i % 50)}.25`,
      address: i % 2 ? PLAYER : OTHER,
      block: 100 + Math.floor(i / 20),
      txIndex: i % 20,
    }));
    const world = await buildChainWorld(guesses);
    const started = performance.now();
    const { report } = await run(world);
    const seconds = (performance.now() - started) / 1000;
    expect(report.outcomes.flatMap((o) => o.problems).slice(0, 3)).toEqual([]);
    expect([report.reproduced, report.ok]).toEqual([10_000, true]);
    // 20,000 transaction and receipt reads in batches of 100, 500 blocks, chain id and head.
    expect(world.rpcRequests).toBe(200 + 5 + 1);
    expect(world.siteRequests).toBe(10 + 1); // 10 pages of 1,000 responses, the winners
    console.info(`verified 10,000 responses in ${seconds.toFixed(1)} s`);
  }, 120_000);
});

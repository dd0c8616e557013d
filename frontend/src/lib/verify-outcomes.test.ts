import { describe, expect, it } from "vitest";
import vectors from "../../../tests/vectors.json";
import {
  blockTime,
  buildChainWorld,
  OPERATIONS,
  REGISTRY,
  START,
  type ChainWorld,
  type Guess,
  type Payment,
} from "../../test/chainWorld";
import { TEST_CONFIG } from "../../test/fixtures";
import {
  checkOffchain,
  decodeStakeCalldata,
  decodeTransferCalldata,
  distanceBetween,
  firstFailingRule,
  nextPath,
  PHASES,
  pickWinners,
  prizeSplit,
  TRANSFER_TOPIC,
  VerificationUnavailable,
  verifyChallenge,
  type OutcomeCheck,
  type VerificationReport,
  type VerifierConfig,
} from "./verify-outcomes";
import { canonicalCoordinates } from "./coordinates";
import { guessCommitment, solutionCommitment } from "./commitment";
import { decimalToUnits, unitsToDecimal } from "./stake";
import type { Challenge, RejectedClaim, ScoredResponse } from "@/lib/verify-outcomes-types";

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

type Fetch = typeof fetch;

async function run(world: ChainWorld, config: Partial<VerifierConfig> = {}, wrap: (inner: Fetch) => Fetch = (f) => f) {
  const phases: string[] = [];
  const steps: [string, number, number][] = [];
  const report = await verifyChallenge({
    challenge: world.challenge,
    config: { ...TEST_CONFIG, ...config },
    fetchImpl: wrap((async (input: RequestInfo | URL, init?: RequestInit) =>
      world.route(String(input), init)) as Fetch),
    progress: (phase, done, total) => {
      phases.push(phase);
      steps.push([phase, done, total]);
    },
  });
  return { report, phases, steps };
}

type RpcCallSent = { id: number; method: string; params: unknown[] };
type RpcAnswer = { id: number | null; result?: unknown; error?: unknown };

/** The world's RPC node with its answers changed: a node that misbehaves or lies. */
const rpcAnswers =
  (change: (calls: RpcCallSent[], answers: RpcAnswer[]) => unknown) =>
  (inner: Fetch): Fetch =>
    (async (input: RequestInfo | URL, init?: RequestInit) => {
      const res = await inner(input, init);
      if (String(input) !== TEST_CONFIG.rpcUrl) return res;
      const calls = JSON.parse(String(init!.body)) as RpcCallSent[];
      const body = change(calls, (await res.json()) as RpcAnswer[]);
      return new Response(JSON.stringify(body), { headers: { "Content-Type": "application/json" } });
    }) as Fetch;

const FAKE_TOKEN = `0x${"fa".repeat(20)}`;
const word = (hex: string) => `0x${hex.replace(/^0x/, "").toLowerCase().padStart(64, "0")}`;

/** A Transfer log of `amount` USDC units as another contract (a worthless token) emits it. */
function fakeTransfer(from: string, to: string, amount: string, hash: string, logIndex = 0x50) {
  return {
    address: FAKE_TOKEN,
    topics: [TRANSFER_TOPIC, word(from), word(to)],
    data: word(decimalToUnits(amount)!.toString(16)),
    blockNumber: "0x15",
    transactionHash: hash,
    transactionIndex: "0x7",
    logIndex: `0x${logIndex.toString(16)}`,
    removed: false,
  };
}

/** Every difference of a report, each naming what it concerns. */
function everyDifference(report: VerificationReport): string[] {
  return [
    ...report.outcomes.flatMap((o) => o.problems.map((p) => `response ${o.response.id}: ${p}`)),
    ...report.rejected.flatMap((r) => r.problems.map((p) => `rejected ${r.claim.id}: ${p}`)),
    ...report.payouts.flatMap((p) => p.problems.map((x) => `${p.kind} payout: ${x}`)),
    ...report.differences,
  ];
}

describe("verifyChallenge against a consistent chain", () => {
  it("reproduces every outcome of an honest resolution, its terms, rejections, payments and payouts", async () => {
    const world = await buildChainWorld(GUESSES);
    expect(world.winners.earliest?.id).toBe(100);
    expect(world.winners.highest?.id).toBe(101); // 7 USDC twice: the earlier in chain order
    const { report, phases } = await run(world);
    expect(everyDifference(report)).toEqual([]);
    expect(report.outcomes.map((o) => o.problems)).toEqual([[], [], [], []]);
    expect([report.reproduced, report.ok, report.differenceCount, report.terms]).toEqual([4, true, 0, "anchored"]);
    expect(report.anchor).toMatchObject({
      blockNumber: 10,
      registry: REGISTRY,
      opensAt: START,
      proximityThreshold: 150,
    });
    // Every payment to the treasury naming challenge 7, in chain order, is accounted for.
    expect(report.payments.map((p) => p.accountedAs)).toEqual([
      "confirmed",
      "rejected",
      "unclaimed",
      "confirmed",
      "confirmed",
      "confirmed",
    ]);
    expect(report.rejected.map((r) => [r.expected, r.payers])).toEqual([["amount_mismatch", true]]);
    expect(report.payouts.map((p) => p.state)).toEqual(["paid", "due", "kept"]);
    expect([...new Set(phases)]).toEqual([...PHASES]);
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
    [
      "transaction index",
      (r: ScoredResponse) => ({ ...r, transactionIndex: 5 }),
      /the chain position is block 21 index 0, the site shows block 21 index 5/,
    ],
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

  it("counts a response mined after the close as a difference", async () => {
    const world = await buildChainWorld(GUESSES);
    world.challenge = { ...world.challenge, closedTimestamp: blockTime(21) };
    const { report } = await run(world);
    expect(everyDifference(report)).toEqual([
      `response 103: mined at ${blockTime(22)}, outside the open window ${START} to ${blockTime(21)}`,
    ]);
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
    const { report, steps } = await run(world);
    const seconds = (performance.now() - started) / 1000;
    // The bar moves every 500 responses checked, then with the rejected claim, then to the end.
    const checks = steps.filter(([phase]) => phase === "checks").map(([, done, total]) => [done, total]);
    const total = 10_000 + 1 + 10_002;
    expect(checks).toEqual([
      ...Array.from({ length: 20 }, (_, i) => [500 * (i + 1), total]),
      [10_001, total],
      [total, total],
    ]);
    expect(everyDifference(report).slice(0, 3)).toEqual([]);
    expect([report.reproduced, report.ok]).toEqual([10_000, true]);
    expect(report.payments).toHaveLength(10_002);
    // Chain id, head and anchor in one request; the transfer scan (one range); 10,003 transactions
    // and receipts (the stakes, a rejected and an unclaimed payment, a payout) in batches of 100;
    // 502 blocks (500 of stakes, the anchor's, the payout's).
    expect(world.rpcRequests).toBe(1 + 1 + 201 + 6);
    // 10 pages of 1,000 responses, the rejected claims, the unclaimed payments (one page), the winners.
    expect(world.siteRequests).toBe(10 + 1 + 1 + 1);
    console.info(`verified 10,000 responses in ${seconds.toFixed(1)} s`);
  }, 120_000);
});

describe("the terms on chain (docs/protocol.md section 6, check 1)", () => {
  it.each([
    [
      "solution hash",
      (c: Challenge) => ({ ...c, solutionSha256: "ab".repeat(32) }),
      /^the site shows solution SHA-256 (ab){32}, the anchor committed [0-9a-f]{64}$/,
    ],
    [
      "threshold",
      (c: Challenge) => ({ ...c, proximityThreshold: 200 }),
      /^the site shows a proximity threshold of 200 m, the anchor committed 150 m$/,
    ],
    [
      "missing threshold",
      (c: Challenge) => ({ ...c, proximityThreshold: null }),
      /^the site shows a proximity threshold of 0 m, the anchor committed 150 m$/,
    ],
    [
      "opening time",
      (c: Challenge) => ({ ...c, startTimestamp: START - 1 }),
      /^the site shows the opening time 1799999999, the anchor committed 1800000000$/,
    ],
    ["title", (c: Challenge) => ({ ...c, poemTitle: "Stone steps" }), /^the title, poem and instructions/],
    ["poem", (c: Challenge) => ({ ...c, poemText: "<p>A poem.</p>" }), /^the title, poem and instructions/],
    ["instructions", (c: Challenge) => ({ ...c, instructionsText: "" }), /^the title, poem and instructions/],
    [
      "shown terms hash",
      (c: Challenge) => ({ ...c, anchor: { ...c.anchor!, termsSha256: "cd".repeat(32) } }),
      /^the site shows terms hash (cd){32}, the anchor committed/,
    ],
    [
      "shown anchor block",
      (c: Challenge) => ({ ...c, anchor: { ...c.anchor!, blockNumber: 11 } }),
      /^the site shows the anchor in block 11 .*; the chain's first anchor is in block 10/,
    ],
    [
      "shown anchor transaction",
      (c: Challenge) => ({ ...c, anchor: { ...c.anchor!, transactionHash: `0x${"f".repeat(64)}` } }),
      /^the site shows the anchor in block 10 \(transaction 0xf{64}\)/,
    ],
    [
      "shown anchor time",
      (c: Challenge) => ({ ...c, anchor: { ...c.anchor!, blockTimestamp: blockTime(10) + 1 } }),
      /^the anchor's block time is 1800000120, the site shows 1800000121$/,
    ],
    [
      "shown registry",
      (c: Challenge) => ({ ...c, anchor: { ...c.anchor!, registry: `0x${"9".repeat(40)}` } }),
      /^the site names registry 0x9{40} for the anchor/,
    ],
    [
      "hidden anchor",
      (c: Challenge) => ({ ...c, anchor: null }),
      /^the site shows no anchor; the chain has one in block 10/,
    ],
  ])("names a %s that differs from the anchor", async (_what, change, difference) => {
    const world = await buildChainWorld(GUESSES);
    world.challenge = change(world.challenge);
    const { report } = await run(world);
    expect(report.ok).toBe(false);
    expect(everyDifference(report)).toEqual([expect.stringMatching(difference)]);
  });

  it("opens the anchored solution commitment, not the one the site shows", async () => {
    const world = await buildChainWorld(GUESSES);
    const other = await solutionCommitment({ challengeId: 7, text: "1, 2", salt: "22".repeat(32) });
    world.challenge = { ...world.challenge, solutionSha256: other };
    world.registryLogs[0] = world.anchorLog({
      block: 10,
      solutionSha256: other,
      termsSha256: world.challenge.anchor!.termsSha256,
      opensAt: START,
      threshold: 150,
    });
    const { report } = await run(world);
    expect(everyDifference(report)).toEqual([
      "the revealed solution and salt do not open the solution commitment anchored on chain",
    ]);
  });

  it("judges the verdicts by the anchored threshold", async () => {
    const world = await buildChainWorld(GUESSES);
    world.registryLogs[0] = world.anchorLog({
      block: 10,
      solutionSha256: world.challenge.solutionSha256,
      termsSha256: world.challenge.anchor!.termsSha256,
      opensAt: START,
      threshold: 10,
    });
    const { report } = await run(world);
    expect(report.differences).toContain("the site shows a proximity threshold of 150 m, the anchor committed 10 m");
    // 31 m and 36 m away: correct within the site's 150 m, not within the anchored 10 m.
    for (const id of [100, 101]) {
      expect(report.outcomes.find((o) => o.response.id === id)!.problems).toEqual([
        "correct is no, the site shows yes",
      ]);
    }
    expect(report.outcomes.find((o) => o.response.id === 103)!.problems).toEqual([]);
  });

  it("takes the first anchor in chain order; a later or removed log changes nothing", async () => {
    const world = await buildChainWorld(GUESSES);
    const junk = { solutionSha256: "ab".repeat(32), termsSha256: "cd".repeat(32), opensAt: 1, threshold: 99_999 };
    world.registryLogs = [
      world.anchorLog({ block: 12, ...junk }),
      world.anchorLog({ block: 10, logIndex: 3, ...junk }),
      { ...world.anchorLog({ block: 5, ...junk }), removed: true },
      world.registryLogs[0]!,
    ];
    const { report } = await run(world);
    expect(everyDifference(report)).toEqual([]);
    expect(report.anchor).toMatchObject({ blockNumber: 10, logIndex: 0, proximityThreshold: 150 });
  });

  it("counts a stake only in a block after the anchor's, whatever its transaction index", async () => {
    const world = await buildChainWorld([{ ...GUESSES[0]!, txIndex: 3 }, ...GUESSES.slice(1)], { anchorBlock: 20 });
    const { report } = await run(world);
    expect(everyDifference(report)).toEqual(["response 100: mined in block 20, not after the anchor's block 20"]);
  });

  it("counts a stake only at or after the anchored opening time", async () => {
    const world = await buildChainWorld(GUESSES);
    const opensAt = blockTime(21) + 1;
    world.registryLogs[0] = world.anchorLog({
      block: 10,
      solutionSha256: world.challenge.solutionSha256,
      termsSha256: world.challenge.anchor!.termsSha256,
      opensAt,
      threshold: 150,
    });
    const { report } = await run(world);
    expect(report.differences).toContain(`the site shows the opening time ${START}, the anchor committed ${opensAt}`);
    for (const [id, block] of [
      [100, 20],
      [101, 21],
      [102, 21],
    ]) {
      expect(report.outcomes.find((o) => o.response.id === id)!.problems).toEqual([
        `mined at ${blockTime(block!)}, before the anchored opening time ${opensAt}`,
      ]);
    }
    expect(report.outcomes.find((o) => o.response.id === 103)!.problems).toEqual([]);
  });

  it("a challenge never anchored is a difference", async () => {
    const world = await buildChainWorld(GUESSES, { anchored: false });
    const { report } = await run(world);
    expect([report.terms, report.ok, report.completeness]).toEqual(["missing", false, false]);
    expect(everyDifference(report)).toEqual([
      `the terms of this challenge were never committed on chain: registry ${REGISTRY} holds no anchor for it`,
    ]);
  });

  it("a site that names no registry cannot show its terms on chain", async () => {
    const world = await buildChainWorld(GUESSES);
    const { report } = await run(world, { registryAddress: null });
    expect(report.terms).toBe("missing");
    expect(report.differences).toContain(
      "this site names no terms registry, so the terms of this challenge cannot be read from the chain",
    );
  });

  it("an anchor the site shows and the chain does not hold is a difference", async () => {
    const anchored = await buildChainWorld(GUESSES);
    const world = await buildChainWorld(GUESSES, { anchored: false });
    world.challenge = { ...world.challenge, isDemo: true, anchor: anchored.challenge.anchor! };
    const { report } = await run(world);
    expect(everyDifference(report)).toEqual([
      `the site shows an anchor in block 10 (transaction ${anchored.challenge.anchor!.transactionHash}) that the chain does not hold`,
    ]);
  });

  it("a demonstration challenge never anchored guarantees nothing; its made-up hashes are checked off chain", async () => {
    const world = await buildChainWorld(GUESSES, { anchored: false });
    world.challenge = { ...world.challenge, isDemo: true };
    for (const i of [0, 2]) {
      world.responses[i] = { ...world.responses[i]!, transactionHash: `0x${"d".repeat(63)}${i}` };
    }
    // A seeded rejected claim: its made-up hash is on no chain, its reason is not re-checked.
    world.rejected.push({ ...world.rejected[0]!, id: 951, transactionHash: `0x${"d".repeat(63)}9` });
    const { report } = await run(world);
    expect([report.terms, report.reproduced, report.unpaidDemo, report.ok]).toEqual(["demo", 4, 2, true]);
    expect(report.completeness).toBe(false);
    expect(report.rejected.map((r) => [r.claim.id, r.unpaidDemo ?? false, r.expected, r.problems])).toEqual([
      [900, false, "amount_mismatch", []],
      [951, true, null, []],
    ]);
    // The claims the chain does hold are checked in full.
    expect(report.outcomes[1]!.unpaidDemo).toBeFalsy();
  });

  it.each([false, true])("an anchored challenge (demo %s) is checked in full: a made-up hash differs", async (demo) => {
    const world = await buildChainWorld(GUESSES);
    world.challenge = { ...world.challenge, isDemo: demo };
    world.responses[0] = { ...world.responses[0]!, transactionHash: `0x${"d".repeat(64)}` };
    const { report } = await run(world);
    expect([report.reproduced, report.unpaidDemo, report.ok]).toEqual([3, 0, false]);
    expect(report.outcomes[0]!.problems).toEqual(["the transaction is not on this chain"]);
  });
});

describe("completeness (docs/protocol.md section 6, check 3)", () => {
  it("names a payment made while open that is not counted, rejected or listed unclaimed", async () => {
    const world = await buildChainWorld(GUESSES);
    const lost = await world.pay({ from: OTHER, stake: "5", block: 21, txIndex: 7 });
    const { report } = await run(world);
    expect(report.ok).toBe(false);
    expect(report.reproduced).toBe(4);
    expect(everyDifference(report)).toEqual([
      `payment ${lost.hash} (5 USDC from ${OTHER.toLowerCase()}, block 21) names this challenge and was made while ` +
        "it was open, but it is not counted, not rejected and not listed unclaimed",
    ]);
  });

  it.each([
    ["a payment mined after the close", (w: ChainWorld) => ({ block: w.closeBlock + 1, txIndex: 0 })],
    ["a payment in the anchor's own block", () => ({ block: 10, txIndex: 4 })],
  ])("reports %s and does not count it", async (_what, where) => {
    const world = await buildChainWorld(GUESSES);
    const outside = await world.pay({ from: OTHER, stake: "5", ...where(world) });
    const { report } = await run(world);
    expect(everyDifference(report)).toEqual([]);
    expect(report.payments.find((p) => p.transactionHash === outside.hash)).toMatchObject({
      accountedAs: null,
      inWindow: false,
    });
  });

  it("leaves out payments naming another challenge", async () => {
    const world = await buildChainWorld(GUESSES);
    const other = await world.pay({ from: OTHER, stake: "5", block: 21, txIndex: 7, challengeId: 8 });
    const { report } = await run(world);
    expect(everyDifference(report)).toEqual([]);
    expect(report.payments.map((p) => p.transactionHash)).not.toContain(other.hash);
  });

  // Blocks 10 to 32: with 11 a range the head block is a range of its own.
  it.each([1, 7, 11])("scans every block from the anchor's to the head, %i blocks a range", async (range) => {
    const world = await buildChainWorld(GUESSES);
    const last = await world.pay({ from: OTHER, stake: "5", block: world.head, txIndex: 0 });
    const { report } = await run(world, { logBlockRange: range });
    const ranges = world.logQueries
      .filter((q) => q.address === TEST_CONFIG.usdcAddress.toLowerCase())
      .map((q) => [Number(q.fromBlock), Number(q.toBlock)]);
    expect(ranges[0]![0]).toBe(10);
    expect(ranges.at(-1)![1]).toBe(world.head);
    ranges.slice(1).forEach(([from], i) => expect(from).toBe(ranges[i]![1]! + 1));
    expect(ranges.every(([from, to]) => to! - from! < range)).toBe(true);
    expect(report.payments.map((p) => p.transactionHash)).toContain(last.hash);
  });

  it.each([
    ["a stranger's claim with another guess", "commitment_mismatch", {}],
    // The operator, who never saw the payer's guess, invents a claim on the payment with another
    // stake: its reason re-checks, but it is not the payer's claim and accounts for nothing.
    ["an invented claim with another stake", "amount_mismatch", { submissionStake: "4.000000" }],
  ])("a payment whose only rejected claim is %s is still unaccounted for", async (_what, code, over) => {
    const world = await buildChainWorld(GUESSES);
    const lost = await world.pay({ from: OTHER, stake: "5", block: 21, txIndex: 7 });
    const invented = {
      submitterAddress: OTHER,
      submissionText: "1, 1",
      submissionSalt: "33".repeat(32),
      submissionStake: "5.000000",
      ...over,
    };
    world.rejected.push({
      id: 901,
      challengeId: 7,
      commitment: await guessCommitment({
        chainId: TEST_CONFIG.chainId,
        challengeId: 7,
        text: "1, 1",
        ...invented,
        salt: invented.submissionSalt,
      }),
      submissionTimestamp: null,
      transactionHash: lost.hash,
      status: "rejected",
      rejectionCode: code,
      rejectionReason: "",
      ...invented,
    });
    const { report } = await run(world);
    expect(report.rejected.find((r) => r.claim.id === 901)).toMatchObject({
      expected: code,
      problems: [],
      payers: false,
    });
    expect(everyDifference(report)).toEqual([
      expect.stringMatching(new RegExp(`^payment ${lost.hash} .* not listed unclaimed$`)),
    ]);
  });

  it("reads the unclaimed payments to the list's last page", async () => {
    // 1,001 payments whose claims never reached the site: the list spans two pages of 1,000, and a
    // verifier that stopped at the first would call the last one unaccounted for.
    const world = await buildChainWorld(GUESSES);
    for (let i = 0; i < 1001; i++) {
      const lost = await world.pay({ from: OTHER, stake: "1", block: 22 + Math.floor(i / 100), txIndex: i % 100 });
      world.unclaimed.push({
        transactionHash: lost.hash,
        logIndex: i % 100,
        blockNumber: 22 + Math.floor(i / 100),
        transactionIndex: i % 100,
        fromAddress: OTHER.toLowerCase(),
        amount: "1.000000",
      });
    }
    const { report } = await run(world);
    expect(everyDifference(report)).toEqual([]);
    expect(report.payments.filter((p) => p.accountedAs === "unclaimed")).toHaveLength(world.unclaimed.length);
  }, 60_000);

  it("a claim carrying the payment's commitment, from an address that did not pay, accounts for nothing", async () => {
    // The payer put a stranger's commitment in the calldata: the stranger's claim re-checks as
    // wrong_sender, but it is not the payer's claim, so the payment must be listed unclaimed.
    const STRANGER = "0x8888888888888888888888888888888888888888";
    const world = await buildChainWorld(GUESSES);
    const guess = { submitterAddress: STRANGER, text: "1, 1", salt: "33".repeat(32) };
    const commitment = await guessCommitment({ chainId: TEST_CONFIG.chainId, challengeId: 7, ...guess });
    const lost = await world.pay({ from: OTHER, stake: "5", block: 21, txIndex: 7, commitment });
    world.rejected.push({
      id: 901,
      challengeId: 7,
      submissionText: guess.text,
      submissionSalt: guess.salt,
      commitment,
      submissionStake: "5.000000",
      submissionTimestamp: null,
      transactionHash: lost.hash,
      submitterAddress: STRANGER,
      status: "rejected",
      rejectionCode: "wrong_sender",
      rejectionReason: "",
    });
    const first = await run(world);
    expect(first.report.rejected.find((r) => r.claim.id === 901)).toMatchObject({
      expected: "wrong_sender",
      problems: [],
      payers: false,
    });
    expect(everyDifference(first.report)).toEqual([
      expect.stringMatching(new RegExp(`^payment ${lost.hash} .* not listed unclaimed$`)),
    ]);
    world.unclaimed.push({
      transactionHash: lost.hash,
      logIndex: 7,
      blockNumber: 21,
      transactionIndex: 7,
      fromAddress: OTHER.toLowerCase(),
      amount: "5.000000",
    });
    const listed = await run(world);
    expect(everyDifference(listed.report)).toEqual([]);
    expect(listed.report.payments.find((p) => p.transactionHash === lost.hash)!.accountedAs).toBe("unclaimed");
  });

  it.each([
    [
      "a payment the chain does not hold",
      (w: ChainWorld) => w.unclaimed.push({ ...w.unclaimed[0]!, transactionHash: `0x${"5".repeat(64)}` }),
      /^unclaimed payment 0x5{64} is listed, but the chain has no USDC transfer to the treasury naming this challenge/,
    ],
    [
      "another amount",
      (w: ChainWorld) => (w.unclaimed[0] = { ...w.unclaimed[0]!, amount: "2.000000" }),
      /^unclaimed payment 0x[0-9a-f]{64} is listed as 2\.000000 USDC .*; the chain has 1\.5 USDC/,
    ],
    [
      "another log index",
      (w: ChainWorld) => (w.unclaimed[0] = { ...w.unclaimed[0]!, logIndex: 92 }),
      /^unclaimed payment 0x[0-9a-f]{64} is listed as .* log 92; the chain has .* log 91$/,
    ],
    [
      "another block",
      (w: ChainWorld) => (w.unclaimed[0] = { ...w.unclaimed[0]!, blockNumber: 21 }),
      /^unclaimed payment 0x[0-9a-f]{64} is listed as .* in block 21 log 91; the chain has .* in block 20 log 91$/,
    ],
    [
      "another sender",
      (w: ChainWorld) => (w.unclaimed[0] = { ...w.unclaimed[0]!, fromAddress: OTHER }),
      new RegExp(`^unclaimed payment 0x[0-9a-f]{64} is listed as 1\\.500000 USDC from ${OTHER} in block 20`),
    ],
    [
      "a counted payment",
      (w: ChainWorld) =>
        w.unclaimed.push({ ...w.unclaimed[0]!, transactionHash: w.responses[0]!.transactionHash, logIndex: 0 }),
      /^payment 0x[0-9a-f]{64} is listed unclaimed, but response 100 .* counts it$/,
    ],
  ])("names an unclaimed listing of %s", async (_what, change, difference) => {
    const world = await buildChainWorld(GUESSES);
    change(world);
    const { report } = await run(world);
    expect(everyDifference(report)).toEqual([expect.stringMatching(difference)]);
  });
});

describe("rejected claims, their reasons re-checked (check 3)", () => {
  const STRANGER = "0x8888888888888888888888888888888888888888";
  const scenarios: [
    string,
    (w: ChainWorld) => Payment,
    Partial<RejectedClaim>,
    ((w: ChainWorld, hash: string) => void)?,
  ][] = [
    ["tx_failed", () => ({ from: PLAYER, stake: "5", block: 21, txIndex: 7, status: 0 }), {}],
    ["wrong_token", () => ({ from: PLAYER, stake: "5", block: 21, txIndex: 7, to: `0x${"7".repeat(40)}` }), {}],
    [
      "unsupported_transaction", // our calldata to another contract, with ether attached
      () => ({ from: PLAYER, stake: "5", block: 21, txIndex: 7, to: `0x${"7".repeat(40)}` }),
      {},
      (w, hash) => w.txs.set(hash, { ...w.txs.get(hash)!, value: "0x1" }),
    ],
    [
      "unsupported_transaction",
      () => ({ from: PLAYER, stake: "5", block: 21, txIndex: 7 }),
      {},
      (w, hash) => {
        const tx = w.txs.get(hash)!;
        w.txs.set(hash, { ...tx, input: `0x23b872dd${String(tx.input).slice(10)}` });
      },
    ],
    [
      "unsupported_transaction",
      () => ({ from: PLAYER, stake: "5", block: 21, txIndex: 7 }),
      {},
      (w, hash) => w.txs.set(hash, { ...w.txs.get(hash)!, value: "0x1" }), // ether attached
    ],
    ["wrong_sender", () => ({ from: PLAYER, stake: "5", block: 21, txIndex: 7 }), { submitterAddress: STRANGER }],
    ["wrong_recipient", () => ({ from: PLAYER, stake: "5", block: 21, txIndex: 7, recipient: STRANGER }), {}],
    ["amount_mismatch", () => ({ from: PLAYER, stake: "5", block: 21, txIndex: 7 }), { submissionStake: "6.000000" }],
    [
      "commitment_mismatch",
      () => ({ from: PLAYER, stake: "5", block: 21, txIndex: 7 }),
      { submissionSalt: "44".repeat(32) },
    ],
    ["challenge_mismatch", () => ({ from: PLAYER, stake: "5", block: 21, txIndex: 7, challengeId: 8 }), {}],
    ["no_transfer_log", () => ({ from: PLAYER, stake: "5", block: 21, txIndex: 7, transferLog: false }), {}],
    [
      "no_transfer_log", // the same Transfer emitted by another contract is not USDC moving
      () => ({ from: PLAYER, stake: "5", block: 21, txIndex: 7, transferLog: false }),
      {},
      (w, hash) => w.receipts.get(hash)!.logs.push(fakeTransfer(PLAYER, TEST_CONFIG.treasuryAddress, "5", hash)),
    ],
    [
      "commitment_mismatch", // a plain 68-byte transfer carries no commitment
      () => ({ from: PLAYER, stake: "5", block: 21, txIndex: 7 }),
      {},
      (w, hash) => {
        const tx = w.txs.get(hash)!;
        w.txs.set(hash, { ...tx, input: String(tx.input).slice(0, 2 + 2 * 68) });
      },
    ],
    ["early", () => ({ from: PLAYER, stake: "5", block: 10, txIndex: 7 }), {}],
    ["late", (w) => ({ from: PLAYER, stake: "5", block: w.closeBlock + 1, txIndex: 0 }), {}],
    [
      "not_found",
      () => ({ from: PLAYER, stake: "5", block: 21, txIndex: 7 }),
      {},
      (w, hash) => {
        w.txs.delete(hash);
        w.receipts.delete(hash);
      },
    ],
    [
      "not_found", // still pending: the node knows the transaction, no receipt
      () => ({ from: PLAYER, stake: "5", block: 21, txIndex: 7 }),
      {},
      (w, hash) => w.receipts.delete(hash),
    ],
  ];

  async function rejectedWorld(code: string, index: number, claimCode = code) {
    const [, payment, over, tamper] = scenarios[index]!;
    const world = await buildChainWorld(GUESSES);
    const paid = await world.pay(payment(world));
    tamper?.(world, paid.hash);
    const fields = { submitterAddress: PLAYER, submissionText: paid.text, submissionSalt: paid.salt, ...over };
    world.rejected.push({
      id: 950,
      challengeId: 7,
      submissionStake: "5.000000",
      commitment: await guessCommitment({
        chainId: TEST_CONFIG.chainId,
        challengeId: 7,
        submitterAddress: fields.submitterAddress,
        text: fields.submissionText ?? "",
        salt: fields.submissionSalt ?? "",
      }),
      submissionTimestamp: null,
      transactionHash: paid.hash,
      status: "rejected",
      rejectionCode: claimCode,
      rejectionReason: "",
      ...fields,
    });
    return world;
  }

  it.each(scenarios.map(([code], i) => [code, i] as const))("re-checks %s", async (code, index) => {
    const { report } = await run(await rejectedWorld(code, index));
    expect(report.rejected.find((r) => r.claim.id === 950)).toMatchObject({ expected: code, problems: [] });
  });

  it("accepts reorged for a payment the chain no longer holds", async () => {
    const index = scenarios.findIndex(([code]) => code === "not_found");
    const { report } = await run(await rejectedWorld("not_found", index, "reorged"));
    expect(report.rejected.find((r) => r.claim.id === 950)!.problems).toEqual([]);
  });

  it("names a rejection whose reason is not the first rule the payment fails", async () => {
    const index = scenarios.findIndex(([code]) => code === "amount_mismatch");
    const { report } = await run(await rejectedWorld("amount_mismatch", index, "late"));
    expect(everyDifference(report)).toEqual([
      'rejected 950: rejected "late", but the first rule its payment fails is "amount_mismatch"',
    ]);
    expect([report.differenceCount, report.ok]).toEqual([1, false]);
  });

  it("names a rejected claim whose payment passes every rule", async () => {
    const world = await buildChainWorld(GUESSES);
    const paid = await world.pay({ from: PLAYER, stake: "5", block: 21, txIndex: 7 });
    world.rejected.push({
      id: 950,
      challengeId: 7,
      submissionText: paid.text,
      submissionSalt: paid.salt,
      commitment: paid.commitment,
      submissionStake: "5.000000",
      submissionTimestamp: null,
      transactionHash: paid.hash,
      submitterAddress: PLAYER,
      status: "rejected",
      rejectionCode: "late",
      rejectionReason: "",
    });
    const { report } = await run(world);
    expect(everyDifference(report)).toEqual(['rejected 950: rejected "late", but its payment passes every rule']);
  });

  it("names a rejected claim whose commitment is not its guess's", async () => {
    const world = await buildChainWorld(GUESSES);
    world.rejected[0] = { ...world.rejected[0]!, commitment: "ab".repeat(32) };
    const { report } = await run(world);
    expect(everyDifference(report)).toEqual([
      "rejected 900: its commitment is not the commitment of its guess, address and salt",
    ]);
  });
});

describe("payouts (docs/protocol.md section 6, check 4)", () => {
  const paid = (w: ChainWorld) => w.winners.payouts![0]!;
  it.each([
    [
      "another amount",
      "earliest",
      (w: ChainWorld) => (w.winners.payouts![0] = { ...paid(w), amount: "7.000000" }),
      /7\.000000 USDC, the rules give 7\.8/,
    ],
    [
      "another address",
      "earliest",
      (w: ChainWorld) => (w.winners.payouts![0] = { ...paid(w), address: OTHER }),
      new RegExp(`paid to ${OTHER}, the rules give ${PLAYER}`),
    ],
    [
      "a transaction that moved another amount",
      "earliest",
      (w: ChainWorld) => {
        const log = w.receipts.get(paid(w).transactionHash!)!.logs[0]!;
        log.data = `0x${"1".padStart(64, "0")}`;
      },
      /holds no USDC Transfer of 7\.800000 from the treasury/,
    ],
    [
      "a failed transaction",
      "earliest",
      (w: ChainWorld) => (w.receipts.get(paid(w).transactionHash!)!.status = "0x0"),
      /is not a successful transaction on this chain/,
    ],
    [
      "a payment before the resolution",
      "earliest",
      (w: ChainWorld) => (w.challenge = { ...w.challenge, resolvedTimestamp: blockTime(w.resolveBlock + 2) }),
      /before the resolution/,
    ],
    [
      "paid with no transaction",
      "highest",
      (w: ChainWorld) => (w.winners.payouts![1] = { ...w.winners.payouts![1]!, status: "paid" }),
      /marked paid, with no transaction/,
    ],
    [
      "a prize kept in the treasury",
      "highest",
      (w: ChainWorld) => (w.winners.payouts![1] = { ...w.winners.payouts![1]!, status: "kept" }),
      /a prize cannot stay in the treasury/,
    ],
    [
      "another operations share",
      "operations",
      (w: ChainWorld) => (w.winners.payouts![2] = { ...w.winners.payouts![2]!, amount: "4.000000" }),
      /the rules give 3\.9$/,
    ],
  ])("reports a payout with %s as different", async (_what, kind, change, problem) => {
    const world = await buildChainWorld(GUESSES);
    change(world);
    const { report } = await run(world);
    expect(report.ok).toBe(false);
    const different = report.payouts.filter((p) => p.state === "different");
    expect(different.map((p) => p.kind)).toEqual([kind]);
    expect(different[0]!.problems.join("; ")).toMatch(problem);
    expect(report.differenceCount).toBe(1);
  });

  it("names a prize the site does not list", async () => {
    const world = await buildChainWorld(GUESSES);
    world.winners.payouts!.splice(1, 1);
    const { report } = await run(world);
    expect(everyDifference(report)).toEqual(["the site lists no highest payout; the rules give 7.8 USDC"]);
  });

  it("names a payout the rules do not give", async () => {
    const world = await buildChainWorld(GUESSES, { threshold: 1 });
    expect(world.winners.earliest).toBeNull();
    world.winners.payouts = [
      { kind: "earliest", address: PLAYER, amount: "1.000000", status: "due", transactionHash: null },
    ];
    const { report } = await run(world);
    expect(everyDifference(report)).toEqual(["earliest payout: the rules give no earliest prize"]);
  });
});

describe("what a player relies on, case by case", () => {
  it("reports each step's progress from 0 to its own total", async () => {
    const world = await buildChainWorld(GUESSES);
    const { steps } = await run(world);
    const byPhase = (phase: string) => steps.filter(([p]) => p === phase).map(([, done, total]) => [done, total]);
    expect(byPhase("anchor")).toEqual([
      [0, 1],
      [1, 1],
    ]);
    expect(byPhase("responses")).toEqual([
      [0, 4],
      [4, 4],
    ]);
    expect(byPhase("claims")).toEqual([
      [0, 3],
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    // Blocks 10 (the anchor's) to 32 (the head): 23 blocks, one range.
    expect(byPhase("transfers")).toEqual([
      [0, 23],
      [23, 23],
    ]);
    // 4 responses, the rejected claim, the unclaimed payment and a payout: 7 transactions and receipts.
    expect(byPhase("chain")).toEqual([
      [0, 14],
      [14, 14],
    ]);
    // 4 responses, 1 rejected claim, 6 transfers to the treasury.
    expect(byPhase("checks")).toEqual([
      [4, 11],
      [5, 11],
      [11, 11],
    ]);
  });

  it("verifies a challenge whose id is above 15 (the anchor's topic is the id in hexadecimal)", async () => {
    const world = await buildChainWorld(GUESSES, { id: 300 });
    const { report } = await run(world);
    expect(everyDifference(report)).toEqual([]);
    expect([report.terms, report.anchor?.blockNumber, report.payments.length]).toEqual(["anchored", 10, 6]);
  });

  it("checks a challenge with a single response", async () => {
    const world = await buildChainWorld([GUESSES[0]!], { anchored: false, extras: false });
    const { report } = await run(world);
    expect(report.reproduced).toBe(1);
    expect(everyDifference(report)).toEqual([
      `the terms of this challenge were never committed on chain: registry ${REGISTRY} holds no anchor for it`,
    ]);
  });

  it("sends no empty batch, whatever the batch size (a node answers one with an error)", async () => {
    const world = await buildChainWorld(GUESSES);
    const { report } = await run(world, { batchSize: 1 });
    expect([report.ok, report.reproduced]).toEqual([true, 4]);
  });

  it.each([
    [
      "answers a short batch",
      rpcAnswers((calls, answers) =>
        calls.some((c) => c.method === "eth_getTransactionReceipt") ? answers.slice(0, -1) : answers,
      ),
      "The RPC node did not answer the batch.",
    ],
    [
      "answers a call with an error",
      rpcAnswers((calls, answers) =>
        answers.map((a) =>
          calls.find((c) => c.id === a.id)?.method === "eth_getTransactionReceipt"
            ? { jsonrpc: "2.0", id: a.id, error: { code: -32000, message: "header not found" } }
            : a,
        ),
      ),
      "The RPC node refused eth_getTransactionReceipt: header not found",
    ],
  ])("decides nothing when the RPC node %s", async (_what, wrap, message) => {
    const world = await buildChainWorld(GUESSES);
    const verifying = run(world, {}, wrap);
    await expect(verifying).rejects.toThrow(VerificationUnavailable);
    await expect(verifying).rejects.toThrow(message);
  });

  it("needs an RPC node, except for a demonstration challenge, whose claims it then checks off chain", async () => {
    const world = await buildChainWorld(GUESSES, { anchored: false, extras: false });
    await expect(run(world, { rpcUrl: "" })).rejects.toThrow("This site has no public RPC node configured.");
    world.challenge = { ...world.challenge, isDemo: true };
    const { report } = await run(world, { rpcUrl: "" });
    expect([report.terms, report.reproduced, report.unpaidDemo, report.ok]).toEqual(["demo", 4, 4, true]);
    expect(world.rpcRequests).toBe(0);
  });

  it("judges a challenge without a threshold (and no anchor) by an exact hit only", async () => {
    // About 0.4 m from the solution: not an exact hit.
    const near: Guess = { text: "29.979179, 31.134258", stake: "2", address: PLAYER, block: 20, txIndex: 0 };
    const world = await buildChainWorld([near, GUESSES[1]!], { anchored: false, threshold: 0 });
    world.challenge = { ...world.challenge, isDemo: true, proximityThreshold: null };
    expect(world.responses[0]!.isCorrect).toBe(false);
    const { report } = await run(world);
    expect(everyDifference(report)).toEqual([]);
    expect(report.outcomes.map((o) => o.correct)).toEqual([false, false]);
  });

  it("names a distance the site shows wrongly", async () => {
    const world = await buildChainWorld(GUESSES);
    world.responses[2] = { ...world.responses[2]!, distanceMeters: world.responses[2]!.distanceMeters! + 0.01 };
    const { report } = await run(world);
    expect(everyDifference(report)).toEqual([
      expect.stringMatching(/^response 102: the distance is [0-9.]+ m, the site shows/),
    ]);
  });

  it("lets the site's verdict stand on a guess within 1 mm of the threshold", async () => {
    const world = await buildChainWorld(GUESSES);
    const response = world.responses[2]!;
    const distance = distanceBetween(response.submissionText!, world.challenge.solutionReveal!);
    for (const [threshold, shown] of [
      [distance - 0.0005, true], // not correct by the sums, within 1 mm: the site's "correct" stands
      [distance + 0.0005, false],
    ] as const) {
      const check: OutcomeCheck = {
        response: { ...response, isCorrect: shown },
        problems: [],
        distance: null,
        correct: null,
      };
      checkOffchain(check, world.challenge, threshold);
      expect([check.correct, check.problems]).toEqual([shown, []]);
    }
    const check: OutcomeCheck = {
      response: { ...response, isCorrect: true },
      problems: [],
      distance: null,
      correct: null,
    };
    checkOffchain(check, world.challenge, distance - 0.002);
    expect(check.problems).toEqual(["correct is no, the site shows yes"]);
  });

  it("names the totals when the list does not add up to them", async () => {
    for (const change of [
      (c: Challenge) => ({ ...c, responseCount: 5 }),
      (c: Challenge) => ({ ...c, stakedSum: "20.500000" }),
    ]) {
      const world = await buildChainWorld(GUESSES);
      world.challenge = change(world.challenge);
      const { report } = await run(world);
      expect(everyDifference(report)).toEqual([
        expect.stringMatching(/^4 responses stake 19\.5 USDC; the site shows (5 staking 19\.5|4 staking 20\.5)/),
      ]);
    }
  });
});

describe("the chain's records of a counted payment", () => {
  it("names a payment still pending", async () => {
    const world = await buildChainWorld(GUESSES);
    world.receipts.delete(world.responses[1]!.transactionHash);
    const { report } = await run(world);
    expect(report.outcomes[1]!.problems).toEqual(["the transaction is not on this chain"]);
  });

  it("names a receipt from a block that is no longer on the canonical chain", async () => {
    const world = await buildChainWorld(GUESSES);
    world.receipts.get(world.responses[1]!.transactionHash)!.blockHash = `0x${"c".repeat(64)}`;
    const { report } = await run(world);
    expect(report.outcomes[1]!.problems).toEqual(["block 21 of the receipt is not on the canonical chain"]);
  });

  // The last guess is in block 22; without a setting the page asks 2 blocks, as the server does.
  it.each([
    [23, []],
    [22, ["response 103: only 1 confirmation, fewer than 2"]],
  ])("with the head at block %i, counts a payment only 2 blocks deep", async (head, differences) => {
    const world = await buildChainWorld(GUESSES, { extras: false });
    world.head = head;
    const { report } = await run(world, { confirmations: undefined });
    expect(everyDifference(report)).toEqual(differences);
  });

  it("takes the USDC contract's Transfer, not the same Transfer emitted by another contract", async () => {
    const world = await buildChainWorld(GUESSES);
    const hash = world.responses[1]!.transactionHash;
    const receipt = world.receipts.get(hash)!;
    receipt.logs.unshift(fakeTransfer(OTHER, TEST_CONFIG.treasuryAddress, "7", hash));
    const { report } = await run(world);
    expect(everyDifference(report)).toEqual([]);
    expect(report.outcomes[1]!.chainPosition).toEqual([21, 0, 0]);
  });

  it("rejects a calldata whose address word is not left-padded with zeros", () => {
    const plain = `0xa9059cbb${word(TEST_CONFIG.treasuryAddress).slice(2)}${word("4c4b40").slice(2)}`;
    const stake = `${plain}${"ab".repeat(32)}${word("7").slice(2)}${word("0").slice(2)}`;
    expect(decodeTransferCalldata(plain)).toEqual({
      recipient: TEST_CONFIG.treasuryAddress.toLowerCase(),
      amountUnits: 5_000_000n,
    });
    expect(decodeTransferCalldata(plain.slice(2))).toEqual(decodeTransferCalldata(plain));
    expect(decodeTransferCalldata(stake)).toEqual(decodeStakeCalldata(stake));
    const dirty = (data: string, nibble: number) => `${data.slice(0, 10 + nibble)}1${data.slice(11 + nibble)}`;
    for (const nibble of [0, 23]) {
      expect(decodeTransferCalldata(dirty(plain, nibble))).toBeNull();
      expect(decodeStakeCalldata(dirty(stake, nibble))).toBeNull();
    }
    expect(decodeTransferCalldata(`0x23b872dd${plain.slice(10)}`)).toBeNull(); // another function
    expect(decodeTransferCalldata(`${plain.slice(0, -2)}zz`)).toBeNull();
    expect(decodeTransferCalldata(`${plain}00`)).toBeNull();
  });

  it("re-checks a rejected claim whose payment's block the node does not return as not_found", async () => {
    const world = await buildChainWorld(GUESSES);
    const claim = world.rejected[0]!;
    const records = { tx: world.txs.get(claim.transactionHash)!, receipt: world.receipts.get(claim.transactionHash)! };
    const rule = (block: { hash: string; timestamp: string } | null) =>
      firstFailingRule(claim, claim.commitment, { ...records, block }, world.challenge, TEST_CONFIG, null);
    expect(rule({ hash: "0x0", timestamp: `0x${blockTime(20).toString(16)}` })).toBe("amount_mismatch");
    expect(rule(null)).toBe("not_found");
  });
});

describe("the open window's edges", () => {
  /** A world whose anchored opening time and start are block 20's time, with a payment in block
   * 20 that no claim names and one whose claim was rejected "early". */
  async function openingWorld() {
    const world = await buildChainWorld(GUESSES);
    const opensAt = blockTime(20);
    world.challenge = { ...world.challenge, startTimestamp: opensAt };
    world.registryLogs[0] = world.anchorLog({
      block: 10,
      solutionSha256: world.challenge.solutionSha256,
      termsSha256: world.challenge.anchor!.termsSha256,
      opensAt,
      threshold: 150,
    });
    return world;
  }

  async function rejectedClaim(world: ChainWorld, block: number, code: string) {
    const paid = await world.pay({ from: PLAYER, stake: "5", block, txIndex: 8 });
    world.rejected.push({
      id: 950,
      challengeId: world.challenge.id,
      submissionText: paid.text,
      submissionSalt: paid.salt,
      commitment: paid.commitment,
      submissionStake: "5.000000",
      submissionTimestamp: null,
      transactionHash: paid.hash,
      submitterAddress: PLAYER,
      status: "rejected",
      rejectionCode: code,
      rejectionReason: "",
    });
    return paid;
  }

  it("a payment mined at the anchored opening time counts", async () => {
    const world = await openingWorld();
    const lost = await world.pay({ from: OTHER, stake: "5", block: 20, txIndex: 7 });
    await rejectedClaim(world, 20, "early");
    const { report } = await run(world);
    expect(report.outcomes[0]!.problems).toEqual([]); // response 100, mined at the opening
    expect(everyDifference(report)).toEqual([
      'rejected 950: rejected "early", but its payment passes every rule',
      expect.stringMatching(new RegExp(`^payment ${lost.hash} .* not listed unclaimed$`)),
    ]);
  });

  it("a payment mined at the close counts", async () => {
    const world = await buildChainWorld(GUESSES);
    const lost = await world.pay({ from: OTHER, stake: "5", block: world.closeBlock, txIndex: 7 });
    await rejectedClaim(world, world.closeBlock, "late");
    const { report } = await run(world);
    expect(everyDifference(report)).toEqual([
      'rejected 950: rejected "late", but its payment passes every rule',
      expect.stringMatching(new RegExp(`^payment ${lost.hash} .* not listed unclaimed$`)),
    ]);
  });

  it("without an anchor, a payment before the start is outside the window", async () => {
    const world = await buildChainWorld(GUESSES, { anchored: false });
    world.challenge = { ...world.challenge, isDemo: true, startTimestamp: blockTime(21) };
    await rejectedClaim(world, 20, "late");
    const { report } = await run(world);
    expect(report.rejected.find((r) => r.claim.id === 950)).toMatchObject({ expected: "late", problems: [] });
    // Response 100 was mined in block 20, before the start; 101 and 102 at the start itself.
    expect(everyDifference(report)).toEqual([
      `response 100: mined at ${blockTime(20)}, outside the open window ${blockTime(21)} to ${blockTime(world.closeBlock)}`,
    ]);
  });

  it("leaves out of the scan what the node returns that is not a USDC Transfer to the treasury", async () => {
    const world = await buildChainWorld(GUESSES);
    const decoys: Record<string, unknown>[] = [];
    for (const [i, change] of [
      (log: Record<string, unknown>) => ({ ...log, removed: true }),
      (log: Record<string, unknown>) => ({ ...log, address: FAKE_TOKEN }),
      (log: Record<string, unknown>) => ({
        ...log,
        topics: [`0x${"8c".repeat(32)}`, ...(log.topics as string[]).slice(1)],
      }),
    ].entries()) {
      const paid = await world.pay({ from: OTHER, stake: "5", block: 21, txIndex: 10 + i, transferLog: false });
      const log = {
        ...fakeTransfer(OTHER, TEST_CONFIG.treasuryAddress, "5", paid.hash, 10 + i),
        address: TEST_CONFIG.usdcAddress.toLowerCase(),
      };
      decoys.push(change(log));
    }
    const sloppy = rpcAnswers((calls, answers) =>
      answers.map((a) => {
        const call = calls.find((c) => c.id === a.id)!;
        const filter = call.params[0] as { address?: string } | undefined;
        return call.method === "eth_getLogs" && filter?.address === TEST_CONFIG.usdcAddress.toLowerCase()
          ? { ...a, result: [...(a.result as unknown[]), ...decoys] }
          : a;
      }),
    );
    const { report } = await run(world, {}, sloppy);
    expect(everyDifference(report)).toEqual([]);
    expect(report.payments).toHaveLength(6);
  });
});

describe("the payouts' edges and the operations share", () => {
  const prize = (w: ChainWorld) => w.winners.payouts![0]!;

  it("a payout mined at the resolution time is paid; one whose block the node does not return is not", async () => {
    const world = await buildChainWorld(GUESSES);
    world.challenge = { ...world.challenge, resolvedTimestamp: blockTime(world.resolveBlock + 1) };
    expect((await run(world)).report.payouts.map((p) => p.state)).toEqual(["paid", "due", "kept"]);
    const noBlock = rpcAnswers((calls, answers) =>
      answers.map((a) =>
        calls.find((c) => c.id === a.id)?.method === "eth_getBlockByNumber" &&
        Number(calls.find((c) => c.id === a.id)!.params[0]) === world.resolveBlock + 1
          ? { ...a, result: null }
          : a,
      ),
    );
    const { report } = await run(world, {}, noBlock);
    expect(report.payouts[0]).toMatchObject({ state: "different" });
    expect(report.payouts[0]!.problems).toEqual([
      `paid at ?, before the resolution at ${blockTime(world.resolveBlock + 1)}`,
    ]);
  });

  it("a prize paid in a worthless token that emits the same Transfer is different", async () => {
    const world = await buildChainWorld(GUESSES);
    const receipt = world.receipts.get(prize(world).transactionHash!)!;
    receipt.logs = [{ ...receipt.logs[0]!, address: FAKE_TOKEN }];
    const { report } = await run(world);
    expect(report.payouts[0]!.problems).toEqual([
      `its transaction holds no USDC Transfer of 7.800000 from the treasury to ${PLAYER}`,
    ]);
  });

  /** The operations share paid to `to` in its own transaction, after the resolution. */
  function payOperations(world: ChainWorld, to: string) {
    const hash = `0x${"0e".repeat(32)}`;
    const block = `0x${(world.resolveBlock + 2).toString(16)}`;
    world.txs.set(hash, {
      hash,
      from: TEST_CONFIG.treasuryAddress.toLowerCase(),
      to: TEST_CONFIG.usdcAddress.toLowerCase(),
      value: "0x0",
      input: "0xa9059cbb",
    });
    world.receipts.set(hash, {
      status: "0x1",
      blockNumber: block,
      transactionIndex: "0x0",
      logs: [
        {
          ...fakeTransfer(TEST_CONFIG.treasuryAddress, to, world.winners.operations, hash, 0),
          address: TEST_CONFIG.usdcAddress.toLowerCase(),
          blockNumber: block,
        },
      ],
    });
    return hash;
  }

  const operationsPayout = (w: ChainWorld) => w.winners.payouts![2]!;

  it.each([
    ["none, kept in the treasury", null, () => {}, "kept", []],
    [
      "one, paid to it",
      OPERATIONS,
      (w: ChainWorld) => {
        w.winners.payouts![2] = {
          ...operationsPayout(w),
          address: OPERATIONS,
          status: "paid",
          transactionHash: payOperations(w, OPERATIONS),
        };
      },
      "paid",
      [],
    ],
    [
      "one, not paid yet",
      OPERATIONS,
      (w: ChainWorld) => (w.winners.payouts![2] = { ...operationsPayout(w), address: OPERATIONS, status: "due" }),
      "due",
      [],
    ],
    [
      "one, but the site keeps the share in the treasury",
      OPERATIONS,
      () => {},
      "different",
      [
        `paid to ${TEST_CONFIG.treasuryAddress.toLowerCase()}, the rules give ${OPERATIONS}`,
        `kept in the treasury; the rules pay the operations share to ${OPERATIONS}`,
      ],
    ],
    [
      "one, but the site paid another address",
      OPERATIONS,
      (w: ChainWorld) => {
        w.winners.payouts![2] = {
          ...operationsPayout(w),
          address: OTHER,
          status: "paid",
          transactionHash: payOperations(w, OTHER),
        };
      },
      "different",
      [`paid to ${OTHER}, the rules give ${OPERATIONS}`],
    ],
    [
      "none, but the site paid the share out",
      null,
      (w: ChainWorld) => {
        w.winners.payouts![2] = {
          ...operationsPayout(w),
          address: OPERATIONS,
          status: "paid",
          transactionHash: payOperations(w, OPERATIONS),
        };
      },
      "different",
      [
        `paid to ${OPERATIONS}, the rules give ${TEST_CONFIG.treasuryAddress.toLowerCase()}`,
        "marked paid; this site names no operations address, so the share stays in the treasury",
      ],
    ],
    [
      "none, and the share kept with a transaction",
      null,
      (w: ChainWorld) => {
        w.winners.payouts![2] = { ...operationsPayout(w), transactionHash: payOperations(w, OPERATIONS) };
      },
      "different",
      [`kept in the treasury, yet it names transaction 0x${"0e".repeat(32)}`],
    ],
  ])("an operations address: %s", async (_what, operationsAddress, change, state, problems) => {
    const world = await buildChainWorld(GUESSES);
    change(world);
    const { report } = await run(world, { operationsAddress });
    const operations = report.payouts.find((p) => p.kind === "operations")!;
    expect([operations.state, operations.problems]).toEqual([state, problems]);
    expect(report.ok).toBe(state !== "different");
    expect(report.payouts.filter((p) => p.kind !== "operations").map((p) => p.state)).toEqual(["paid", "due"]);
  });
});

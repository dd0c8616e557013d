import { describe, expect, it } from "vitest";
import { BATCHER, blockTime, buildChainWorld, type ChainWorld, type Guess } from "../../test/chainWorld";
import { TEST_CONFIG } from "../../test/fixtures";
import { everyDifference, verifyWorld } from "../../test/verifyWorld";
import { guessCommitment } from "./commitment";
import type { RejectedClaim } from "@/lib/verify-outcomes-types";

// docs/protocol.md sections 2a and 5: stakes paid by a signed authorization, relayed. The same cases
// as verify_challenge.py's on anvil (chain/tests/test_verify_authorizations.py, which also runs this
// verifier by node on the same chain states); here on the simulated chain of test/chainWorld.ts, so
// that the page's own suite (and its mutation run, scripts/mutate_ts.mjs) holds every comparison.

const PLAYER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const OTHER = "0x90F79bf6EB2c4F870365E785982E1f101E93b906";
const THIRD = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65";
const FOURTH = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc";
const STRANGER = "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955";
const GUESSES: Guess[] = [
  { text: "29.979, 31.134", stake: "2.5", address: PLAYER, block: 20, txIndex: 0 }, // a transfer: earliest
  // Relayed by the relayer: correct, the highest stake.
  { text: "29.9795, 31.1343", stake: "7", address: OTHER, block: 21, txIndex: 0, authorization: {} },
  // Submitted by a stranger, neither the payer nor the relayer.
  { text: "30.0444, 31.2357", stake: "3", address: THIRD, block: 21, txIndex: 1, authorization: { sender: STRANGER } },
  // Two authorizations in one transaction, through a batch contract.
  { text: "10, 10", stake: "1.5", address: PLAYER, block: 22, txIndex: 0, authorization: { via: BATCHER } },
  { text: "20, 20", stake: "2.5", address: OTHER, block: 22, txIndex: 0, authorization: { via: BATCHER } },
];

/** The fields of docs/protocol.md 3.5 that say how a claim was paid (the API types gain them with the
 * page's part of this work). */
type PaidBy = { paymentMethod?: string; authorization?: { validBefore: number } | null };

/** A claim paid by authorization that the site rejected with `code`: its guess signed by FOURTH,
 * valid before `validBefore`, no transaction known. */
async function rejectedAuthorization(
  world: ChainWorld,
  { id, code, validBefore, text }: { id: number; code: string; validBefore: number; text: string },
): Promise<RejectedClaim> {
  const salt = id.toString(16).padStart(64, "0");
  const commitment = await guessCommitment({
    chainId: TEST_CONFIG.chainId,
    challengeId: world.challenge.id,
    submitterAddress: FOURTH,
    text,
    salt,
  });
  const claim = {
    id,
    challengeId: world.challenge.id,
    submissionText: text,
    submissionSalt: salt,
    commitment,
    submissionStake: "1.000000",
    submissionTimestamp: null,
    transactionHash: null as unknown as string,
    submitterAddress: FOURTH,
    status: "rejected" as const,
    rejectionCode: code,
    rejectionReason: "",
    paymentMethod: "authorization" as const,
    authorization: {
      validBefore,
      relayStatus: "failed" as const,
      relayReason: "",
      relayCode: "expired" as const,
      relayTransactionHash: null,
    },
  };
  world.rejected.push(claim);
  return claim;
}

/** The honest world: the guesses above, a claim whose authorization expired exactly at the head's
 * time, one whose authorization its payer cancelled. */
async function honest() {
  const world = await buildChainWorld(GUESSES);
  const headTime = blockTime(world.head);
  const expired = await rejectedAuthorization(world, {
    id: 950,
    code: "authorization_expired",
    validBefore: headTime,
    text: "1, 1",
  });
  const cancelled = await rejectedAuthorization(world, {
    id: 951,
    code: "authorization_cancelled",
    validBefore: headTime + 3600,
    text: "2, 2",
  });
  world.cancel(FOURTH, cancelled.commitment, 23, 0);
  const byId = (id: number) => world.responses.find((r) => r.id === id)!;
  return { world, expired, cancelled, relayed: byId(101), byStranger: byId(102), batchA: byId(103), batchB: byId(104) };
}

describe("stakes paid by authorization (docs/protocol.md section 2a)", () => {
  it("reproduces a challenge paid by transfers and authorizations, and judges rejected claims by the token's logs", async () => {
    const { world, relayed, byStranger, batchA, batchB } = await honest();
    const report = await verifyWorld(world);
    expect(everyDifference(report)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.reproduced).toBe(5);
    expect(report.rejected.map((r) => [r.claim.id, r.expected])).toEqual([
      [900, "amount_mismatch"],
      [950, "authorization_expired"],
      [951, "authorization_cancelled"],
    ]);
    // The two relayed straight to the token name the challenge; the batch, through a contract, does not.
    const accounted = new Map(report.payments.map((p) => [p.transactionHash, p.accountedAs]));
    expect(accounted.get(relayed.transactionHash)).toBe("confirmed");
    expect(accounted.get(byStranger.transactionHash)).toBe("confirmed");
    expect(batchA.transactionHash).toBe(batchB.transactionHash);
    expect(accounted.has(batchA.transactionHash)).toBe(false);
    expect(world.txs.get(relayed.transactionHash)?.from).not.toBe(relayed.submitterAddress.toLowerCase());
    // One eth_getLogs per rejected authorization, from block 0 to the head.
    const searches = world.logQueries.filter(
      (q) => q.address === TEST_CONFIG.usdcAddress.toLowerCase() && q.fromBlock === "0x0",
    );
    expect(searches).toEqual([
      { fromBlock: "0x0", toBlock: `0x${world.head.toString(16)}`, address: TEST_CONFIG.usdcAddress.toLowerCase() },
      { fromBlock: "0x0", toBlock: `0x${world.head.toString(16)}`, address: TEST_CONFIG.usdcAddress.toLowerCase() },
    ]);
  });

  it("an authorization valid one second past the head's time is not expired", async () => {
    const { world, expired } = await honest();
    const paidBy = expired as PaidBy;
    paidBy.authorization = { ...paidBy.authorization!, validBefore: blockTime(world.head) + 1 };
    const report = await verifyWorld(world);
    expect(everyDifference(report)).toContain(
      'rejected 950: rejected "authorization_expired", but the first rule its payment fails is "not_found"',
    );
  });

  it("names a response paid by authorization the site shows as a transfer, and the reverse", async () => {
    const { world, relayed } = await honest();
    (relayed as PaidBy).paymentMethod = "transfer";
    (world.responses.find((r) => r.id === 100)! as PaidBy).paymentMethod = "authorization";
    const differences = everyDifference(await verifyWorld(world));
    expect(differences).toContain(
      `response ${relayed.id}: the site shows it paid by transfer, but its transaction uses this guess's ` +
        "authorization: it was paid by authorization",
    );
    expect(differences).toContain(
      `response 100: its transaction holds no AuthorizationUsed of ${PLAYER.toLowerCase()} for the commitment of ` +
        "this guess, address and salt; the site shows it paid by authorization, but it was paid by a direct transfer",
    );
  });

  it("names a response whose address, stake, text or salt the operator changed", async () => {
    const { world, relayed, byStranger } = await honest();
    relayed.submitterAddress = FOURTH;
    byStranger.submissionStake = "3.000001";
    const differences = everyDifference(await verifyWorld(world));
    expect(differences).toContain(
      `response ${relayed.id}: its transaction holds no AuthorizationUsed of ${FOURTH.toLowerCase()} for the ` +
        `commitment of this guess, address and salt (it uses the authorization of ${OTHER.toLowerCase()})`,
    );
    expect(differences).toContain(
      `response ${byStranger.id}: its Transfer moves 3 USDC, the site shows a stake of 3.000001`,
    );
  });

  it("names a response given the other authorization's Transfer of the same transaction", async () => {
    const { world, batchA, batchB } = await honest();
    expect(batchB.logIndex).toBe(batchA.logIndex! + 2);
    batchA.logIndex = batchB.logIndex;
    expect(everyDifference(await verifyWorld(world))).toContain(
      `response ${batchA.id}: the Transfer is log ${batchB.logIndex! - 2}, the site shows log ${batchB.logIndex}`,
    );
  });

  it("names two responses on one authorization's Transfer", async () => {
    const { world, batchA } = await honest();
    world.responses.push({ ...batchA, id: 199 });
    world.challenge.responseCount += 1;
    expect(everyDifference(await verifyWorld(world))).toContain(
      `response 199: its Transfer also backs response ${batchA.id}`,
    );
  });

  it("names a relayed payment naming the challenge that nothing accounts for", async () => {
    const { world, byStranger } = await honest();
    world.responses = world.responses.filter((r) => r.id !== byStranger.id);
    const report = await verifyWorld(world);
    expect(report.payments.find((p) => p.transactionHash === byStranger.transactionHash)?.accountedAs).toBeNull();
    expect(report.differences).toContain(
      `payment ${byStranger.transactionHash} (3 USDC from ${THIRD.toLowerCase()}, block 21) names this challenge ` +
        "and was made while it was open, but it is not counted, not rejected and not listed unclaimed",
    );
  });

  it("names a used authorization rejected as expired, and counts its payment as the payer's rejected claim", async () => {
    const { world, byStranger } = await honest();
    world.responses = world.responses.filter((r) => r.id !== byStranger.id);
    world.rejected.push({
      ...byStranger,
      submissionSalt: byStranger.submissionSalt ?? null,
      transactionHash: null as unknown as string,
      status: "rejected",
      rejectionCode: "authorization_expired",
    });
    const report = await verifyWorld(world);
    expect(everyDifference(report)).toContain(
      `rejected ${byStranger.id}: rejected "authorization_expired", but its payment passes every rule`,
    );
    expect(report.payments.find((p) => p.transactionHash === byStranger.transactionHash)?.accountedAs).toBe("rejected");
  });

  it("names a cancelled authorization counted on the transaction that cancelled it", async () => {
    const { world, cancelled } = await honest();
    const hash = [...world.receipts.entries()].find(([, r]) => r.blockNumber === "0x17")![0];
    world.rejected = world.rejected.filter((r) => r.id !== cancelled.id);
    world.responses.push({
      ...cancelled,
      transactionHash: hash,
      status: "confirmed",
      rejectionCode: "",
      distanceMeters: 0,
      isCorrect: false,
      blockNumber: 23,
      transactionIndex: 0,
      logIndex: 1001,
      submissionTimestamp: blockTime(23),
    });
    expect(everyDifference(await verifyWorld(world))).toEqual(
      expect.arrayContaining([
        `response ${cancelled.id}: its transaction holds no AuthorizationUsed of ${FOURTH.toLowerCase()} for the ` +
          "commitment of this guess, address and salt",
      ]),
    );
  });

  it("leaves out the bare call and a relayed call through another contract: they name no challenge", async () => {
    const { world } = await honest();
    const bare = await world.pay({ from: FOURTH, stake: "1", block: 23, txIndex: 4, authorization: { bare: true } });
    const forwarded = await world.pay({
      from: FOURTH,
      stake: "1",
      block: 23,
      txIndex: 5,
      text: "5, 5",
      authorization: { via: "0x5fc8d32690cc91d4c39d9d3abcbd16989f875707" },
    });
    const named = await world.pay({ from: FOURTH, stake: "1", block: 23, txIndex: 6, text: "6, 6", authorization: {} });
    const report = await verifyWorld(world);
    const hashes = report.payments.map((p) => p.transactionHash);
    expect(hashes).not.toContain(bare.hash);
    expect(hashes).not.toContain(forwarded.hash);
    // The same call straight to the token names it: nothing accounts for it, a difference.
    expect(hashes).toContain(named.hash);
    expect(report.payments.find((p) => p.transactionHash === named.hash)?.accountedAs).toBeNull();
  });
});

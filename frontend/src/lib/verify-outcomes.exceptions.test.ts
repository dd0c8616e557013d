import { describe, expect, it } from "vitest";
import vectors from "../../../tests/vectors.json";
import { buildChainWorld, type ChainWorld, type Guess, type Payment } from "../../test/chainWorld";
import { everyDifference, verifyWorld } from "../../test/verifyWorld";
import { AFTER_RESOLUTION, EXCEPTION_KINDS, recordedAtSeconds, wouldWin } from "./verify-outcomes";
import { formatDateTime } from "./format";
import { decimalToUnits } from "./stake";
import type { RejectedClaim, ResolutionException } from "@/lib/verify-outcomes-types";

// docs/protocol.md section 5, "Exceptions": a stake paid in time whose claim reached the site after
// resolution (rejected "after_resolution", not counted), and a counted stake whose block left the
// chain after resolution ("reorged"), both published in the winners answer's `exceptions`. The same
// cases as verify_challenge.py's (chain/tests/test_verify_exceptions.py) and the shared vectors.

const PLAYER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const OTHER = "0x90F79bf6EB2c4F870365E785982E1f101E93b906";
const LATE_PAYER = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc";
const GUESSES: Guess[] = [
  { text: "29.979, 31.134", stake: "2.5", address: PLAYER, block: 20, txIndex: 0 }, // correct: the earliest winner
  { text: "29.9795, 31.1343", stake: "7", address: OTHER, block: 21, txIndex: 0 }, // correct: the highest winner
  { text: "30.0444, 31.2357", stake: "3", address: PLAYER, block: 21, txIndex: 1 },
  { text: "29.9792, 31.1342", stake: "7", address: PLAYER, block: 22, txIndex: 0 },
];
/** The site sends Unix seconds; the page shows them as it shows every time (lib/format.ts). */
const RECORDED_AT = 1795000000;
const SHOWN_AT = formatDateTime(RECORDED_AT);

/** A fourth player's payment, mined as `payment` says, whose claim the site stored only after it
 * had resolved the challenge: rejected `code` (after_resolution unless told). */
async function lateClaim(
  world: ChainWorld,
  payment: Omit<Payment, "from">,
  code: string = AFTER_RESOLUTION,
): Promise<RejectedClaim> {
  const paid = await world.pay({ from: LATE_PAYER, ...payment });
  const claim: RejectedClaim = {
    id: 960,
    challengeId: 7,
    submissionText: paid.text,
    submissionSalt: paid.salt,
    commitment: paid.commitment,
    submissionStake: `${payment.stake}.000000`,
    submissionTimestamp: null,
    transactionHash: paid.hash,
    submitterAddress: LATE_PAYER,
    status: "rejected",
    rejectionCode: code,
    rejectionReason: vectors.exceptions.sentence,
  };
  world.rejected.push(claim);
  return claim;
}

function exceptionOf(
  claim: { id: number; transactionHash: string; submitterAddress: string; submissionStake: string },
  kind: string = AFTER_RESOLUTION,
): ResolutionException {
  return {
    responseId: claim.id,
    transactionHash: claim.transactionHash,
    submitterAddress: claim.submitterAddress,
    submissionStake: claim.submissionStake,
    // Any kind the site may send, one outside the protocol's two included.
    kind: kind as ResolutionException["kind"],
    recordedAt: RECORDED_AT,
  };
}

function publish(world: ChainWorld, exceptions: ResolutionException[]) {
  world.winners.exceptions = exceptions;
}

describe("the prizes a late claim would have won (shared vectors)", () => {
  it("knows the code and the kinds", () => {
    expect(AFTER_RESOLUTION).toBe(vectors.exceptions.code);
    expect([...EXCEPTION_KINDS]).toEqual(vectors.exceptions.kinds);
  });

  it.each(vectors.exceptions.recordedAt.cases)("recordedAt $value is a time: $utc", ({ value, utc }) => {
    const seconds = recordedAtSeconds(value);
    expect(seconds === null ? null : new Date(seconds * 1000).toISOString().replace(".000Z", "Z")).toBe(utc);
  });

  it.each(vectors.exceptions.wouldWin)("$about", ({ earliest, highest, claim, wins }) => {
    const at = (p: number[]) => p as [number, number, number];
    expect(
      wouldWin({
        correct: claim.correct,
        stakeUnits: decimalToUnits(claim.stake)!,
        position: at(claim.position),
        earliest: earliest ? at(earliest.position) : null,
        highest: highest ? { stakeUnits: decimalToUnits(highest.stake)!, position: at(highest.position) } : null,
      }),
    ).toEqual(wins);
  });
});

describe("exceptions (docs/protocol.md section 5)", () => {
  it("reports a stake paid in time and claimed after resolution, and does not count it", async () => {
    const world = await buildChainWorld(GUESSES);
    const late = await lateClaim(world, { stake: "5", block: 21, txIndex: 7, text: "30.0444, 31.2357" });
    publish(world, [exceptionOf(late)]);
    const report = await verifyWorld(world);
    expect(everyDifference(report)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.publishedExceptions).toBe(1);
    expect(report.exceptions).toEqual([
      `Rejected claim 960 (${late.transactionHash}): paid in time, but the claim reached this site after the ` +
        `challenge was resolved, so its 5.000000 USDC from ${LATE_PAYER} does not count toward the prizes ` +
        `(recorded ${SHOWN_AT}).`,
    ]);
    expect(report.payments.find((p) => p.transactionHash === late.transactionHash)?.accountedAs).toBe("late");
  });

  it("says a late claim that would have won is a difference the chain cannot settle", async () => {
    const world = await buildChainWorld(GUESSES);
    // Correct, and the largest stake: counted, it would take the highest prize from response 101.
    const late = await lateClaim(world, { stake: "50", block: 21, txIndex: 7, text: "29.9792, 31.1343" });
    publish(world, [exceptionOf(late)]);
    const report = await verifyWorld(world);
    const highestWinner = world.responses.find((r) => r.id === 101)!;
    expect(everyDifference(report)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^rejected claim 960 \\(${late.transactionHash}\\): counted, it would have won the highest prize ` +
            `instead of response 101 \\(${highestWinner.transactionHash}\\): its payment was mined in the open ` +
            "window and its guess is correct \\(\\d+\\.\\d\\d m\\)\\. The site says the claim reached it after " +
            "resolution; the chain cannot tell that from a site holding back a winner$",
        ),
      ),
    ]);
    // Still reported as what the site published; paid after the earliest winner, it takes only one prize.
    expect(report.exceptions).toHaveLength(1);
    expect(report.ok).toBe(false);
  });

  it("names both prizes when the late claim came first", async () => {
    const world = await buildChainWorld(GUESSES);
    const late = await lateClaim(world, { stake: "50", block: 15, txIndex: 0, text: "29.9792, 31.1343" });
    publish(world, [exceptionOf(late)]);
    const report = await verifyWorld(world);
    const hash = (id: number) => world.responses.find((r) => r.id === id)!.transactionHash;
    expect(report.ok).toBe(false);
    expect(report.differences).toHaveLength(1);
    expect(report.differences[0]).toMatch(
      new RegExp(
        `^rejected claim 960 \\(${late.transactionHash}\\): counted, it would have won the earliest prize instead ` +
          `of response 100 \\(${hash(100)}\\) and the highest prize instead of response 101 \\(${hash(101)}\\): ` +
          "its payment was mined in the open window and its guess is correct \\(\\d+\\.\\d\\d m\\)\\. The site says " +
          "the claim reached it after resolution; the chain cannot tell that from a site holding back a winner$",
      ),
    );
    expect(report.exceptions).toHaveLength(1);
  });

  it("names a payment mined after the close that the site calls a claim after resolution", async () => {
    const world = await buildChainWorld(GUESSES);
    const late = await lateClaim(world, { stake: "5", block: world.closeBlock + 1, txIndex: 0 });
    publish(world, [exceptionOf(late)]);
    const report = await verifyWorld(world);
    expect(everyDifference(report)).toEqual([
      'rejected 960: rejected "after_resolution" (paid in time, reached the site after resolution), but the first ' +
        'rule its payment fails is "late": the site mislabelled it',
    ]);
    expect(report.exceptions).toEqual([]);
  });

  it("needs the exception of each claim rejected after resolution, and each exception's claim", async () => {
    const world = await buildChainWorld(GUESSES);
    const late = await lateClaim(world, { stake: "5", block: 21, txIndex: 7, text: "30.0444, 31.2357" });
    const wrong = world.responses.find((r) => r.id === 102)!;
    publish(world, [
      exceptionOf(wrong),
      { ...exceptionOf(wrong, "reorged"), responseId: 999 },
      exceptionOf(wrong, "refunded"),
      { ...exceptionOf(late), submissionStake: "50.000000", kind: "after_resolution", responseId: 960 },
    ]);
    const report = await verifyWorld(world);
    const what = (id: number, hash: string) => `the site's exception for response ${id} (${hash})`;
    expect(everyDifference(report)).toEqual([
      `${what(102, wrong.transactionHash)}: it is of kind after_resolution, but names no claim rejected after_resolution`,
      `${what(999, wrong.transactionHash)}: it is of kind reorged, but names no counted response`,
      `${what(102, wrong.transactionHash)}: "refunded" is no kind of exception`,
      `${what(960, late.transactionHash)}: it shows 50.000000 USDC from ${LATE_PAYER}, the claim 5.000000 from ` +
        `${LATE_PAYER} in ${late.transactionHash}`,
    ]);
    expect(report.publishedExceptions).toBe(4);

    publish(world, []);
    expect(everyDifference(await verifyWorld(world))).toEqual([
      `rejected claim 960 (${late.transactionHash}): rejected after_resolution, but the site's winners answer ` +
        "lists no exception for it",
    ]);
  });

  it("cites the site's reorged exception in the difference of a counted stake the chain lost", async () => {
    const world = await buildChainWorld(GUESSES);
    const dropped = world.responses.find((r) => r.id === 102)!;
    world.txs.delete(dropped.transactionHash);
    world.receipts.delete(dropped.transactionHash);
    publish(world, [exceptionOf(dropped, "reorged")]);
    const report = await verifyWorld(world);
    expect(everyDifference(report)).toEqual([
      "response 102: the transaction is not on this chain (the site published this as an exception: its block " +
        `left the chain after resolution, recorded ${SHOWN_AT})`,
    ]);
    expect(report.exceptions).toEqual([
      `Response 102 (${dropped.transactionHash}): its block left the blockchain after the challenge was resolved ` +
        `(recorded ${SHOWN_AT}); its stake still counts toward the prizes, and its payment is missing (a difference).`,
    ]);
  });

  it("reports a reorged exception whose payment is back on chain, without a difference", async () => {
    const world = await buildChainWorld(GUESSES);
    const back = world.responses.find((r) => r.id === 102)!;
    publish(world, [exceptionOf(back, "reorged")]);
    const report = await verifyWorld(world);
    expect(report.ok).toBe(true);
    expect(report.exceptions).toEqual([
      `Response 102 (${back.transactionHash}): its block left the blockchain after the challenge was resolved ` +
        `(recorded ${SHOWN_AT}); its payment is on the blockchain as counted.`,
    ]);
  });

  it("calls a recordedAt that is not Unix seconds a difference, and never guesses the time", async () => {
    const world = await buildChainWorld(GUESSES);
    const back = world.responses.find((r) => r.id === 102)!;
    // A date string: the protocol fixes Unix seconds, so the page does not guess what the site meant.
    const stamped = { ...exceptionOf(back, "reorged"), recordedAt: "2026-01-02T03:04:05Z" as unknown as number };
    publish(world, [stamped]);
    const report = await verifyWorld(world);
    expect(everyDifference(report)).toEqual([
      `the site's exception for response 102 (${back.transactionHash}): its recordedAt "2026-01-02T03:04:05Z" is ` +
        "not a time in Unix seconds",
    ]);
    expect(report.exceptions).toEqual([
      `Response 102 (${back.transactionHash}): its block left the blockchain after the challenge was resolved ` +
        "(recorded at an unknown time); its payment is on the blockchain as counted.",
    ]);
  });
});

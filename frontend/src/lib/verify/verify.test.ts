import { describe, expect, it } from "vitest";
import vectors from "../../../../tests/vectors.json";
import { microDegrees } from "../protocol/coordinates";
import { isCorrect } from "../protocol/geometry";
import { decodeEvent, EVENT_TOPICS, type PotEvent, SHARE_RECEIVER, STATE_OF, TERMS_OF, uintWord } from "./chain";
import { replayState } from "./pot";
import { nextPath } from "./read";
import { replay } from "./replay";
import { type Context, pyRepr, toUnits, usdc } from "./report";
import { beats, bondShares, keepBest, NO_WINNER, split } from "./rules";

// tests/vectors.json ("verifier"): the rules verify_challenge.py computes too (tests/test_verify_challenge.py
// reads the same cases), each expected value from the rule's definition (tests/verifier_vectors.py).
const section = vectors.verifier;

describe("the winners, replayed as the pot keeps them (shared vectors)", () => {
  it.each(section.winners)("$about", ({ stakes, reveals, earliest, highest }) => {
    const amounts = new Map(stakes.map((s) => [s.seq, BigInt(s.amount)]));
    let best = NO_WINNER;
    for (const reveal of reveals) best = keepBest(best, reveal.seq, amounts.get(reveal.seq)!, reveal.correct);
    expect([best.earliest, best.highest]).toEqual([earliest, highest]);
    expect(best.highestAmount).toBe(highest === null ? 0n : amounts.get(highest));
  });

  it.each(section.beats)("a correct guess of stake $seq takes $won", ({ best, seq, amount, won }) => {
    const before = { earliest: best.earliest, highest: best.highest, highestAmount: BigInt(best.highestAmount) };
    expect(beats(before, seq, BigInt(amount))).toEqual(won);
  });
});

describe("the replay of a challenge's logs (shared vectors)", () => {
  it.each(section.replay)("$about", (c) => {
    const events = c.logs.map((log) => decodeEvent(log));
    expect(events).not.toContain(null);
    const where = { chainId: c.chainId, pot: c.pot, challengeId: c.challengeId };
    const r = replay(events as PotEvent[], where);
    expect(r.problems).toEqual(c.problems);
    expect([r.best.earliest, r.best.highest]).toEqual([c.earliest, c.highest]);
    expect(r.refundOrder).toEqual(c.refundOrder);
    const state = replayState({ replay: r, chain: { headTime: BigInt(c.headTime) } } as unknown as Context);
    expect(Object.fromEntries(Object.entries(state).map(([k, v]) => [k, v.toString()]))).toEqual(c.state);
  });
});

describe("the verdicts (shared vectors)", () => {
  it.each(section.verdicts)("$about", ({ guess, text, solution, thresholdM, correct }) => {
    const point = { latE6: BigInt(guess.latE6), lonE6: BigInt(guess.lonE6) };
    const answer = { latE6: BigInt(solution.latE6), lonE6: BigInt(solution.lonE6) };
    expect(isCorrect(point, answer, BigInt(thresholdM))).toBe(correct);
    if (text !== null) expect(microDegrees(text)).toEqual(point);
  });
});

describe("the split and the bond shares (shared vectors)", () => {
  it.each(section.splits)("a pot of $pot units", ({ pot, prize, share }) => {
    expect(split(BigInt(pot))).toEqual({ prize: BigInt(prize), share: BigInt(share) });
  });

  it.each(section.bondShares)("$about", ({ pot, bond, refunds, shares }) => {
    expect(bondShares(refunds.map(BigInt), BigInt(pot), BigInt(bond))).toEqual(shares.map(BigInt));
  });
});

describe("the pot's interface, written in", () => {
  it("has the keccak of each event's signature and of each view's", async () => {
    const { id } = await import("ethers");
    const terms = "(bytes32,bytes32,uint32,uint32,uint32,uint32,uint32,uint64,uint96)";
    const signatures: Record<string, string> = {
      Opened: `Opened(uint256,${terms},bytes32)`,
      Staked: "Staked(uint256,address,uint256,uint256,bytes32)",
      SolutionRevealed: "SolutionRevealed(uint256,int256,int256,bytes32,uint256)",
      GuessRevealed: "GuessRevealed(uint256,address,uint256,int256,int256,bool)",
      Finalized: "Finalized(uint256,uint256,uint256,uint256,uint256,uint256)",
      Paid: "Paid(uint256,uint8,address,uint256)",
      Refunded: "Refunded(uint256,address,uint256,uint256,uint256)",
    };
    expect(Object.fromEntries(Object.entries(EVENT_TOPICS).map(([topic, name]) => [name, topic]))).toEqual(
      Object.fromEntries(Object.entries(signatures).map(([name, signature]) => [name, id(signature)])),
    );
    expect(STATE_OF).toBe(id("stateOf(uint256)").slice(0, 10));
    expect(TERMS_OF).toBe(id("termsOf(uint256)").slice(0, 10));
    expect(SHARE_RECEIVER).toBe(id("shareReceiver()").slice(0, 10));
  });

  it("decodes a GuessRevealed log: negative micro-degrees in two's complement, the payer from its topic", () => {
    const payer = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
    const topic = Object.keys(EVENT_TOPICS).find((t) => EVENT_TOPICS[t] === "GuessRevealed")!;
    const minus = (n: bigint) => ((1n << 256n) - n).toString(16);
    const event = decodeEvent({
      topics: [topic, `0x${uintWord(7)}`, `0x${payer.slice(2).padStart(64, "0")}`],
      data: `0x${uintWord(3)}${minus(33_856_784n)}${minus(151_215_297n)}${uintWord(1)}`,
      blockNumber: "0x10",
      logIndex: "0x2",
      transactionHash: "0xAB",
      blockTimestamp: "0x65",
    });
    expect(event).toEqual({
      name: "GuessRevealed",
      block: 16,
      logIndex: 2,
      tx: "0xab",
      time: 101n,
      args: { payer, seq: 3, lat: -33_856_784n, lon: -151_215_297n, correct: true },
    });
    expect(decodeEvent({ topics: ["0x01"], blockNumber: "0x1", logIndex: "0x0" })).toBeNull();
  });

  it("decodes a Paid log: the kind and the recipient from its topics", () => {
    const to = "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc";
    const topic = Object.keys(EVENT_TOPICS).find((t) => EVENT_TOPICS[t] === "Paid")!;
    const event = decodeEvent({
      topics: [topic, `0x${uintWord(7)}`, `0x${uintWord(2)}`, `0x${to.slice(2).padStart(64, "0")}`],
      data: `0x${uintWord(6_000_000)}`,
      blockNumber: "0x10",
      logIndex: "0x0",
    });
    expect(event?.args).toEqual({ kind: 2, to, amount: 6_000_000n });
    expect(event?.time).toBeNull();
  });
});

describe("amounts and links", () => {
  it.each(section.amounts.read)("reads $text as exact units (shared vectors)", ({ text, units }) => {
    expect(toUnits(text)).toBe(units === null ? null : BigInt(units));
  });

  it.each(section.amounts.written)("writes $units units back (shared vectors)", ({ units, text }) => {
    expect(usdc(BigInt(units))).toBe(text);
  });

  it.each(section.quoted)("quotes the site's $value as the script does (shared vectors)", ({ value, text }) => {
    expect(pyRepr(value)).toBe(text);
  });

  it("follows the site's next link on the site's own address", () => {
    expect(nextPath('<http://internal:8000/api/responses?cursor=abc&limit=1000>; rel="next"')).toBe(
      "/api/responses?cursor=abc&limit=1000",
    );
    expect(nextPath("")).toBeNull();
  });
});

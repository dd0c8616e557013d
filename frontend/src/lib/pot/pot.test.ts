import { beforeAll, describe, expect, it } from "vitest";
import { guessCommitment } from "@/lib/protocol/commitment";
import { POT_ERRORS, refusalOf } from "@/lib/protocol/errors";
import { microDegrees } from "@/lib/protocol/coordinates";
import { POT, revealSolution, USDC, USDC_UNIT, withPotChain } from "../../../test/pot";
import {
  readAllowance,
  readEthBalance,
  readState,
  readTerms,
  readTokenBalance,
  SELECTORS,
  simulate,
  stakeData,
} from "./calls";
import { payerFilters, readPotEvents, settlementFilters, TOPICS } from "./events";
import { httpChain, type Chain } from "./rpc";

/** What the page reads from the pot and the token, and how it words their refusals, against the
 * contract itself on a real anvil, through the same JSON-RPC over fetch the page uses. */

const world = withPotChain({ open: { closesIn: 600, minStake: 2n * USDC_UNIT } });
let node: Chain;

beforeAll(() => {
  node = httpChain(world.chain.anvil.url);
});

describe("selectors and topics", () => {
  it("are the compiled contract's", () => {
    for (const [name, selector] of Object.entries(SELECTORS)) {
      const fragment = POT.getFunction(name) ?? USDC.getFunction(name);
      expect(fragment?.selector, name).toBe(selector);
    }
    for (const [name, topic] of Object.entries(TOPICS)) expect(POT.getEvent(name)?.topicHash, name).toBe(topic);
    for (const [selector, { name }] of Object.entries(POT_ERRORS))
      expect(POT.getError(name)?.selector, name).toBe(selector);
  });
});

describe("reading the pot", () => {
  it("reads the terms as opened, and an id never opened as such", async () => {
    const opened = await readTerms(node.rpc, world.chain.pot, world.opened.id);
    expect(opened.opened).toBe(true);
    expect(opened.terms).toEqual(world.opened.terms);
    expect(opened.termsDigest).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await readTerms(node.rpc, world.chain.pot, 999)).opened).toBe(false);
  });

  it("reads balances and the allowance", async () => {
    expect(await readTokenBalance(node.rpc, world.chain.usdc, world.chain.player)).toBe(100n * USDC_UNIT);
    expect(await readAllowance(node.rpc, world.chain.usdc, world.chain.player, world.chain.pot)).toBe(0n);
    expect(await readEthBalance(node.rpc, world.chain.player)).toBeGreaterThan(0n);
  });
});

describe("the pot's and the token's refusals, in words", () => {
  const commitment = "e1".repeat(32);
  const refusal = async (tx: { from: string; to: string; data: string }) =>
    refusalOf(
      await simulate(node.rpc, tx).then(
        () => null,
        (error: unknown) => error,
      ),
    );

  it("below the minimum, without an allowance, and for a challenge never opened", async () => {
    expect(
      await refusal({
        from: world.chain.player,
        to: world.chain.pot,
        data: stakeData(world.opened.id, commitment, USDC_UNIT),
      }),
    ).toEqual({
      name: "StakeBelowMinimum",
      sentence: "The stake is below this challenge's minimum.",
    });
    expect(
      await refusal({
        from: world.chain.player,
        to: world.chain.pot,
        data: stakeData(world.opened.id, commitment, 2n * USDC_UNIT),
      }),
    ).toEqual({
      name: "insufficient allowance",
      sentence: "The pot is not allowed to take this much USDC from this wallet yet (approve it first).",
    });
    expect(
      (
        await refusal({
          from: world.chain.player,
          to: world.chain.pot,
          data: stakeData(999, commitment, 2n * USDC_UNIT),
        })
      )?.name,
    ).toBe("NotOpened");
  });

  it("more than the wallet holds", async () => {
    await world.chain.send(
      world.chain.player,
      world.chain.usdc,
      USDC.encodeFunctionData("approve", [world.chain.pot, 1000n * USDC_UNIT]),
    );
    expect(
      await refusal({
        from: world.chain.player,
        to: world.chain.pot,
        data: stakeData(world.opened.id, commitment, 500n * USDC_UNIT),
      }),
    ).toEqual({
      name: "transfer amount exceeds balance",
      sentence: "This wallet does not hold enough USDC for the stake.",
    });
  });

  it("reads a wallet's nesting of the revert data, and nothing from an error that carries none", () => {
    const data = `${"0xff294b12"}${"0".repeat(64)}`;
    expect(
      refusalOf({ code: -32603, message: "Internal JSON-RPC error.", data: { originalError: { data } } })?.name,
    ).toBe("StakingClosed");
    expect(refusalOf({ code: 4001, message: "User rejected the request." })).toBeNull();
  });
});

describe("the events of a challenge played to the end", () => {
  it("gives a payer's stakes, reveals, winners and payments, and no one else's", async () => {
    const id = world.opened.id;
    const stakes: { text: string; salt: string; from: string; amount: bigint }[] = [
      { text: "29.9753, 31.1378", salt: "11".repeat(32), from: world.chain.player, amount: 2n * USDC_UNIT },
      { text: "29.9753, 31.1378", salt: "22".repeat(32), from: world.chain.other, amount: 5n * USDC_UNIT },
      { text: "0, 0", salt: "33".repeat(32), from: world.chain.player, amount: 3n * USDC_UNIT },
    ];
    await world.chain.send(
      world.chain.other,
      world.chain.usdc,
      USDC.encodeFunctionData("approve", [world.chain.pot, 1000n * USDC_UNIT]),
    );
    const commitments: string[] = [];
    for (const s of stakes) {
      const c = await guessCommitment({
        chainId: BigInt(world.chain.chainId),
        pot: world.chain.pot,
        challengeId: BigInt(id),
        payer: s.from,
        ...microDegrees(s.text)!,
        salt: s.salt,
      });
      commitments.push(c);
      await world.chain.send(s.from, world.chain.pot, stakeData(id, c, s.amount));
    }
    const solution = microDegrees(world.opened.solution)!;
    await revealSolution(world.chain, world.opened, world.chain.other);
    for (const [i, s] of stakes.entries()) {
      const p = microDegrees(s.text)!;
      await world.chain.send(
        world.chain.operator,
        world.chain.pot,
        POT.encodeFunctionData("revealGuess", [id, i + 1, s.from, s.amount, p.latE6, p.lonE6, `0x${s.salt}`]),
      );
    }
    const state = await readState(node.rpc, world.chain.pot, id);
    expect(state).toMatchObject({
      stakeCount: 3,
      pot: 10n * USDC_UNIT,
      earliestSeq: 1,
      highestSeq: 2,
      finalized: false,
    });
    await world.chain.mineAt(state.guessDeadline);
    await world.chain.send(world.chain.operator, world.chain.pot, POT.encodeFunctionData("finalize", [id]));
    await world.chain.send(
      world.chain.operator,
      world.chain.pot,
      POT.encodeFunctionData("payPrize", [id, 0, world.chain.player, 2n * USDC_UNIT, `0x${commitments[0]}`]),
    );
    await world.chain.send(
      world.chain.operator,
      world.chain.pot,
      POT.encodeFunctionData("payPrize", [id, 1, world.chain.other, 5n * USDC_UNIT, `0x${commitments[1]}`]),
    );

    // A range of 3 blocks: the reads are split and put back in chain order.
    const events = await readPotEvents(node, {
      pot: world.chain.pot,
      fromBlock: world.chain.deployBlock,
      filters: payerFilters(id, world.chain.player),
      range: 3,
    });
    expect(events.map((e) => e.kind)).toEqual([
      "Staked",
      "Staked",
      "SolutionRevealed",
      "GuessRevealed",
      "GuessRevealed",
      "Finalized",
      "Paid",
    ]);
    expect(events[0]).toMatchObject({
      kind: "Staked",
      payer: world.chain.player.toLowerCase(),
      seq: 1,
      amount: 2n * USDC_UNIT,
      commitment: commitments[0],
    });
    expect(events[1]).toMatchObject({ seq: 3, commitment: commitments[2] });
    expect(events[2]).toMatchObject({
      kind: "SolutionRevealed",
      latE6: solution.latE6,
      lonE6: solution.lonE6,
      guessDeadline: state.guessDeadline,
    });
    expect(events[3]).toMatchObject({ kind: "GuessRevealed", seq: 1, correct: true });
    expect(events[4]).toMatchObject({ kind: "GuessRevealed", seq: 3, latE6: 0n, correct: false });
    expect(events[5]).toMatchObject({
      kind: "Finalized",
      earliestSeq: 1,
      highestSeq: 2,
      earliestPrize: 4n * USDC_UNIT,
      share: 2n * USDC_UNIT,
    });
    expect(events[6]).toMatchObject({
      kind: "Paid",
      prize: 0,
      to: world.chain.player.toLowerCase(),
      amount: 4n * USDC_UNIT,
    });

    const settlement = await readPotEvents(node, {
      pot: world.chain.pot,
      fromBlock: 0,
      filters: settlementFilters(id),
    });
    expect(settlement.filter((e) => e.kind === "Paid").map((e) => e.kind === "Paid" && e.prize)).toEqual([0, 1]);
  });
});

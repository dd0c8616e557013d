import { describe, expect, it } from "vitest";
import { POT, USDC, USDC_UNIT, withPotChain } from "../../../test/pot";
import { guessCommitment, solutionCommitment } from "./commitment";
import { toTerms } from "@/lib/pot/calls";
import { haversineMeters } from "@/lib/distance";
import { microDegrees } from "./coordinates";
import { stakeHash, stakeNonce, termsDigest } from "./encoding";
import { isCorrect, sinRad, ONE } from "./geometry";

/** The shared encodings and scoring rule (this folder, pinned to the shared vectors by its other
 * tests) against the contract itself (contracts/GeopoemPot.sol on a real anvil): the contract's own
 * views and verdicts are the expected values. */

const world = withPotChain({ open: { closesIn: 600 } });

const SALT = "ab".repeat(32);
const view = async (name: string, args: unknown[]) =>
  POT.decodeFunctionResult(name, await world.chain.call(world.chain.pot, POT.encodeFunctionData(name, args)));

describe("the encodings agree with the pot", () => {
  it("guess commitment v2, the payer bound in", async () => {
    const point = microDegrees("-33.856784, 151.215297")!;
    const mine = await guessCommitment({
      chainId: BigInt(world.chain.chainId),
      pot: world.chain.pot,
      challengeId: 7n,
      payer: world.chain.player,
      ...point,
      salt: SALT,
    });
    const [theirs] = await view("guessCommitment", [7, world.chain.player, point.latE6, point.lonE6, `0x${SALT}`]);
    expect(`0x${mine}`).toBe(theirs);
    const other = await guessCommitment({
      chainId: BigInt(world.chain.chainId),
      pot: world.chain.pot,
      challengeId: 7n,
      payer: world.chain.other,
      ...point,
      salt: SALT,
    });
    expect(other).not.toBe(mine);
  });

  it("solution commitment v2", async () => {
    const point = microDegrees("-0.000001, 180")!;
    expect(point).toEqual({ latE6: -1n, lonE6: 180_000_000n });
    const mine = await solutionCommitment({
      chainId: BigInt(world.chain.chainId),
      pot: world.chain.pot,
      challengeId: 3n,
      ...point,
      salt: SALT,
    });
    const [theirs] = await view("solutionCommitment", [3, point.latE6, point.lonE6, `0x${SALT}`]);
    expect(`0x${mine}`).toBe(theirs);
  });

  it("terms digest and stake nonce", async () => {
    const digest = await termsDigest(BigInt(world.opened.id), toTerms(world.opened.terms));
    const [, onChain] = await view("termsOf", [world.opened.id]);
    expect(`0x${digest}`).toBe(onChain);
    const commitment = "c0".repeat(32);
    const nonce = await stakeNonce({
      chainId: BigInt(world.chain.chainId),
      pot: world.chain.pot,
      challengeId: BigInt(world.opened.id),
      termsDigest: digest,
      commitment,
      amount: 2_500_000n,
    });
    const [theirs] = await view("stakeNonce", [world.opened.id, `0x${commitment}`, 2_500_000n]);
    expect(`0x${nonce}`).toBe(theirs);
  });

  it("stake hash of a stake by approval", async () => {
    const commitment = "d1".repeat(32);
    await world.chain.send(
      world.chain.player,
      world.chain.usdc,
      USDC.encodeFunctionData("approve", [world.chain.pot, 3n * USDC_UNIT]),
    );
    await world.chain.send(
      world.chain.player,
      world.chain.pot,
      POT.encodeFunctionData("stake", [world.opened.id, `0x${commitment}`, 3n * USDC_UNIT]),
    );
    const [slot] = await view("stakeHash", [world.opened.id, 1]);
    expect(`0x${await stakeHash({ payer: world.chain.player, amount: 3n * USDC_UNIT, commitment })}`).toBe(slot);
  });
});

describe("the integer rule", () => {
  it("sinRad is the sine to within a few units of 10^-18", () => {
    expect(sinRad(0n)).toBe(0n);
    const halfPi = 1_570_796_326_794_896_619n;
    expect(Number(ONE - sinRad(halfPi))).toBeLessThan(10);
    const x = 523_598_775_598_298_873n; // π/6
    expect(Number(sinRad(x) - ONE / 2n)).toBeLessThan(10);
  });

  it("agrees with the haversine away from the threshold", () => {
    const solution = microDegrees("48.8584, 2.2945")!;
    for (const [guess, threshold] of [
      ["48.8584, 2.2945", 0],
      ["48.8594, 2.2945", 120],
      ["48.8594, 2.2945", 100],
      ["-48.8584, -177.7055", 20_015_085],
      ["91, 0", 20_015_085],
    ] as const) {
      const point = microDegrees(guess) ?? { latE6: 91_000_000n, lonE6: 0n };
      const expected = guess.startsWith("91") ? false : haversineMeters(point, solution) <= threshold;
      expect(isCorrect(point, solution, BigInt(threshold)), guess).toBe(expected);
    }
  });

  it("gives the pot's verdict for guesses around the threshold", async () => {
    // The payer's stakes 2.. (stake 1 was made above), each revealed after the solution.
    const solution = microDegrees(world.opened.solution)!;
    // 249.97 m and 250.08 m north of it: one micro-degree either side of the 250 m threshold.
    const guesses = [
      "29.975278, 31.137778",
      "29.977526, 31.137778",
      "29.977527, 31.137778",
      "29.9753, 31.14",
      "-29.975278, 31.137778",
    ];
    const verdicts: boolean[] = [];
    await world.chain.send(
      world.chain.player,
      world.chain.usdc,
      USDC.encodeFunctionData("approve", [world.chain.pot, 100n * USDC_UNIT]),
    );
    const salts = guesses.map((_, i) => String(i + 1).repeat(64));
    for (const [i, text] of guesses.entries()) {
      const point = microDegrees(text)!;
      const commitment = await guessCommitment({
        chainId: BigInt(world.chain.chainId),
        pot: world.chain.pot,
        challengeId: BigInt(world.opened.id),
        payer: world.chain.player,
        ...point,
        salt: salts[i]!,
      });
      await world.chain.send(
        world.chain.player,
        world.chain.pot,
        POT.encodeFunctionData("stake", [world.opened.id, `0x${commitment}`, USDC_UNIT]),
      );
    }
    await world.chain.mineAt(world.opened.terms.closesAt + 1);
    await world.chain.send(
      world.chain.other,
      world.chain.pot,
      POT.encodeFunctionData("revealSolution", [
        world.opened.id,
        solution.latE6,
        solution.lonE6,
        `0x${world.opened.solutionSalt}`,
      ]),
    );
    for (const [i, text] of guesses.entries()) {
      const point = microDegrees(text)!;
      const { logs } = await world.chain.send(
        world.chain.other,
        world.chain.pot,
        POT.encodeFunctionData("revealGuess", [
          world.opened.id,
          i + 2,
          world.chain.player,
          USDC_UNIT,
          point.latE6,
          point.lonE6,
          `0x${salts[i]}`,
        ]),
      );
      const event = POT.parseLog(logs[0]!)!;
      expect(event.name).toBe("GuessRevealed");
      expect(isCorrect(point, solution, BigInt(world.opened.terms.thresholdM)), text).toBe(event.args.correct);
      verdicts.push(event.args.correct as boolean);
    }
    expect(verdicts).toEqual([true, true, false, true, false]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  openChallenge,
  POT,
  startPotChain,
  USDC,
  USDC_UNIT,
  type OpenedChallenge,
  type PotChain,
} from "../../../test/pot";
import { guessCommitment, solutionCommitment } from "./commitment";
import { toTerms } from "@/lib/pot/calls";
import { haversineMeters } from "@/lib/distance";
import { microDegrees } from "./coordinates";
import { stakeHash, stakeNonce, termsDigest } from "./encoding";
import { isCorrect, sinRad, ONE } from "./geometry";

/** The shared encodings and scoring rule (this folder, pinned to the shared vectors by its other
 * tests) against the contract itself (contracts/GeopoemPot.sol on a real anvil): the contract's own
 * views and verdicts are the expected values. */

let chain: PotChain;
let challenge: OpenedChallenge;

beforeAll(async () => {
  chain = await startPotChain();
  challenge = await openChallenge(chain, { closesIn: 600 });
}, 60_000);

afterAll(async () => {
  await chain?.stop();
});

const SALT = "ab".repeat(32);
const view = async (name: string, args: unknown[]) =>
  POT.decodeFunctionResult(name, await chain.call(chain.pot, POT.encodeFunctionData(name, args)));

describe("the encodings agree with the pot", () => {
  it("guess commitment v2, the payer bound in", async () => {
    const point = microDegrees("-33.856784, 151.215297")!;
    const mine = await guessCommitment({
      chainId: BigInt(chain.chainId),
      pot: chain.pot,
      challengeId: 7n,
      payer: chain.player,
      ...point,
      salt: SALT,
    });
    const [theirs] = await view("guessCommitment", [7, chain.player, point.latE6, point.lonE6, `0x${SALT}`]);
    expect(`0x${mine}`).toBe(theirs);
    const other = await guessCommitment({
      chainId: BigInt(chain.chainId),
      pot: chain.pot,
      challengeId: 7n,
      payer: chain.other,
      ...point,
      salt: SALT,
    });
    expect(other).not.toBe(mine);
  });

  it("solution commitment v2", async () => {
    const point = microDegrees("-0.000001, 180")!;
    expect(point).toEqual({ latE6: -1n, lonE6: 180_000_000n });
    const mine = await solutionCommitment({
      chainId: BigInt(chain.chainId),
      pot: chain.pot,
      challengeId: 3n,
      ...point,
      salt: SALT,
    });
    const [theirs] = await view("solutionCommitment", [3, point.latE6, point.lonE6, `0x${SALT}`]);
    expect(`0x${mine}`).toBe(theirs);
  });

  it("terms digest and stake nonce", async () => {
    const digest = await termsDigest(BigInt(challenge.id), toTerms(challenge.terms));
    const [, onChain] = await view("termsOf", [challenge.id]);
    expect(`0x${digest}`).toBe(onChain);
    const commitment = "c0".repeat(32);
    const nonce = await stakeNonce({
      chainId: BigInt(chain.chainId),
      pot: chain.pot,
      challengeId: BigInt(challenge.id),
      termsDigest: digest,
      commitment,
      amount: 2_500_000n,
    });
    const [theirs] = await view("stakeNonce", [challenge.id, `0x${commitment}`, 2_500_000n]);
    expect(`0x${nonce}`).toBe(theirs);
  });

  it("stake hash of a stake by approval", async () => {
    const commitment = "d1".repeat(32);
    await chain.send(chain.player, chain.usdc, USDC.encodeFunctionData("approve", [chain.pot, 3n * USDC_UNIT]));
    await chain.send(
      chain.player,
      chain.pot,
      POT.encodeFunctionData("stake", [challenge.id, `0x${commitment}`, 3n * USDC_UNIT]),
    );
    const [slot] = await view("stakeHash", [challenge.id, 1]);
    expect(`0x${await stakeHash({ payer: chain.player, amount: 3n * USDC_UNIT, commitment })}`).toBe(slot);
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
    const solution = microDegrees(challenge.solution)!;
    // 249.97 m and 250.08 m north of it: one micro-degree either side of the 250 m threshold.
    const guesses = [
      "29.975278, 31.137778",
      "29.977526, 31.137778",
      "29.977527, 31.137778",
      "29.9753, 31.14",
      "-29.975278, 31.137778",
    ];
    const verdicts: boolean[] = [];
    await chain.send(chain.player, chain.usdc, USDC.encodeFunctionData("approve", [chain.pot, 100n * USDC_UNIT]));
    const salts = guesses.map((_, i) => String(i + 1).repeat(64));
    for (const [i, text] of guesses.entries()) {
      const point = microDegrees(text)!;
      const commitment = await guessCommitment({
        chainId: BigInt(chain.chainId),
        pot: chain.pot,
        challengeId: BigInt(challenge.id),
        payer: chain.player,
        ...point,
        salt: salts[i]!,
      });
      await chain.send(
        chain.player,
        chain.pot,
        POT.encodeFunctionData("stake", [challenge.id, `0x${commitment}`, USDC_UNIT]),
      );
    }
    await chain.mineAt(challenge.terms.closesAt + 1);
    await chain.send(
      chain.other,
      chain.pot,
      POT.encodeFunctionData("revealSolution", [
        challenge.id,
        solution.latE6,
        solution.lonE6,
        `0x${challenge.solutionSalt}`,
      ]),
    );
    for (const [i, text] of guesses.entries()) {
      const point = microDegrees(text)!;
      const { logs } = await chain.send(
        chain.other,
        chain.pot,
        POT.encodeFunctionData("revealGuess", [
          challenge.id,
          i + 2,
          chain.player,
          USDC_UNIT,
          point.latE6,
          point.lonE6,
          `0x${salts[i]}`,
        ]),
      );
      const event = POT.parseLog(logs[0]!)!;
      expect(event.name).toBe("GuessRevealed");
      expect(isCorrect(point, solution, BigInt(challenge.terms.thresholdM)), text).toBe(event.args.correct);
      verdicts.push(event.args.correct as boolean);
    }
    expect(verdicts).toEqual([true, true, false, true, false]);
  });
});

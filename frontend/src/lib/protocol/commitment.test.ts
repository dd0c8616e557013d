import { describe, expect, it } from "vitest";
import vectors from "../../../../tests/vectors.json";
import { guessCommitment, solutionCommitment } from "./commitment";

// tests/vectors.json ("potEncodings"): what GeopoemPot.guessCommitment and solutionCommitment return
// (tests/test_pot_vectors_on_chain.py) and challenges/commitments.py computes.
const section = vectors.potEncodings;

function guessInput(v: (typeof section.guessCommitments)[number]) {
  return {
    chainId: BigInt(v.chainId),
    pot: v.pot,
    challengeId: BigInt(v.challengeId),
    payer: v.payer,
    latE6: BigInt(v.latE6),
    lonE6: BigInt(v.lonE6),
    salt: v.salt,
  };
}

describe("v2 commitments (shared vectors)", () => {
  it.each(section.guessCommitments)("guess commitment of ($latE6, $lonE6) on chain $chainId", (v) => {
    expect(guessCommitment(guessInput(v))).toBe(v.commitment);
  });

  it.each(section.solutionCommitments)("solution commitment of ($latE6, $lonE6) on chain $chainId", (v) => {
    const { chainId, pot, challengeId, latE6, lonE6, salt } = v;
    const input = { chainId: BigInt(chainId), pot, challengeId: BigInt(challengeId), salt };
    expect(solutionCommitment({ ...input, latE6: BigInt(latE6), lonE6: BigInt(lonE6) })).toBe(v.commitment);
  });
});

describe("v2 commitments", () => {
  it("refuse what the contract could not take", () => {
    const first = guessInput(section.guessCommitments[0]!);
    for (const bad of [
      { salt: "AB".repeat(32) },
      { salt: "ab".repeat(31) },
      { payer: `0x${"11".repeat(19)}` },
      { latE6: 2n ** 255n },
      { chainId: -1n },
    ]) {
      expect(() => guessCommitment({ ...first, ...bad })).toThrow(RangeError);
    }
    expect(guessCommitment({ ...first, latE6: -(2n ** 255n) })).toMatch(/^[0-9a-f]{64}$/);
  });
});

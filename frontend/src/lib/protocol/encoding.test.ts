import { describe, expect, it } from "vitest";
import vectors from "../../../../tests/vectors.json";
import { stakeHash, stakeNonce, termsDigest, type Terms } from "./encoding";

// tests/vectors.json ("potEncodings"): what GeopoemPot computes (tests/test_pot_vectors_on_chain.py)
// and chain/pot/encoding.py does.
const section = vectors.potEncodings;

function termsOf(t: (typeof section.termsDigests)[number]["terms"]): Terms {
  return {
    solutionCommitment: t.solutionCommitment,
    termsHash: t.termsHash,
    thresholdM: BigInt(t.thresholdM),
    opensAt: BigInt(t.opensAt),
    closesAt: BigInt(t.closesAt),
    solutionDeadline: BigInt(t.solutionDeadline),
    guessWindow: BigInt(t.guessWindow),
    minStake: BigInt(t.minStake),
    bond: BigInt(t.bond),
  };
}

describe("the pot's encodings (shared vectors)", () => {
  it.each(section.termsDigests)("terms digest of challenge $challengeId", async (v) => {
    expect(await termsDigest(BigInt(v.challengeId), termsOf(v.terms))).toBe(v.digest);
  });

  it.each(section.stakeNonces)("stake nonce of $amount on chain $chainId", async (v) => {
    const input = { ...v, chainId: BigInt(v.chainId), challengeId: BigInt(v.challengeId), amount: BigInt(v.amount) };
    expect(await stakeNonce(input)).toBe(v.nonce);
  });

  it.each(section.stakeHashes)("stake hash of $amount by $payer", async (v) => {
    expect(await stakeHash({ ...v, amount: BigInt(v.amount) })).toBe(v.hash);
  });
});

describe("the pot's encodings", () => {
  it("refuse terms no struct holds", async () => {
    const terms = termsOf(section.termsDigests[0]!.terms);
    await expect(termsDigest(1n, { ...terms, bond: 2n ** 96n })).rejects.toThrow(RangeError);
    await expect(termsDigest(1n, { ...terms, thresholdM: 2n ** 32n })).rejects.toThrow(RangeError);
  });
});

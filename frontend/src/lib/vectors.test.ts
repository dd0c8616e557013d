import { describe, expect, it } from "vitest";
import vectors from "../../../tests/vectors.json";
import { newSalt, SALT_PATTERN, sha256Bytes, termsSha256 } from "./commitment";
import { canonicalCoordinates, COORDINATES_MESSAGE } from "./coordinates";
import { MIN_STAKE_MESSAGE, parseStake } from "./stake";

// The same file the Python tests read (tests/test_vectors.py): the two implementations agree.

describe("coordinates (shared vectors)", () => {
  it.each(vectors.coordinates.valid)("canonicalises $input", ({ input, canonical }) => {
    expect(canonicalCoordinates(input)).toBe(canonical);
  });

  it.each(vectors.coordinates.invalid.map((input) => ({ input })))("refuses $input", ({ input }) => {
    expect(canonicalCoordinates(input)).toBeNull();
  });

  it("refuses over-long input and keeps the spec's sentence", () => {
    expect(canonicalCoordinates(`1${"0".repeat(120)}, 2`)).toBeNull();
    expect(COORDINATES_MESSAGE).toBe("Please enter valid coordinates in the format: latitude, longitude");
  });
});

describe("stakes (shared vectors)", () => {
  it.each(vectors.stakes.valid)("parses $input", ({ input, amount, units }) => {
    const result = parseStake(input, { maximum: "1000000" });
    expect(result).toEqual({ ok: true, amount, units: BigInt(units) });
  });

  it.each(vectors.stakes.invalid)("refuses $input", ({ input, message }) => {
    const result = parseStake(input, { maximum: "1000000" });
    expect(result.ok).toBe(false);
    if (!result.ok && message !== null) expect(result.message).toBe(message);
    if (!result.ok && message === null) expect(result.reason).toBe("format");
  });

  it("refuses more than the configured maximum", () => {
    expect(parseStake("1000000.01", { maximum: "1000000" })).toMatchObject({
      ok: false,
      message: "Maximum stake amount is 1000000 USDC",
    });
    expect(MIN_STAKE_MESSAGE).toBe("Minimum stake amount is 1.00 USDC");
  });
});

describe("salts", () => {
  it("makes a fresh 32-byte salt each time", () => {
    const a = newSalt();
    expect(a).toMatch(SALT_PATTERN);
    expect(newSalt()).not.toBe(a);
  });
});

describe("the terms hash (shared vectors)", () => {
  it.each(vectors.termsHashes)("terms hash of challenge $challengeId", async (v) => {
    expect(await termsSha256(v)).toBe(v.termsSha256);
  });

  it.each(vectors.termsHashes)("terms hash of challenge $challengeId without Web Crypto", async (v) => {
    // Outside a secure context the page hashes with its own SHA-256: the same answer.
    const subtle = Object.getOwnPropertyDescriptor(globalThis.crypto, "subtle");
    Object.defineProperty(globalThis.crypto, "subtle", { value: undefined, configurable: true });
    try {
      expect(await termsSha256(v)).toBe(v.termsSha256);
    } finally {
      if (subtle) Object.defineProperty(globalThis.crypto, "subtle", subtle);
    }
    expect(sha256Bytes(new Uint8Array()).length).toBe(32);
  });
});

import { afterEach, describe, expect, it, vi } from "vitest";
import vectors from "../../../tests/vectors.json";
import { sha256Bytes, sha256Hex, termsSha256 } from "./commitment";

// The shared vectors themselves are checked in vectors.test.ts; these are the hashing details.

describe("SHA-256", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("built-in SHA-256 agrees with Web Crypto across block boundaries", async () => {
    for (const length of [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000]) {
      const bytes = new TextEncoder().encode("g".repeat(length));
      const native = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
      expect(Array.from(sha256Bytes(bytes))).toEqual(Array.from(native));
    }
  });

  it("hashes UTF-8 bytes (the empty string and a non-ASCII text)", async () => {
    expect(await sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(await sha256Hex("é")).toBe("4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c");
  });

  it("falls back to the built-in SHA-256 when Web Crypto is missing (a page served over plain http)", async () => {
    // Web Crypto's absence outside a secure context cannot be produced in jsdom, so it is removed here.
    vi.stubGlobal("crypto", {});
    expect(globalThis.crypto.subtle).toBeUndefined();
    expect(vectors.termsHashes.length).toBeGreaterThanOrEqual(2);
    for (const vector of vectors.termsHashes) {
      expect(await termsSha256(vector)).toBe(vector.termsSha256);
    }
  });
});

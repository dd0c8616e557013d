import { describe, expect, it } from "vitest";
import vectors from "../../../../tests/vectors.json";
import { microDegrees, textFromMicro } from "./coordinates";

describe("micro-degrees (shared vectors)", () => {
  it.each(vectors.geometry.microDegrees)("$text", ({ text, latE6, lonE6 }) => {
    const point = { latE6: BigInt(latE6), lonE6: BigInt(lonE6) };
    expect(microDegrees(text)).toEqual(point);
    expect(textFromMicro(point)).toBe(text);
  });
});

describe("micro-degrees", () => {
  it("are those of the canonical text of any valid input", () => {
    expect(microDegrees(" +48.85840099, 2.2945 ")).toEqual({ latE6: 48_858_400n, lonE6: 2_294_500n });
    expect(microDegrees("-0.0000009, -0")).toEqual({ latE6: 0n, lonE6: 0n });
    expect(microDegrees("-.5, 7.")).toEqual({ latE6: -500_000n, lonE6: 7_000_000n });
  });

  it("refuse what is not a pair in range, and have no text out of range", () => {
    for (const text of ["90.0000001, 0", "0, -180.000001", "48.8584 2.2945"]) expect(microDegrees(text)).toBeNull();
    expect(textFromMicro({ latE6: 90_000_001n, lonE6: 0n })).toBeNull();
    expect(textFromMicro({ latE6: 0n, lonE6: -180_000_001n })).toBeNull();
  });
});

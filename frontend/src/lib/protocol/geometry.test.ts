import { describe, expect, it } from "vitest";
import vectors from "../../../../tests/vectors.json";
import { microDegrees } from "./coordinates";
import {
  chordSq,
  cosMicro,
  HALF_CIRCUMFERENCE_M,
  inRange,
  isCorrect,
  MICRO_180,
  MICRO_90,
  sinMicro,
  sinRad,
  thresholdChordSq,
  unitVector,
  type Point,
} from "./geometry";

// tests/vectors.json ("geometry"): the values contracts/GeoMath.sol gives (tests/test_pot_vectors_on_chain.py)
// and challenges/geometry.py computes (tests/test_pot_vectors.py).
const geometry = vectors.geometry;

function point(text: string): Point {
  const p = microDegrees(text);
  if (!p) throw new Error(`not coordinates: ${text}`);
  return p;
}

describe("the integer rule (shared vectors)", () => {
  it.each(geometry.sinMicro)("sin and cos of $microDegrees micro-degrees", ({ microDegrees: a, sin, cos }) => {
    expect([sinMicro(BigInt(a)), cosMicro(BigInt(a))]).toEqual([BigInt(sin), BigInt(cos)]);
  });

  it.each(geometry.unitVector)("unit vector of ($latE6, $lonE6)", ({ latE6, lonE6, x, y, z }) => {
    expect(unitVector(BigInt(latE6), BigInt(lonE6))).toEqual([BigInt(x), BigInt(y), BigInt(z)]);
  });

  it.each(geometry.inRange)("($latE6, $lonE6) in range: $inRange", ({ latE6, lonE6, inRange: expected }) => {
    expect(inRange(BigInt(latE6), BigInt(lonE6))).toBe(expected);
  });

  it.each(geometry.thresholdChordSq)("chord of $thresholdM m", ({ thresholdM, chordSq: expected }) => {
    expect(thresholdChordSq(BigInt(thresholdM))).toBe(BigInt(expected));
  });

  it("gives every verdict", () => {
    expect(geometry.correct.length).toBeGreaterThan(300);
    for (const v of geometry.correct) {
      const guess = point(v.guess);
      const solution = point(v.solution);
      const threshold = BigInt(v.thresholdM);
      const verdict = {
        chordSq: chordSq(unitVector(guess.latE6, guess.lonE6), unitVector(solution.latE6, solution.lonE6)).toString(),
        thresholdChordSq: thresholdChordSq(threshold).toString(),
        correct: isCorrect(guess, solution, threshold),
      };
      expect({ about: v.about, ...verdict }).toEqual({
        about: v.about,
        chordSq: v.chordSq,
        thresholdChordSq: v.thresholdChordSq,
        correct: v.correct,
      });
    }
  });
});

describe("the integer rule", () => {
  it("scores a guess out of range incorrect, never an error", () => {
    const solution = { latE6: MICRO_90, lonE6: 0n };
    const largest = HALF_CIRCUMFERENCE_M - 1n;
    expect(isCorrect({ latE6: MICRO_90, lonE6: 0n }, solution, 0n)).toBe(true);
    expect(isCorrect({ latE6: MICRO_90 + 1n, lonE6: 0n }, solution, largest)).toBe(false);
    expect(isCorrect({ latE6: 0n, lonE6: -MICRO_180 - 1n }, { latE6: 0n, lonE6: MICRO_180 }, largest)).toBe(false);
    expect(() => isCorrect({ latE6: 0n, lonE6: 0n }, { latE6: MICRO_90 + 1n, lonE6: 0n }, 10n)).toThrow(RangeError);
  });

  it("refuses where the contract would revert or stop being the sine", () => {
    expect(() => sinMicro(MICRO_180 + 1n)).toThrow(RangeError);
    expect(() => sinMicro(-MICRO_180 - 1n)).toThrow(RangeError);
    expect(() => thresholdChordSq(HALF_CIRCUMFERENCE_M)).toThrow(RangeError);
    expect(() => thresholdChordSq(-1n)).toThrow(RangeError);
    expect(() => sinRad(-1n)).toThrow(RangeError);
  });

  it("truncates negative products toward zero, as Solidity, not down", () => {
    // cos(-135°)·cos(-45°) = -0.4999…: truncated, -499999999999999999; floored, one less.
    expect(unitVector(-45_000_000n, -135_000_000n)[0]).toBe(-499_999_999_999_999_999n);
  });
});

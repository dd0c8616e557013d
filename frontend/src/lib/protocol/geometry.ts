/** The integer rule that scores a guess, as contracts/GeoMath.sol computes it (docs/protocol.md
 * section 4), in BigInt, step for step; challenges/geometry.py is the same in Python and
 * tests/vectors.json ("geometry") pins both to the contract's answers. No Number arithmetic: a double
 * rounds differently from the EVM, and one unit at the threshold is a different winner. BigInt's `/`
 * truncates toward zero, as Solidity's does on signed integers, so unitVector needs no helper here.
 *
 * Fixed point with ONE = 10^18; angles in micro-degrees. Why a chord: on the unit sphere the chord
 * c = 2·sin(d / 2R) rises with the distance d for d < πR, so "d ≤ threshold" is exactly "c² ≤ c_T²",
 * and c² is a sum of three squared differences of integer unit vectors. */

export const ONE = 10n ** 18n;
/** floor(π · 10^18), as GeoMath.PI_ONE. */
export const PI_ONE = 3_141_592_653_589_793_238n;
export const MICRO_90 = 90_000_000n;
export const MICRO_180 = 180_000_000n;
export const EARTH_RADIUS_M = 6_371_000n;
/** floor(π · EARTH_RADIUS_M): the pot refuses a threshold at or above it. */
export const HALF_CIRCUMFERENCE_M = 20_015_086n;
/** The largest angle sinRad is given: 90° as sinMicro turns it into radians. */
export const HALF_PI_ONE = (MICRO_90 * PI_ONE) / MICRO_180;

export type Vector = readonly [bigint, bigint, bigint];

const ONE_SQ = ONE * ONE;
// (2k)·(2k+1), k = 1 … 12: the Taylor series' divisors, as GeoMath.sinRad unrolls them.
const TAYLOR_DIVISORS = Array.from({ length: 12 }, (_, i) => BigInt((2 * i + 2) * (2 * i + 3)));

/** sin(x), x radians scaled by ONE, 0 ≤ x ≤ π/2·ONE: 13 terms of the Taylor series, each term
 * floor(previous · x² / (ONE² · 2k · (2k+1))). Outside that range the contract's unchecked arithmetic
 * is not the sine; this refuses. */
export function sinRad(x: bigint): bigint {
  if (x < 0n || x > HALF_PI_ONE) throw new RangeError(`sinRad takes 0 ≤ x ≤ ${HALF_PI_ONE}, not ${x}`);
  const x2 = x * x;
  let term = x;
  let total = x;
  TAYLOR_DIVISORS.forEach((divisor, i) => {
    term = (term * x2) / (ONE_SQ * divisor);
    total = i % 2 === 0 ? total - term : total + term;
  });
  return total;
}

const abs = (a: bigint): bigint => (a < 0n ? -a : a);

/** sin of an angle in micro-degrees, |a| ≤ 180°, scaled by ONE; folded into [0°, 90°] on the exact
 * micro-degrees first, so symmetric angles get exactly symmetric sines. Beyond 180° the contract
 * reverts; this throws. */
export function sinMicro(angleE6: bigint): bigint {
  let magnitude = abs(angleE6);
  if (magnitude > MICRO_180) throw new RangeError(`sinMicro takes |angle| ≤ ${MICRO_180}, not ${angleE6}`);
  if (magnitude > MICRO_90) magnitude = MICRO_180 - magnitude;
  const value = sinRad((magnitude * PI_ONE) / MICRO_180);
  return angleE6 < 0n ? -value : value;
}

/** cos a = sin(90° − |a|). */
export function cosMicro(angleE6: bigint): bigint {
  return sinMicro(MICRO_90 - abs(angleE6));
}

/** (cos φ·cos λ, cos φ·sin λ, sin φ) scaled by ONE, each product divided by ONE truncated toward
 * zero. Callers check the range first. */
export function unitVector(latE6: bigint, lonE6: bigint): Vector {
  const cosLat = cosMicro(latE6);
  return [(cosLat * cosMicro(lonE6)) / ONE, (cosLat * sinMicro(lonE6)) / ONE, sinMicro(latE6)];
}

export function inRange(latE6: bigint, lonE6: bigint): boolean {
  return latE6 >= -MICRO_90 && latE6 <= MICRO_90 && lonE6 >= -MICRO_180 && lonE6 <= MICRO_180;
}

/** The squared chord between two unit vectors scaled by ONE (so scaled by ONE²). */
export function chordSq(a: Vector, b: Vector): bigint {
  return a.reduce((sum, p, i) => sum + (p - b[i]!) ** 2n, 0n);
}

/** (2·sin(h))² with h = floor(thresholdM · ONE / 2R), scaled by ONE². The pot opens only thresholds
 * below HALF_CIRCUMFERENCE_M. */
export function thresholdChordSq(thresholdM: bigint): bigint {
  if (thresholdM < 0n || thresholdM >= HALF_CIRCUMFERENCE_M) {
    throw new RangeError(`a threshold is 0 ≤ metres < ${HALF_CIRCUMFERENCE_M}, not ${thresholdM}`);
  }
  const chord = 2n * sinRad((thresholdM * ONE) / (2n * EARTH_RADIUS_M));
  return chord * chord;
}

export interface Point {
  latE6: bigint;
  lonE6: bigint;
}

/** The pot's verdict on a revealed guess (GeopoemPot.revealGuess): out of range is incorrect, never
 * an error; the solution was range-checked at its reveal, so one out of range here is a mistake. */
export function isCorrect(guess: Point, solution: Point, thresholdM: bigint): boolean {
  if (!inRange(solution.latE6, solution.lonE6)) throw new RangeError("the solution is out of range");
  if (!inRange(guess.latE6, guess.lonE6)) return false;
  const chord = chordSq(unitVector(guess.latE6, guess.lonE6), unitVector(solution.latE6, solution.lonE6));
  return chord <= thresholdChordSq(thresholdM);
}

/** The integer scoring rule of contracts/GeoMath.sol (normative), step for step in BigInt
 * (docs/protocol.md section 4): BigInt's `/` truncates toward zero as Solidity's signed `/` does.
 * And the micro-degrees of a canonical "lat, lon", computed on its decimal text. */
import { parseCoordinates } from "@/lib/coordinates";

export const ONE = 10n ** 18n;
export const PI_ONE = 3_141_592_653_589_793_238n;
const MICRO_90 = 90_000_000n;
const MICRO_180 = 180_000_000n;
export const EARTH_RADIUS_M = 6_371_000n;

export interface PointE6 {
  latE6: bigint;
  lonE6: bigint;
}

/** A number of the canonical text times 10^6, exactly (at most 6 decimals after parsing). */
function toE6(number: string): bigint {
  const negative = number.startsWith("-");
  const [whole = "0", fraction = ""] = number.replace(/^-/, "").split(".");
  const value = BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, "0").slice(0, 6) || "0");
  return negative ? -value : value;
}

/** The micro-degrees of a "lat, lon" (canonicalised first); null when it is not valid coordinates. */
export function microDegrees(text: string): PointE6 | null {
  const parsed = parseCoordinates(text);
  return parsed ? { latE6: toE6(parsed.lat), lonE6: toE6(parsed.lon) } : null;
}

/** sin(x) for 0 ≤ x ≤ π/2·ONE, scaled by ONE: the series with t = floor(t·x² / (ONE²·2k(2k+1))). */
export function sinRad(x: bigint): bigint {
  const x2 = x * x;
  let t = x;
  let s = x;
  for (let k = 1n; k <= 12n; k += 1n) {
    t = (t * x2) / (ONE * ONE * 2n * k * (2n * k + 1n));
    s = k % 2n === 1n ? s - t : s + t;
  }
  return s;
}

const abs = (n: bigint) => (n < 0n ? -n : n);

export function sinMicro(a: bigint): bigint {
  let m = abs(a);
  if (m > MICRO_90) m = MICRO_180 - m;
  const value = sinRad((m * PI_ONE) / MICRO_180);
  return a < 0n ? -value : value;
}

export function cosMicro(a: bigint): bigint {
  return sinMicro(MICRO_90 - abs(a));
}

export function unitVector({ latE6, lonE6 }: PointE6): [bigint, bigint, bigint] {
  const cosLat = cosMicro(latE6);
  return [(cosLat * cosMicro(lonE6)) / ONE, (cosLat * sinMicro(lonE6)) / ONE, sinMicro(latE6)];
}

export function inRange({ latE6, lonE6 }: PointE6): boolean {
  return abs(latE6) <= MICRO_90 && abs(lonE6) <= MICRO_180;
}

export function chordSq(a: [bigint, bigint, bigint], b: [bigint, bigint, bigint]): bigint {
  return a.reduce((sum, value, i) => sum + (value - b[i]!) ** 2n, 0n);
}

export function thresholdChordSq(thresholdM: number | bigint): bigint {
  const chord = 2n * sinRad((BigInt(thresholdM) * ONE) / (2n * EARTH_RADIUS_M));
  return chord * chord;
}

/** Whether the pot scores `guess` correct against `solution` within `thresholdM` metres. */
export function isCorrect(guess: PointE6, solution: PointE6, thresholdM: number | bigint): boolean {
  if (!inRange(guess)) return false;
  return chordSq(unitVector(guess), unitVector(solution)) <= thresholdChordSq(thresholdM);
}

/** The distance shown to people (never the verdict): the haversine on a sphere of 6,371,000 m. A
 * float is fine for a measurement shown with 2 decimals. */
export function haversineMeters(a: PointE6, b: PointE6): number {
  // As challenges/scoring.py computes it, so the two show the same metres.
  const deg = (e6: bigint) => Number(e6) / 1e6;
  const rad = (degrees: number) => degrees * (Math.PI / 180);
  const dLat = rad(deg(b.latE6) - deg(a.latE6));
  const dLon = rad(deg(b.lonE6) - deg(a.lonE6));
  const h =
    Math.sin(dLat / 2) ** 2 + Math.cos(rad(deg(a.latE6))) * Math.cos(rad(deg(b.latE6))) * Math.sin(dLon / 2) ** 2;
  return 2 * Number(EARTH_RADIUS_M) * Math.asin(Math.min(1, Math.sqrt(h)));
}

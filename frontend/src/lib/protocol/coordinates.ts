/** Micro-degrees: the canonical "lat, lon" (../coordinates.ts) times 10^6 exactly, computed on the
 * decimal strings, never through a Number. Mirrors micro_degrees and text_from_micro of
 * challenges/coordinates.py. */
import { COORDINATE_PRECISION, parseCoordinates, truncateNumber } from "../coordinates";
import { MICRO_180, MICRO_90, type Point } from "./geometry";

const SCALE = 10n ** BigInt(COORDINATE_PRECISION);

/** A canonical decimal string (at most 6 places) times 10^6, on its digits. */
function micro(number: string): bigint {
  const negative = number.startsWith("-");
  const [whole = "0", fraction = ""] = number.replace(/^-/, "").split(".");
  const value = BigInt(whole) * SCALE + BigInt(fraction.padEnd(COORDINATE_PRECISION, "0"));
  return negative ? -value : value;
}

/** The canonical coordinates of `input` in micro-degrees (input that is not canonical is truncated
 * first, as the server stores it); null when it is not a valid pair. "48.8584, 2.2945" is exactly
 * (48858400, 2294500). */
export function microDegrees(input: string): Point | null {
  const coordinates = parseCoordinates(input);
  return coordinates && { latE6: micro(coordinates.lat), lonE6: micro(coordinates.lon) };
}

function numberFromMicro(value: bigint): string {
  const magnitude = value < 0n ? -value : value;
  const fraction = (magnitude % SCALE).toString().padStart(COORDINATE_PRECISION, "0");
  return truncateNumber(`${value < 0n ? "-" : ""}${magnitude / SCALE}.${fraction}`);
}

/** The canonical "lat, lon" text of a point in micro-degrees; null out of range (a revealed guess
 * may be), where no canonical text exists. */
export function textFromMicro({ latE6, lonE6 }: Point): string | null {
  if (latE6 < -MICRO_90 || latE6 > MICRO_90 || lonE6 < -MICRO_180 || lonE6 > MICRO_180) return null;
  return `${numberFromMicro(latE6)}, ${numberFromMicro(lonE6)}`;
}

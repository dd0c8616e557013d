/** What the maps need from the canonical coordinates (lib/coordinates: truncation to 6 decimals
 * toward zero), without Leaflet, so it stays testable and out of the map chunk's way.
 *
 * A map position is a float; the field holds decimal text. Floats become text once, here, and
 * every canonical form comes from `parseCoordinates` — never re-implemented. Arrow-key steps are
 * done on whole micro-degrees (integers), so a step never loses a digit to float rounding. */
import { COORDINATE_PRECISION, parseCoordinates } from "@/lib/coordinates";

const SCALE = 10 ** COORDINATE_PRECISION; // micro-degrees per degree
const MAX_LAT = 90 * SCALE;
const MAX_LON = 180 * SCALE;

/** A float as plain decimal text: the shortest text that reads back as the same float (what the
 * map "meant"), never in exponent form. Below a micro-degree it truncates to 0 anyway. */
export function floatToDecimal(value: number): string {
  if (!Number.isFinite(value) || Math.abs(value) < 1 / SCALE) return "0";
  return String(value);
}

/** Longitude brought back into [-180, 180] (Leaflet's world repeats east and west). */
export function wrapLongitude(lon: number): number {
  if (lon >= -180 && lon <= 180) return lon;
  const wrapped = ((((lon + 180) % 360) + 360) % 360) - 180;
  return wrapped === -180 && lon > 0 ? 180 : wrapped;
}

/** The canonical "lat, lon" text of a map position (latitude clamped to ±90, longitude wrapped). */
export function positionToText(lat: number, lon: number): string {
  const clampedLat = Math.max(-90, Math.min(90, lat));
  const text = `${floatToDecimal(clampedLat)}, ${floatToDecimal(wrapLongitude(lon))}`;
  const parsed = parseCoordinates(text);
  if (!parsed) throw new Error(`Not a position: ${text}`);
  return parsed.text;
}

/** Where the field's text puts the pin, or null when the text is not valid coordinates. */
export function textToPosition(text: string): { lat: number; lon: number; text: string } | null {
  const parsed = parseCoordinates(text);
  return parsed ? { lat: Number(parsed.lat), lon: Number(parsed.lon), text: parsed.text } : null;
}

/** Canonical decimal text (at most 6 decimals) as whole micro-degrees: exact, no float. */
function toMicro(decimal: string): number {
  const negative = decimal.startsWith("-");
  const [whole = "0", fraction = ""] = (negative ? decimal.slice(1) : decimal).split(".");
  const micro = Number(whole) * SCALE + Number(fraction.padEnd(COORDINATE_PRECISION, "0"));
  return negative ? -micro : micro;
}

function fromMicro(micro: number): string {
  const sign = micro < 0 ? "-" : "";
  const abs = Math.abs(micro);
  return `${sign}${Math.floor(abs / SCALE)}.${String(abs % SCALE).padStart(COORDINATE_PRECISION, "0")}`;
}

/** The text `text` moved by whole micro-degrees: latitude stops at the poles, longitude wraps at
 * the antimeridian. Null when `text` is not valid coordinates. */
export function stepText(text: string, dLatMicro: number, dLonMicro: number): string | null {
  const parsed = parseCoordinates(text);
  if (!parsed) return null;
  const lat = Math.max(-MAX_LAT, Math.min(MAX_LAT, toMicro(parsed.lat) + dLatMicro));
  let lon = toMicro(parsed.lon) + dLonMicro;
  if (lon > MAX_LON) lon -= 2 * MAX_LON;
  if (lon < -MAX_LON) lon += 2 * MAX_LON;
  return parseCoordinates(`${fromMicro(lat)}, ${fromMicro(lon)}`)?.text ?? null;
}

/** PIXELS_PER_STEP screen pixels at this zoom, in whole micro-degrees (at least one): an arrow key
 * moves the pin a visible, zoom-sized distance. Leaflet's world is 256 px wide at zoom 0. */
export const PIXELS_PER_STEP = 10;
export function stepMicro(zoom: number): number {
  return Math.max(1, Math.round((PIXELS_PER_STEP * 360 * SCALE) / (256 * 2 ** zoom)));
}

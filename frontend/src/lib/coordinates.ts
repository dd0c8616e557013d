/** The canonical "lat, lon" form (docs/protocol.md section 1), on decimal strings, never floats.
 * Mirrors challenges/coordinates.py; tests/vectors.json proves the two agree. */

export const COORDINATES_MESSAGE = "Please enter valid coordinates in the format: latitude, longitude";
export const COORDINATE_PRECISION = 6;
export const MAX_COORDINATES_LENGTH = 100;

// Python's \s under re.ASCII: JavaScript's \s would also accept Unicode spaces.
const WS = "[ \\t\\n\\r\\f\\v]*";
const NUMBER = "[+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)";
const COORDINATES = new RegExp(`^${WS}(${NUMBER})${WS},${WS}(${NUMBER})${WS}$`);

export interface Coordinates {
  lat: string;
  lon: string;
  /** The canonical "lat, lon" text the server stores and the commitment hashes. */
  text: string;
}

interface Parts {
  negative: boolean;
  whole: string;
  fraction: string;
}

function split(number: string): Parts {
  let negative = false;
  let rest = number;
  if (rest.startsWith("+") || rest.startsWith("-")) {
    negative = rest.startsWith("-");
    rest = rest.slice(1);
  }
  const dot = rest.indexOf(".");
  const whole = (dot === -1 ? rest : rest.slice(0, dot)).replace(/^0+/, "") || "0";
  const fraction = dot === -1 ? "" : rest.slice(dot + 1);
  return { negative, whole, fraction };
}

/** |number| <= limit, exactly (so 90.0000001 is refused rather than truncated into range). */
function withinLimit(number: string, limit: number): boolean {
  const { whole, fraction } = split(number);
  if (whole.length > 3) return false;
  const wholeValue = Number(whole); // at most three digits: exact
  if (wholeValue < limit) return true;
  return wholeValue === limit && /^0*$/.test(fraction);
}

/** Truncate toward zero to 6 places and write canonically: no "+", no leading zeros, no
 * trailing zeros or bare ".", and "-0" written "0". */
export function truncateNumber(number: string): string {
  const { negative, whole, fraction } = split(number);
  const kept = fraction.slice(0, COORDINATE_PRECISION).replace(/0+$/, "");
  const text = kept ? `${whole}.${kept}` : whole;
  return text === "0" || !negative ? text : `-${text}`;
}

/** Parses player input; null when it is not a valid pair in range. */
export function parseCoordinates(input: string): Coordinates | null {
  if (input.length > MAX_COORDINATES_LENGTH) return null;
  const match = COORDINATES.exec(input);
  if (!match?.[1] || !match[2]) return null;
  const [latText, lonText] = [match[1], match[2]];
  if (!withinLimit(latText, 90) || !withinLimit(lonText, 180)) return null;
  const lat = truncateNumber(latText);
  const lon = truncateNumber(lonText);
  return { lat, lon, text: `${lat}, ${lon}` };
}

export function canonicalCoordinates(input: string): string | null {
  return parseCoordinates(input)?.text ?? null;
}

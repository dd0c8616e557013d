/** Display helpers shared by the tabs and the maps. Money arrives as decimal strings
 * (docs/protocol.md section 3) and is formatted on the string, never through floats. */

/** "0x1234…abcd": the first 6 and last 4 characters, the spec's short form. */
export function shortAddress(address: string): string {
  return address.length <= 10 ? address : `${address.slice(0, 6)}...${address.slice(-4)}`;
}

/** Epoch seconds in the visitor's local date and time (the spec shows every time in local time);
 * `missing` when there is none. */
export function formatDateTime(seconds: number | null | undefined, missing = "Not recorded"): string {
  return seconds == null ? missing : new Date(seconds * 1000).toLocaleString();
}

/** Epoch seconds as a local date only. */
export function formatDate(seconds: number | null | undefined, missing = "Not recorded"): string {
  return seconds == null ? missing : new Date(seconds * 1000).toLocaleDateString();
}

/** A distance with the spec's 2 decimals (the API writes it as a decimal string, the page computes
 * it as a number). Distances are measurements, not money: a float is fine. */
export function formatDistance(meters: number | string | null): string {
  const value = meters === null || meters === "" ? NaN : Number(meters);
  return Number.isFinite(value) ? `${value.toFixed(2)} m` : "Not scored";
}

/** A decimal string with 2 places, cut (never rounded up) on the string: "12.345678" -> "12.34".
 * Prizes are shown this way. */
export function formatUsdc(amount: string): string {
  const negative = amount.trim().startsWith("-");
  const [whole = "0", fraction = ""] = amount.trim().replace(/^[+-]/, "").split(".");
  return `${negative ? "-" : ""}${whole || "0"}.${fraction.padEnd(2, "0").slice(0, 2)}`;
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/** A USDC amount with at least 2 decimals and no trailing zeros beyond them: "82.750000" →
 * "82.75", "5.000000" → "5.00", "1.234500" → "1.2345". Stakes may carry up to 6 decimals and a
 * player should see exactly what was paid. */
export function formatStake(amount: string): string {
  const match = DECIMAL.exec(amount.trim());
  if (!match) return amount;
  const [, sign, whole, fraction = ""] = match;
  const trimmed = fraction.replace(/0+$/, "").padEnd(2, "0");
  return `${sign}${whole}.${trimmed}`;
}

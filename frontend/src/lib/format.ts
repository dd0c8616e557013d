/** Display helpers shared by the tabs. */

/** "0x1234…abcd": the first 6 and last 4 characters (spec section 9). */
export function shortAddress(address: string): string {
  return address.length <= 10 ? address : `${address.slice(0, 6)}...${address.slice(-4)}`;
}

/** Epoch seconds in the visitor's local format. */
export function formatTimestamp(seconds: number | null | undefined): string {
  return seconds == null ? "" : new Date(seconds * 1000).toLocaleString();
}

export function formatDate(seconds: number | null | undefined): string {
  return seconds == null ? "" : new Date(seconds * 1000).toLocaleDateString();
}

/** A decimal string with 2 places, cut (never rounded up) on the string: "12.345678" -> "12.34". */
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

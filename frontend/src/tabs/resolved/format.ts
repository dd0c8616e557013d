/** Display helpers of the Resolved and Winners' Circle tabs, beside lib/format's (prizes use its
 * `formatUsdc`, cut to 2 decimals). Money arrives as decimal
 * strings (design section 4) and is formatted on the string, never through floats. */

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

/** Epoch seconds in the visitor's local date and time (spec section 9: shown in local time). */
export function formatDateTime(seconds: number | null): string {
  return seconds === null ? "Not recorded" : new Date(seconds * 1000).toLocaleString();
}

/** Epoch seconds as a local date only. */
export function formatDate(seconds: number | null): string {
  return seconds === null ? "Not recorded" : new Date(seconds * 1000).toLocaleDateString();
}

/** A proximity threshold in meters, or the spec's "Not specified". */
export function formatThreshold(meters: number | null): string {
  return meters === null ? "Not specified" : `${meters} m`;
}

/** A distance with the spec's 2 decimals. Distances are measurements, not money: a float is fine. */
export function formatDistance(meters: number | null): string {
  return meters === null ? "Not scored" : `${meters.toFixed(2)} m`;
}

export { formatUsdc as formatPrize, shortAddress } from "@/lib/format";

/** Display helpers of the Resolved and Winners' Circle tabs, beside lib/format's (prizes use its
 * `formatUsdc`, cut to 2 decimals). Money arrives as decimal
 * strings (docs/protocol.md section 3) and is formatted on the string, never through floats. */

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

export { formatStake, formatUsdc as formatPrize, shortAddress } from "@/lib/format";

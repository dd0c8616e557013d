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

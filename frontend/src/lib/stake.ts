/** Stakes: decimal USDC in, exact integer token units out (no floats). Mirrors
 * responses/stakes.py; tests/vectors.json proves the two agree. */

export const MIN_STAKE_MESSAGE = "Minimum stake amount is 1.00 USDC";

/** The spec's sentence for the minimum, with a challenge's own minimum (at least 1.00) in it. */
export function minStakeMessage(minimum: string): string {
  const [whole = "0", fraction = ""] = minimum.split(".");
  const places = fraction.replace(/0+$/, "").padEnd(2, "0");
  return `Minimum stake amount is ${whole || "0"}.${places} USDC`;
}
export const STAKE_FORMAT_MESSAGE = "Stake must be a decimal amount of USDC with at most 6 decimals.";
export const TOKEN_DECIMALS = 6;

const WS = "[ \\t\\n\\r\\f\\v]*";
const STAKE = new RegExp(`^${WS}\\+?([0-9]{1,15}(?:\\.[0-9]*)?|\\.[0-9]+)${WS}$`);

/** The sentence refusing a stake off the form's step; responses/stakes.py words it the same. */
export function stakeStepMessage(step: string): string {
  const places = step.split(".")[1]?.length ?? 0;
  return `Stake amount must be a multiple of ${step} USDC (at most ${places} decimals).`;
}

export type StakeResult =
  | { ok: true; amount: string; units: bigint }
  | { ok: false; reason: "format" | "minimum" | "maximum" | "step"; message: string };

/** A decimal string as integer units of 10^-decimals, or null with more places than that. */
export function decimalToUnits(text: string, decimals: number = TOKEN_DECIMALS): bigint | null {
  const [whole = "", fraction = ""] = text.split(".");
  const extra = fraction.slice(decimals);
  if (/[^0]/.test(extra)) return null;
  const digits = (whole || "0") + fraction.slice(0, decimals).padEnd(decimals, "0");
  return BigInt(digits);
}

/** Units back to the shortest decimal string ("1500000" -> "1.5"). */
export function unitsToDecimal(units: bigint, decimals: number = TOKEN_DECIMALS): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

export function parseStake(
  input: string,
  { minimum = "1", maximum, step }: { minimum?: string; maximum?: string; step?: string } = {},
): StakeResult {
  const match = STAKE.exec(input);
  const units = match?.[1] ? decimalToUnits(match[1]) : null;
  if (units === null) return { ok: false, reason: "format", message: STAKE_FORMAT_MESSAGE };
  const minUnits = decimalToUnits(minimum) ?? 1_000_000n;
  if (units < minUnits) return { ok: false, reason: "minimum", message: minStakeMessage(minimum) };
  const maxUnits = maximum ? decimalToUnits(maximum) : null;
  if (maxUnits !== null && units > maxUnits) {
    return { ok: false, reason: "maximum", message: `Maximum stake amount is ${maximum} USDC` };
  }
  // The game's step (0.01: whole cents) on top of the token's 6 decimals, as the API checks it.
  const stepUnits = step ? decimalToUnits(step) : null;
  if (stepUnits && units % stepUnits !== 0n)
    return { ok: false, reason: "step", message: stakeStepMessage(step ?? "") };
  return { ok: true, amount: unitsToDecimal(units), units };
}

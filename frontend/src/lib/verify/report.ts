/** What a run found, and what every check reads (verify_challenge.py, "The report"): a line per check,
 * each difference with the stake it concerns, and the context read once. */
import { isCorrect, type Point } from "../protocol/geometry";
import type { Chain, Terms } from "./chain";
import type { SiteAnswers } from "./read";
import type { Replay } from "./replay";

export interface Difference {
  /** The stake it concerns; null: the challenge as a whole. */
  seq: number | null;
  text: string;
}

export class Report {
  lines: string[] = [];
  differences: Difference[] = [];

  constructor(readonly stakes: number) {}

  line(text: string): void {
    this.lines.push(text);
  }

  differ(text: string, seq: number | null = null): void {
    this.differences.push({ seq, text });
  }

  get ok(): boolean {
    return this.differences.length === 0;
  }

  /** The stakes with a difference. */
  get differing(): number[] {
    return [...new Set(this.differences.flatMap((d) => (d.seq === null ? [] : [d.seq])))];
  }

  get reproduced(): number {
    return this.stakes - this.differing.length;
  }

  /** As the script prints it. */
  static text(difference: Difference): string {
    return difference.seq === null
      ? `DIFFERENCE: ${difference.text}`
      : `DIFFERENCE stake ${difference.seq}: ${difference.text}`;
  }
}

export interface Context {
  challengeId: number;
  chainId: number;
  pot: string;
  decimals: number;
  /** The pot the site's page names. */
  sitePot: string;
  site: SiteAnswers;
  chain: Chain;
  replay: Replay;
  /** seq → the published guess, which opens its stake. */
  shown: Map<number, Point>;
}

export function termsOf(ctx: Context): Terms {
  if (!ctx.replay.terms) throw new Error("the challenge was never opened");
  return ctx.replay.terms;
}

/** The pot's verdict on a point, null before the solution's reveal. */
export function verdictOf(ctx: Context, point: Point): boolean | null {
  const solution = ctx.replay.solution;
  if (!solution) return null;
  return isCorrect(point, { latE6: solution.args.lat, lonE6: solution.args.lon }, termsOf(ctx).thresholdM);
}

export function windowOver(ctx: Context): boolean {
  const solution = ctx.replay.solution;
  return solution !== null && ctx.chain.headTime >= solution.args.guessDeadline;
}

/** Token units as USDC with `decimals` places. */
export function usdc(units: bigint, decimals = 6): string {
  const scale = 10n ** BigInt(decimals);
  const negative = units < 0n;
  const magnitude = negative ? -units : units;
  const fraction = (magnitude % scale).toString().padStart(decimals, "0");
  return `${negative ? "-" : ""}${magnitude / scale}.${fraction}`;
}

/** A decimal string of USDC as token units, exactly; null when it is not one. */
export function toUnits(amount: unknown, decimals = 6): bigint | null {
  if (typeof amount !== "string" && typeof amount !== "number") return null;
  const match = /^(-?)([0-9]+)(?:\.([0-9]*))?$/.exec(String(amount).trim());
  if (!match) return null;
  const [, sign, whole = "0", fraction = ""] = match;
  const trimmed = fraction.replace(/0+$/, "");
  if (trimmed.length > decimals) return null;
  const units = BigInt(whole) * 10n ** BigInt(decimals) + BigInt(trimmed.padEnd(decimals, "0") || "0");
  return sign ? -units : units;
}

/** A value of the site's JSON as Python's repr() writes it (a string quoted and escaped, null as None,
 * true as True), so that a difference reads as verify_challenge.py prints it. */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value !== "string") return String(value);
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  const escaped = [...value].map((ch) => {
    const code = ch.codePointAt(0)!;
    if (ch === "\\" || ch === quote) return `\\${ch}`;
    if (ch === "\n") return "\\n";
    if (ch === "\r") return "\\r";
    if (ch === "\t") return "\\t";
    return code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, "0")}` : ch;
  });
  return `${quote}${escaped.join("")}${quote}`;
}

export function stakeName(seq: number | null | undefined): string {
  return seq ? `stake ${seq}` : "none";
}

export const verdictWord = (correct: boolean): string => (correct ? "correct" : "incorrect");

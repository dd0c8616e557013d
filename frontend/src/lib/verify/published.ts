/** 4. Published guesses (verify_challenge.py, check_published): each guess the site published must
 * open its stake's commitment; a correct one that would beat the winners on chain, never revealed,
 * is a guess the site held back. */
import { guessCommitment } from "../protocol/commitment";
import { microDegrees, textFromMicro } from "../protocol/coordinates";
import type { Point } from "../protocol/geometry";
import type { SiteStake } from "./read";
import { type Context, pyRepr, type Report, verdictOf, verdictWord, windowOver } from "./report";
import type { Stake } from "./replay";
import { beats } from "./rules";

export function stakeCommitment(ctx: Context, stake: Stake, point: Point, salt: string): string | null {
  try {
    return guessCommitment({
      chainId: BigInt(ctx.chainId),
      pot: ctx.pot,
      challengeId: BigInt(ctx.challengeId),
      payer: stake.payer,
      latE6: point.latE6,
      lonE6: point.lonE6,
      salt,
    });
  } catch {
    return null; // not a salt
  }
}

export function checkPublished(ctx: Context, report: Report): void {
  let opened = 0;
  for (const row of ctx.site.stakes) {
    const stake = typeof row.id === "number" ? ctx.replay.stakes.get(row.id) : undefined;
    const { submissionText: text, submissionSalt: salt } = row;
    if (!stake || (text == null && salt == null)) continue;
    const point = typeof text === "string" ? microDegrees(text) : null;
    if (!point || typeof salt !== "string" || stakeCommitment(ctx, stake, point, salt) !== stake.commitment) {
      report.differ(
        `the guess the site published (${pyRepr(text)}, salt ${pyRepr(salt)}) does not open its commitment`,
        stake.seq,
      );
      continue;
    }
    opened += 1;
    ctx.shown.set(stake.seq, point);
    checkPublishedGuess(ctx, report, stake, point, row);
  }
  report.line(`published guesses: ${opened} published by the site, each opens its stake's commitment`);
}

function checkPublishedGuess(ctx: Context, report: Report, stake: Stake, point: Point, row: SiteStake): void {
  const verdict = verdictOf(ctx, point);
  const revealed = ctx.replay.reveals.get(stake.seq);
  if (row.isCorrect != null && verdict !== null && row.isCorrect !== verdict) {
    report.differ(
      `the site calls its guess ${verdictWord(row.isCorrect)}; the rule says ${verdictWord(verdict)}`,
      stake.seq,
    );
  }
  if (revealed) {
    if (revealed.args.lat !== point.latE6 || revealed.args.lon !== point.lonE6) {
      report.differ("the guess revealed on chain is not the one the site published", stake.seq);
    }
    return;
  }
  const won = verdict ? beats(ctx.replay.best, stake.seq, stake.amount) : [];
  if (won.length === 0) return;
  const prizes = won.join(" and ");
  if (windowOver(ctx)) {
    report.differ(
      `the site held this guess and did not reveal it: ${textFromMicro(point)} is correct and would have won the ${prizes} prize`,
      stake.seq,
    );
  } else report.line(`stake ${stake.seq}: its correct guess, not revealed yet, would win the ${prizes} prize`);
}

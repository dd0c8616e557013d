/** 6. A player's record (verify_challenge.py, check_record; docs/protocol.md 3.7): the stake is in the
 * pot, the record's guess opens it, it was revealed if it would have won, and what it was paid or
 * refunded. */
import { SALT_PATTERN } from "../commitment";
import { microDegrees, textFromMicro } from "../protocol/coordinates";
import type { Point } from "../protocol/geometry";
import { stakeMoney } from "./payments";
import { stakeCommitment } from "./published";
import { type Context, pyRepr, type Report, termsOf, usdc, verdictOf, verdictWord, windowOver } from "./report";
import type { Stake } from "./replay";
import { beats } from "./rules";

/** The fields of the page's "Download record" the check reads. */
export interface StakeRecord {
  version: number;
  chainId: number;
  pot: string;
  challengeId: number;
  termsDigest: string;
  termsSha256: string;
  submitterAddress: string;
  coordinates: string;
  latE6: number;
  lonE6: number;
  salt: string;
  commitment: string;
}

export function checkRecord(ctx: Context, record: StakeRecord, report: Report): void {
  const payer = String(record.submitterAddress ?? "").toLowerCase();
  if (String(record.pot ?? "").toLowerCase() !== ctx.pot || record.chainId !== ctx.chainId) {
    report.differ(`record: it names the pot ${record.pot} on chain ${record.chainId}, not ${ctx.pot}`);
  }
  const opened = ctx.replay.opened;
  if (opened && (record.termsDigest !== opened.args.digest || record.termsSha256 !== termsOf(ctx).termsHash)) {
    report.differ("record: the terms you saw (digest and hash) are not the terms the pot opened");
  }
  const point = microDegrees(String(record.coordinates ?? ""));
  const wellFormed = typeof record.salt === "string" && SALT_PATTERN.test(record.salt);
  if (!point || !wellFormed || BigInt(record.latE6) !== point.latE6 || BigInt(record.lonE6) !== point.lonE6) {
    report.differ(`record: its guess ${pyRepr(record.coordinates)} and salt are not a well-formed guess`);
    return;
  }
  const mine = [...ctx.replay.stakes.values()].filter(
    (s) =>
      s.payer === payer &&
      s.commitment === record.commitment &&
      stakeCommitment(ctx, s, point, record.salt) === s.commitment,
  );
  if (mine.length === 0) {
    report.differ(`record: no stake of ${payer} in the pot is opened by your guess ${textFromMicro(point)}`);
    return;
  }
  for (const stake of mine) checkRecordStake(ctx, report, stake, point);
}

function checkRecordStake(ctx: Context, report: Report, stake: Stake, point: Point): void {
  const r = ctx.replay;
  report.line(`record: your stake ${stake.seq} of ${usdc(stake.amount)} USDC is in the pot, and your guess opens it`);
  const verdict = verdictOf(ctx, point);
  if (verdict === null) {
    report.line("record: the solution is not revealed yet");
    return;
  }
  const won = verdict && !r.reveals.has(stake.seq) ? beats(r.best, stake.seq, stake.amount) : [];
  if (won.length > 0 && windowOver(ctx)) {
    const held = ctx.shown.has(stake.seq) ? "the site held it" : "the site did not have it";
    report.differ(
      `record: your correct guess was never revealed on chain and would have won the ${won.join(" and ")} prize (${held})`,
      stake.seq,
    );
  } else if (won.length > 0) {
    const deadline = r.solution?.args.guessDeadline;
    report.line(`record: your correct guess would win the ${won.join(" and ")} prize: reveal it before ${deadline}`);
  }
  report.line(`record: your guess is ${verdictWord(verdict)}; ${stakeMoney(ctx, stake)}`);
}

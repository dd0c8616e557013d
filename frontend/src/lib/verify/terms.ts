/** 1. Terms (verify_challenge.py, check_terms): what the site shows must be what the pot opened, and
 * the revealed solution the pot's. */
import { termsSha256 } from "../commitment";
import { textFromMicro } from "../protocol/coordinates";
import { type Context, pyRepr, type Report, termsOf, toUnits, usdc } from "./report";

export async function checkTerms(ctx: Context, report: Report): Promise<void> {
  const c = ctx.site.challenge;
  const terms = termsOf(ctx);
  const opened = ctx.replay.opened!;
  const read = await termsSha256({
    challengeId: ctx.challengeId,
    poemTitle: String(c.poemTitle ?? ""),
    poemText: String(c.poemText ?? ""),
    instructionsText: String(c.instructionsText ?? ""),
  });
  if (read !== terms.termsHash) {
    report.differ(
      `terms: the site's title, poem and instructions hash to ${read}, not the pot's terms hash ` +
        `${terms.termsHash}: what the site shows is not what was opened`,
    );
  }
  const units = (value: unknown) => toUnits(value, ctx.decimals);
  const num = (value: unknown) => (typeof value === "number" ? BigInt(value) : value);
  const shown: [string, unknown, unknown][] = [
    ["terms hash", c.termsSha256, terms.termsHash],
    ["terms digest", c.termsDigest, opened.args.digest],
    ["solution commitment", c.solutionSha256, terms.solutionCommitment],
    ["threshold", num(c.proximityThreshold), terms.thresholdM],
    ["opening", num(c.startTimestamp), terms.opensAt],
    ["close", num(c.closesTimestamp), terms.closesAt],
    ["solution deadline", num(c.solutionDeadline), terms.solutionDeadline],
    ["guess window", num(c.guessWindowSeconds), terms.guessWindow],
    ["minimum stake", units(c.minStake), terms.minStake],
    ["bond", units(c.bond), terms.bond],
    ["opening transaction", String(c.openTransactionHash ?? "").toLowerCase(), opened.tx],
    ["opening block", c.openBlockNumber, opened.block],
  ];
  for (const [name, site, pot] of shown) {
    if (site !== pot) report.differ(`terms: the site shows the ${name} ${pyRepr(site)}; the pot's is ${pyRepr(pot)}`);
  }
  report.line(
    `terms: opened in block ${opened.block} (transaction ${opened.tx}); threshold ${terms.thresholdM} m, ` +
      `stakes from ${terms.opensAt} to ${terms.closesAt}, minimum ${usdc(terms.minStake)} USDC, bond ${usdc(terms.bond)} USDC`,
  );
  checkSolutionShown(ctx, report);
}

function checkSolutionShown(ctx: Context, report: Report): void {
  const c = ctx.site.challenge;
  const solution = ctx.replay.solution;
  if (!solution) {
    if (c.solutionReveal != null || c.solutionSalt != null) {
      report.differ("terms: the site shows a solution the pot has not seen revealed");
    }
    return;
  }
  const { lat, lon, salt, guessDeadline } = solution.args;
  const text = textFromMicro({ latE6: lat, lonE6: lon });
  if (c.solutionReveal !== text || c.solutionSalt !== salt) {
    report.differ(
      `terms: the site shows the solution ${pyRepr(c.solutionReveal)} with salt ${pyRepr(c.solutionSalt)}; ` +
        `the pot's is ${pyRepr(text)} with salt ${salt}`,
    );
  }
  if (c.guessDeadline == null || BigInt(c.guessDeadline) !== guessDeadline) {
    const shown = c.guessDeadline == null ? "None" : String(c.guessDeadline);
    report.differ(`terms: the site shows the guess deadline ${shown}; the pot's is ${guessDeadline}`);
  }
  report.line(`solution: ${text}, revealed in block ${solution.block}; it opens the committed solution`);
}

/** 3. Reveals and winners (verify_challenge.py, check_winners): each verdict was recomputed in the
 * replay; the site's winners, prizes and finality must be the pot's. */
import { type Context, type Report, stakeName, toUnits, usdc, windowOver } from "./report";
import { potOf } from "./replay";
import { split } from "./rules";

export function checkWinners(ctx: Context, report: Report): void {
  const { replay: r } = ctx;
  const w = ctx.site.winners;
  const solution = r.solution;
  if (!solution) {
    report.line("winners: the solution is not revealed on chain; nothing is scored yet");
    return;
  }
  const correct = [...r.reveals.values()].filter((e) => e.args.correct).length;
  report.line(`reveals: ${r.reveals.size} revealed on chain, ${correct} of them correct; each verdict recomputed`);
  for (const [kind, seq] of [
    ["earliest", r.best.earliest],
    ["highest", r.best.highest],
  ] as const) {
    const shown = w[kind]?.id ?? null;
    if (shown !== seq) {
      report.differ(`winners: the site names ${stakeName(shown)} the ${kind} winner; the pot's is ${stakeName(seq)}`);
    }
  }
  const { prize, share } = r.best.earliest !== null ? split(potOf(r)) : { prize: 0n, share: 0n };
  const prizes = w.prizes ?? {};
  for (const [kind, amount] of [
    ["earliest", prize],
    ["highest", prize],
    ["share", share],
  ] as const) {
    if (toUnits(prizes[kind], ctx.decimals) !== amount) {
      report.differ(`winners: the site shows the ${kind} prize ${String(prizes[kind])}; by the rules ${usdc(amount)}`);
    }
  }
  const final = windowOver(ctx);
  if (Boolean(w.final) !== final) report.differ(`winners: the site says the winners are ${w.final ? "" : "not "}final`);
  const state = final ? "final" : `so far (the guess window ends at ${solution.args.guessDeadline})`;
  report.line(`winners ${state}: earliest ${stakeName(r.best.earliest)}, highest ${stakeName(r.best.highest)}`);
}

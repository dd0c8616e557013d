/** 0. The pot, the replay and the pot's own views (verify_challenge.py, check_pot): the site must
 * name the pot checked, and stateOf and termsOf must be what the replay of the events gives. */
import { thresholdChordSq } from "../protocol/geometry";
import type { State } from "./chain";
import { type Context, type Report } from "./report";
import { EARLIEST, HIGHEST, potOf, SHARE } from "./replay";

export function checkPot(ctx: Context, report: Report): void {
  if (ctx.sitePot.toLowerCase() !== ctx.pot) {
    report.differ(`the site names the pot ${ctx.sitePot.toLowerCase() || "(none)"}; the pot checked is ${ctx.pot}`);
  } else report.line(`pot: ${ctx.pot} on chain ${ctx.chainId}, the site names the same`);
  const { chain, replay: r } = ctx;
  if (!chain.state) {
    report.differ(`there is no contract at ${ctx.pot} on chain ${ctx.chainId}`);
    return;
  }
  for (const problem of r.problems) report.differ(`on chain: ${problem.text}`, problem.seq);
  if (
    r.opened &&
    JSON.stringify([chain.terms, chain.digest], big) !== JSON.stringify([r.terms, r.opened.args.digest], big)
  ) {
    report.differ("the pot's termsOf differs from its Opened event");
  }
  const expected = replayState(ctx);
  const state = chain.state;
  const wrong = (Object.keys(expected) as (keyof State)[])
    .filter((key) => state[key] !== expected[key])
    .map((key) => `${key} ${state[key]} (the events give ${expected[key]})`);
  if (wrong.length > 0) report.differ(`the pot's stateOf differs from the replay of its events: ${wrong.join(", ")}`);
  else report.line(`replay: ${chain.events.length} events of the pot replayed to block ${chain.head}; stateOf agrees`);
}

const big = (_key: string, value: unknown) => (typeof value === "bigint" ? value.toString() : value);

/** What stateOf must answer at the head, from the replay alone. */
export function replayState(ctx: Context): State {
  const { replay: r, chain } = ctx;
  const terms = r.terms;
  const solution = r.solution;
  const aborted = terms !== null && solution === null && chain.headTime >= terms.solutionDeadline;
  const refunded = r.refundOrder.map((seq) => r.refunds.get(seq)!.args);
  const flag = (value: boolean) => (value ? 1n : 0n);
  return {
    stakeCount: BigInt(r.stakes.size),
    pot: potOf(r),
    guessDeadline: solution?.args.guessDeadline ?? 0n,
    earliestSeq: BigInt(r.best.earliest ?? 0),
    highestSeq: BigInt(r.best.highest ?? 0),
    highestAmount: r.best.highestAmount,
    finalized: flag(r.finalized !== null),
    earliestPaid: flag(r.paid.has(EARLIEST)),
    highestPaid: flag(r.paid.has(HIGHEST)),
    sharePaid: flag(r.paid.has(SHARE)),
    aborted: flag(aborted),
    refundedStake: refunded.reduce((sum, a) => sum + a.stake, 0n),
    refundedBond: refunded.reduce((sum, a) => sum + a.bondShare, 0n),
    thresholdChordSq: terms ? thresholdChordSq(terms.thresholdM) : 0n,
  };
}

/** 2. Stakes (verify_challenge.py, check_stakes): the site's staked sum and count are the pot's, and
 * every stake it lists is on chain as listed. */
import { type Context, pyRepr, type Report, toUnits, usdc } from "./report";
import { potOf } from "./replay";

export function checkStakes(ctx: Context, report: Report): void {
  const stakes = ctx.replay.stakes;
  const c = ctx.site.challenge;
  const shownCount = c.responseCount;
  const shownUnits = toUnits(c.stakedSum, ctx.decimals);
  const count = Number.isInteger(shownCount) && shownCount >= 0 && shownCount <= stakes.size ? shownCount : null;
  // The site counts the stakes deep enough in the chain, a prefix of the sequence; the whole pot once
  // the solution is revealed (the worker reveals it only once the close is deep).
  const whole = ctx.replay.solution !== null && c.solutionReveal != null;
  let prefixUnits = 0n;
  for (let seq = 1; count !== null && seq <= count; seq++) prefixUnits += stakes.get(seq)!.amount;
  const total = usdc(potOf(ctx.replay), ctx.decimals);
  if (count === null || shownUnits !== prefixUnits || (whole && count !== stakes.size)) {
    report.differ(
      `stakes: the site shows ${shownCount} stakes of ${c.stakedSum} USDC; the pot holds ${stakes.size} stakes of ${total} USDC`,
    );
  } else report.line(`stakes: the pot holds ${stakes.size} stakes of ${total} USDC; the site shows ${count}`);
  const listed = checkListed(ctx, report);
  if (whole) {
    const missing = [...stakes.keys()].filter((seq) => !listed.has(seq));
    if (missing.length > 0) report.differ(`stakes: the site does not list the stakes ${some(missing)} of the pot`);
  }
}

export function some(seqs: number[]): string {
  const more = seqs.length > 10 ? ` and ${seqs.length - 10} more` : "";
  return seqs.slice(0, 10).join(", ") + more;
}

/** Every stake the site lists must be on chain as listed. Returns the sequences listed. */
function checkListed(ctx: Context, report: Report): Set<number> {
  const listed = new Set<number>();
  for (const row of ctx.site.stakes) {
    const seq = row.id;
    const stake = typeof seq === "number" ? ctx.replay.stakes.get(seq) : undefined;
    if (!stake || listed.has(stake.seq)) {
      report.differ(
        `stakes: the site lists a stake #${String(seq)} of ${row.submissionStake} USDC from ${row.submitterAddress} ` +
          `(transaction ${String(row.transactionHash)}) that is not in the pot${stake ? " (twice)" : ""}`,
      );
      continue;
    }
    listed.add(stake.seq);
    const shown: [string, unknown, unknown][] = [
      ["payer", String(row.submitterAddress ?? "").toLowerCase(), stake.payer],
      ["stake", toUnits(row.submissionStake, ctx.decimals), stake.amount],
      ["commitment", row.commitment, stake.commitment],
      ["transaction", String(row.transactionHash ?? "").toLowerCase(), stake.tx],
      ["block", row.blockNumber, stake.block],
      ["log index", row.logIndex, stake.logIndex],
    ];
    for (const [name, site, chain] of shown) {
      if (site !== chain)
        report.differ(`the site lists its ${name} as ${pyRepr(site)}; on chain it is ${pyRepr(chain)}`, stake.seq);
    }
    if (Boolean(row.revealed) !== ctx.replay.reveals.has(stake.seq)) {
      report.differ(`the site says its guess was ${row.revealed ? "" : "not "}revealed on chain`, stake.seq);
    }
  }
  return listed;
}

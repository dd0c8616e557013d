/** "Verify every outcome": the checks of docs/protocol.md section 5 in the page, as
 * verify_challenge.py makes them and in its order, one module per section: read the site and the pot
 * (read.ts, chain.ts), replay the pot's events (replay.ts), then check the pot's own views (pot.ts),
 * the terms (terms.ts), the stakes (stakes.ts), the winners (winners.ts), the published guesses
 * (published.ts), the payments (payments.ts) and a player's records (record.ts). The pot is the one
 * pinned in the page's code for the chain, never taken from the site alone. */
import { textFromMicro } from "../protocol/coordinates";
import { type Chain, LOG_RANGE, readChain } from "./chain";
import { checkPayments, stakeMoney } from "./payments";
import { checkPot } from "./pot";
import { checkPublished } from "./published";
import { BATCH, type Fetch, type Progress, readSite, Rpc, Unavailable } from "./read";
import { checkRecord, type StakeRecord } from "./record";
import { replay } from "./replay";
import { type Context, type Difference, Report, usdc, verdictOf, verdictWord } from "./report";
import { checkStakes } from "./stakes";
import { checkTerms } from "./terms";
import { checkWinners } from "./winners";

export { PHASES, type Phase, type Progress, Unavailable } from "./read";
export type { Difference } from "./report";
export type { StakeRecord } from "./record";

/** Beyond this many stakes the page points to the script. */
export const MAX_BROWSER_STAKES = 10_000;

export interface PinnedPot {
  address: string;
  deployBlock: number;
}

export interface VerifierInput {
  challengeId: number;
  config: { rpcUrl: string; chainId: number; potAddress: string | null; potDeployBlock: number; tokenDecimals: number };
  /** The pots pinned in the page's code, by chain id (config.ts, PINNED_POTS). */
  pins: Readonly<Record<number, PinnedPot>>;
  /** The site's origin; "" in the page (its own). */
  site?: string;
  fetchImpl?: Fetch;
  signal?: AbortSignal;
  progress?: Progress;
  records?: StakeRecord[];
  batch?: number;
  logRange?: number;
}

export interface StakeLine {
  seq: number;
  payer: string;
  amount: string;
  guess: string | null;
  outcome: string;
  differs: boolean;
}

export interface VerificationReport {
  ok: boolean;
  total: number;
  reproduced: number;
  pot: string;
  /** No pot is pinned for the chain: the one checked is the site's. */
  unpinned: boolean;
  lines: string[];
  differences: Difference[];
  stakes: StakeLine[];
}

export async function verifyChallenge(input: VerifierInput): Promise<VerificationReport> {
  const fetchImpl = input.fetchImpl ?? globalThis.fetch.bind(globalThis);
  const progress: Progress = input.progress ?? (() => undefined);
  const { config } = input;
  const rpc = new Rpc(config.rpcUrl, fetchImpl, input.batch ?? BATCH, input.signal);
  const site = await readSite(fetchImpl, input.site ?? "", input.challengeId, progress, input.signal);
  const chainId = Number(BigInt(String(await rpc.call("eth_chainId", []))));
  if (chainId !== config.chainId)
    throw new Unavailable(`the RPC node is on chain ${chainId}, the site on chain ${config.chainId}`);
  const pinned = input.pins[chainId];
  const pot = (pinned?.address ?? config.potAddress ?? "").toLowerCase();
  if (!/^0x[0-9a-f]{40}$/.test(pot))
    throw new Unavailable(`no pot is pinned for chain ${chainId}, and the site names none`);
  const chain: Chain = await readChain(rpc, {
    pot,
    challengeId: input.challengeId,
    fromBlock: pinned?.deployBlock ?? config.potDeployBlock,
    logRange: input.logRange ?? LOG_RANGE,
    progress,
  });
  const ctx: Context = {
    challengeId: input.challengeId,
    chainId,
    pot,
    decimals: config.tokenDecimals,
    sitePot: config.potAddress ?? "",
    site,
    chain,
    replay: replay(chain.events, { chainId, pot, challengeId: input.challengeId }),
    shown: new Map(),
  };
  progress("checks", 0, 1);
  const report = await runChecks(ctx, input.records ?? []);
  progress("checks", 1, 1);
  return {
    ok: report.ok,
    total: report.stakes,
    reproduced: report.reproduced,
    pot,
    unpinned: !pinned,
    lines: report.lines,
    differences: report.differences,
    stakes: stakeLines(ctx, new Set(report.differing)),
  };
}

/** The checks of docs/protocol.md section 5, in its order. */
async function runChecks(ctx: Context, records: StakeRecord[]): Promise<Report> {
  const report = new Report(ctx.replay.stakes.size);
  checkPot(ctx, report);
  if (!ctx.replay.opened) {
    report.differ(`challenge ${ctx.challengeId} was never opened in the pot ${ctx.pot}: it holds no terms for it`);
    return report;
  }
  await checkTerms(ctx, report);
  checkStakes(ctx, report);
  checkWinners(ctx, report);
  checkPublished(ctx, report);
  checkPayments(ctx, report);
  for (const record of records) checkRecord(ctx, record, report);
  return report;
}

/** One line per stake: who, how much, the guess (revealed on chain, else as published), the verdict
 * and what it got. */
function stakeLines(ctx: Context, differing: Set<number>): StakeLine[] {
  const r = ctx.replay;
  return [...r.stakes.values()].map((stake) => {
    const revealed = r.reveals.get(stake.seq);
    const point = revealed ? { latE6: revealed.args.lat, lonE6: revealed.args.lon } : ctx.shown.get(stake.seq);
    const verdict = point ? verdictOf(ctx, point) : null;
    let outcome =
      verdict === null ? "not scored" : `${verdictWord(verdict)}, ${revealed ? "revealed" : "not revealed"}`;
    if (r.finalized || r.refunds.has(stake.seq)) outcome += `; ${stakeMoney(ctx, stake).replace("it won", "won")}`;
    return {
      seq: stake.seq,
      payer: stake.payer,
      amount: usdc(stake.amount, ctx.decimals),
      guess: point ? textFromMicro(point) : null,
      outcome,
      differs: differing.has(stake.seq),
    };
  });
}

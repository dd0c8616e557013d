import type { Winner } from "@/api";
import { ExplorerLink } from "@/components/ExplorerLink";
import { formatDateTime, formatDistance, formatUsdc, formatStake } from "@/lib/format";

/** One of the two prize cards of the Winners' Circle: the response, its distance
 * and prize, and, once staff have paid it, the payout transaction on the explorer. */
export function WinnerCard({
  title,
  rule,
  winner,
  headingId,
}: {
  title: string;
  rule: string;
  winner: Winner;
  headingId: string;
}) {
  return (
    <article className="card winner-card" aria-labelledby={headingId}>
      <h4 id={headingId}>{title}</h4>
      <p className="winner-rule">{rule}</p>
      <dl className="fields">
        <dt>Response ID</dt>
        <dd>{winner.id}</dd>
        <dt>Challenge ID</dt>
        <dd>{winner.challengeId}</dd>
        <dt>Distance</dt>
        <dd>{formatDistance(winner.distanceMeters)}</dd>
        <dt>Coordinates</dt>
        <dd className="mono">{winner.submissionText ?? "Not revealed"}</dd>
        <dt>Staked</dt>
        <dd>{formatStake(winner.submissionStake)} USDC</dd>
        <dt>Timestamp</dt>
        <dd>{formatDateTime(winner.submissionTimestamp)}</dd>
        <dt>Transaction</dt>
        <dd className="mono">
          <ExplorerLink kind="tx" value={winner.transactionHash} />
        </dd>
        <dt>Submitter</dt>
        <dd className="mono">
          <ExplorerLink kind="address" value={winner.submitterAddress} />
        </dd>
        <dt>Prize</dt>
        <dd className="winner-prize">{formatUsdc(winner.prize)} USDC</dd>
        <dt>Payout</dt>
        <dd>
          {winner.payoutTransactionHash ? (
            <ExplorerLink kind="tx" value={winner.payoutTransactionHash}>
              View the payout transaction <span className="visually-hidden">of the {title.toLowerCase()}</span>
            </ExplorerLink>
          ) : (
            "Not paid yet"
          )}
        </dd>
      </dl>
    </article>
  );
}

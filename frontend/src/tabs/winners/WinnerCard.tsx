import type { Stake } from "@/api";
import { ExplorerLink } from "@/components/ExplorerLink";
import { formatDateTime, formatDistance, formatStake, formatUsdc } from "@/lib/format";

/** One of the two prize cards of the Winners' Circle: which prize it is, the stake, its distance,
 * the prize, whether the pot paid it (its Paid event), and "you" when the connected wallet won. */
export function WinnerCard({
  title,
  rule,
  winner,
  headingId,
  prize,
  paidIn,
  final,
  you,
}: {
  title: string;
  rule: string;
  winner: Stake;
  headingId: string;
  /** USDC, or null while the winners are not fixed. */
  prize: string | null;
  /** The pot's payment transaction, when paid. */
  paidIn: string | null;
  final: boolean;
  you: boolean;
}) {
  return (
    <article className="card winner-card" aria-labelledby={headingId}>
      <h4 id={headingId}>
        {title}
        {you ? (
          <>
            {" "}
            <span className="badge badge-active">You</span>
          </>
        ) : null}
      </h4>
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
          {winner.transactionHash ? <ExplorerLink kind="tx" value={winner.transactionHash} /> : "Not known"}
        </dd>
        <dt>Submitter</dt>
        <dd className="mono">
          <ExplorerLink kind="address" value={winner.submitterAddress} />
        </dd>
        <dt>Prize</dt>
        <dd className="winner-prize">{prize === null ? "Not fixed yet" : `${formatUsdc(prize)} USDC`}</dd>
        <dt>Payout</dt>
        <dd>
          {paidIn ? (
            <>
              Paid by the pot:{" "}
              <ExplorerLink kind="tx" value={paidIn}>
                view the payment <span className="visually-hidden">of the {title.toLowerCase()}</span>
              </ExplorerLink>
            </>
          ) : final ? (
            "Not paid yet: the pot pays it to the wallet that staked"
          ) : (
            "Not final yet"
          )}
        </dd>
      </dl>
    </article>
  );
}

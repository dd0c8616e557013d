import { useQuery } from "@tanstack/react-query";
import { ApiError } from "@/api/http";
import { responseStatusQuery } from "@/api/queries";
import { explorerLink, getPublicConfig } from "@/config";
import { formatStake, formatTimestamp } from "@/lib/format";
import { downloadOfflineRecord, removeSubmission, useSubmissions, type StoredSubmission } from "@/wallet/pending";

const LOCAL_STATE_TEXT: Record<StoredSubmission["state"], string> = {
  prepared: "Not paid: the transaction was not sent",
  sent: "Payment sent, waiting for the network",
  confirmed: "Payment confirmed, not yet recorded by Geopoem",
  "post-failed": "Payment made, not yet recorded by Geopoem: it is sent again on your next visit",
  failed: "The transaction failed: no payment was made",
  submitted: "Recorded by Geopoem",
};

function ServerStatus({ hash }: { hash: string }) {
  const { data, isPending, error } = useQuery(responseStatusQuery(hash));
  if (isPending) return <span>Checking status...</span>;
  if (error) {
    if (error instanceof ApiError && error.status === 404) return <span>Not recorded by Geopoem yet</span>;
    return <span>Status unavailable ({error.message})</span>;
  }
  return (
    <span>
      <span className={`status-${data.status}`}>{data.status[0]?.toUpperCase() + data.status.slice(1)}</span>
      {data.status === "rejected" && data.rejectionReason ? `: ${data.rejectionReason}` : null}
    </span>
  );
}

function SubmissionItem({ record }: { record: StoredSubmission }) {
  const config = getPublicConfig();
  const hash = record.transactionHash;
  return (
    <li className="submission">
      <dl className="fields">
        <dt>Challenge</dt>
        <dd>#{record.challengeId}</dd>
        <dt>Coordinates</dt>
        <dd className="mono">{record.text}</dd>
        <dt>Stake</dt>
        <dd>{formatStake(record.stake)} USDC</dd>
        <dt>Made</dt>
        <dd>{formatTimestamp(Math.floor(record.createdAt / 1000))}</dd>
        <dt>In this browser</dt>
        <dd>{LOCAL_STATE_TEXT[record.state]}</dd>
        {hash ? (
          <>
            <dt>Server status</dt>
            <dd>
              <ServerStatus hash={hash} />
            </dd>
          </>
        ) : null}
      </dl>
      <div className="submission-actions">
        {hash ? (
          <a href={explorerLink("tx", hash, config)} target="_blank" rel="noreferrer">
            View transaction <span className="visually-hidden">{hash}</span>
          </a>
        ) : null}
        <button
          type="button"
          className="link-button"
          onClick={() => downloadOfflineRecord({ ...record, chainId: record.chainId })}
        >
          Download record
        </button>
        {!hash ? (
          <button type="button" className="link-button" onClick={() => removeSubmission(record.salt)}>
            Remove
          </button>
        ) : null}
      </div>
    </li>
  );
}

/** "My submissions": this browser's guesses (from localStorage) with their server status
 * (GET /api/responses/{transactionHash}) and explorer links. */
export function MySubmissionsPanel() {
  const records = useSubmissions();
  return (
    <section className="card" aria-labelledby="my-submissions-heading">
      <h2 id="my-submissions-heading">My submissions</h2>
      {records.length === 0 ? (
        <p>No submissions from this browser yet.</p>
      ) : (
        <ul className="submissions">
          {records.map((record) => (
            <SubmissionItem key={record.salt} record={record} />
          ))}
        </ul>
      )}
    </section>
  );
}

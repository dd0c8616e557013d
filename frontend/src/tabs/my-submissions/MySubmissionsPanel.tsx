import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { ApiError } from "@/api/http";
import { activeChallengeQuery, claimsByAddressQuery, FOLLOW_INTERVAL_MS, responseStatusQuery } from "@/api/queries";
import type { ChallengeResponse, ClaimOutcome, PayoutStatus } from "@/api/types";
import { ExplorerLink } from "@/components/ExplorerLink";
import { guessCommitment } from "@/lib/commitment";
import { formatDistance, formatStake, formatDateTime, formatUsdc } from "@/lib/format";
import { getPublicConfig } from "@/config";
import { claimFollowInterval, planAt, useWalletHead } from "./following";
import { downloadOfflineRecord, removeSubmission, useSubmissions, type StoredSubmission } from "@/wallet/pending";
import { useConnectedAddress, useWalletProviderOrNull } from "@/wallet/WalletContext";

const LOCAL_STATE_TEXT: Record<StoredSubmission["state"], string> = {
  prepared: "Not paid: the transaction was not sent",
  sent: "Payment sent, waiting for the network",
  confirmed: "Payment confirmed, not yet recorded by Geopoem",
  "post-failed":
    "Payment made, not yet recorded by Geopoem: it is sent again automatically while this page is open and on your next visit",
  refused: "Payment made, refused by Geopoem: not sent again (keep the offline record and contact us)",
  failed: "The transaction failed: no payment was made",
  cancelled: "Cancelled in your wallet: no payment was made",
  submitted: "Recorded by Geopoem",
};

/** The record's guess commitment: it names this browser's claim among any others a stranger posted
 * on the same transaction. Kept in the record since it is sent; computed (once) for older records. */
function useRecordCommitment(record: StoredSubmission) {
  const { chainId, challengeId, submitterAddress, text, salt, commitment } = record;
  const computed = useQuery({
    queryKey: ["guess-commitment", chainId, challengeId, submitterAddress, text, salt],
    queryFn: () => guessCommitment({ chainId, challengeId, submitterAddress: submitterAddress ?? "", text, salt }),
    enabled: Boolean(submitterAddress) && !commitment,
    staleTime: Infinity,
  });
  return commitment ?? computed.data;
}

/** How long a web process may still serve the active challenge as it was before a change: its copy
 * is used only while a PING answered at most 1 s ago proves it hears every bump (docs/decisions.md,
 * "A copy in each process"). A read made at the moment a claim settles can fall in that second. */
export const SERVER_COPY_LAG_MS = 1500;

/** Read the active challenge again now, and once more after SERVER_COPY_LAG_MS: the first read can
 * be answered from a copy the confirmation's bump has not reached yet, and nothing else asks again
 * before the next poll (the card's total bids would contradict the "Confirmed" shown beside it). */
function useRereadActive() {
  const queryClient = useQueryClient();
  const timers = useRef<Set<ReturnType<typeof setTimeout>>>(new Set());
  useEffect(() => {
    const pending = timers.current;
    return () => pending.forEach((timer) => clearTimeout(timer));
  }, []);
  return () => {
    const reread = () => void queryClient.invalidateQueries({ queryKey: activeChallengeQuery().queryKey });
    reread();
    const timer = setTimeout(() => {
      timers.current.delete(timer);
      reread();
    }, SERVER_COPY_LAG_MS);
    timers.current.add(timer);
  };
}

/** When a claim of this page settles (confirmed or rejected) in an answer fetched while the page
 * shows it, the active challenge is read once more: a confirmation moves its total bids. That
 * includes a claim whose very first answer is already settled: the head watcher can confirm a claim
 * between the POST (after which the card was last read) and the page's first look-up. An unchanged
 * card costs a bodiless 304; a settled answer the query cache already held changes nothing. */
function useRereadActiveOnSettle(status: string | undefined, fetchedAfterMount: boolean) {
  const rereadActive = useRereadActive();
  const previous = useRef<string | undefined>(undefined);
  useEffect(() => {
    const was = previous.current;
    previous.current = status;
    const settled = status === "confirmed" || status === "rejected";
    if (settled && was !== status && fetchedAfterMount && was !== "confirmed" && was !== "rejected") {
      rereadActive();
    }
    // rereadActive is a new function each render; the rule reads only the status's change.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [status, fetchedAfterMount]);
}

function ServerStatus({ hash, record }: { hash: string; record: StoredSubmission }) {
  const commitment = useRecordCommitment(record);
  // A record without its address (none is written so, but a stored copy may be older) asks by hash alone.
  const own = record.submitterAddress ? commitment : undefined;
  // While the claim is pending, the wallet's head says when to ask quickly (following.ts).
  const { chainIdHex, confirmations } = getPublicConfig();
  const provider = useWalletProviderOrNull();
  // Pending as the query cache holds it: read at render, which every change of the answer causes
  // (the useQuery below subscribes this component to it).
  const queryClient = useQueryClient();
  const pending =
    queryClient.getQueryData<ChallengeResponse>(responseStatusQuery(hash, own).queryKey)?.status === "pending";
  const head = useWalletHead(provider, chainIdHex, record.inclusionBlock, confirmations, pending);
  const { data, isPending, error, isFetchedAfterMount, refetch } = useQuery({
    ...responseStatusQuery(hash, own),
    enabled: !record.submitterAddress || own !== undefined,
    refetchInterval: (query) =>
      claimFollowInterval(
        query.state.data,
        query.state.error,
        record.state,
        planAt(head, record.inclusionBlock, confirmations).statusMs,
      ) || payoutFollowInterval(query.state.data),
  });
  // The deep-enough block: asked at once, then every FAST_FOLLOW_MS for a short window.
  const deepAt = head.deepAt;
  useEffect(() => {
    if (deepAt !== null) void refetch();
  }, [deepAt, refetch]);
  const missing = error instanceof ApiError && error.status === 404;
  useRereadActiveOnSettle(missing ? "missing" : data?.status, isFetchedAfterMount);
  let status;
  if (isPending) status = <span>Checking status...</span>;
  else if (error) {
    status =
      error instanceof ApiError && error.status === 404 ? (
        <span>Not recorded by Geopoem yet</span>
      ) : (
        <span>Status unavailable ({error.message})</span>
      );
  } else status = statusText(data);
  return (
    <>
      <dt>Server status</dt>
      <dd>{status}</dd>
      {data?.outcome ? <OutcomeFields outcome={data.outcome} /> : null}
    </>
  );
}

function SubmissionItem({ record }: { record: StoredSubmission }) {
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
        <dd>{formatDateTime(Math.floor(record.createdAt / 1000))}</dd>
        <dt>In this browser</dt>
        <dd>{LOCAL_STATE_TEXT[record.state]}</dd>
        {record.state === "refused" && record.lastError ? (
          <>
            <dt>Why</dt>
            <dd>{record.lastError.replace(/^\d{3}: /, "")}</dd>
          </>
        ) : null}
        {record.replacedHashes?.length ? (
          <>
            <dt>Sped up</dt>
            <dd>Your wallet replaced the first transaction with this one: the same payment</dd>
          </>
        ) : null}
        {hash && record.state !== "cancelled" ? <ServerStatus hash={hash} record={record} /> : null}
      </dl>
      <div className="submission-actions">
        {hash ? (
          <ExplorerLink kind="tx" value={hash} plain={`Transaction ${hash}`}>
            View transaction <span className="visually-hidden">{hash}</span>
          </ExplorerLink>
        ) : null}
        <button
          type="button"
          className="link-button"
          onClick={() => downloadOfflineRecord({ ...record, chainId: record.chainId })}
        >
          Download record
        </button>
        {!hash || record.state === "cancelled" ? (
          <button type="button" className="link-button" onClick={() => removeSubmission(record.salt)}>
            Remove
          </button>
        ) : null}
      </div>
    </li>
  );
}

/** How often a claim is asked again while its prize is on its way (due, being verified, or its
 * recorded transaction failed): the page then never shows "Not paid yet" long after the Winners'
 * Circle shows it paid. Only a winner's claims are asked so, with an ETag (a 304 when unchanged). */
export const PAYOUT_FOLLOW_INTERVAL_MS = 30_000;
const PAYOUT_ON_ITS_WAY = new Set<PayoutStatus | null>(["due", "verifying", "failed"]);

export function payoutFollowInterval(claim: ChallengeResponse | undefined): number | false {
  return claim?.outcome && PAYOUT_ON_ITS_WAY.has(claim.outcome.payoutStatus) ? PAYOUT_FOLLOW_INTERVAL_MS : false;
}

const PAYOUT_TEXT: Record<PayoutStatus, string> = {
  due: "Not paid yet: it is sent to the wallet that paid the bid",
  verifying: "Sent, being verified on chain",
  paid: "Paid",
  failed: "Not paid yet: the recorded payout could not be verified on chain and is being sent again",
  kept: "Kept in the treasury",
};

/** A resolved claim's result (docs/protocol.md section 6, "What the player sees"): the verdict
 * and distance, the prize, and the payout with its transaction. Texts in docs/decisions.md,
 * "Outcome in My submissions". */
function OutcomeFields({ outcome }: { outcome: ClaimOutcome }) {
  const won = outcome.payoutStatus !== null;
  const hash = outcome.payoutTransactionHash;
  return (
    <>
      <dt>Result</dt>
      <dd>
        {outcome.isCorrect ? "Correct" : "Not correct"}: {formatDistance(outcome.distanceMeters)} from the solution
      </dd>
      <dt>Prize</dt>
      <dd>{won ? `${formatUsdc(outcome.prize)} USDC` : "None"}</dd>
      {won ? (
        <>
          <dt>Payout</dt>
          <dd>
            {PAYOUT_TEXT[outcome.payoutStatus!]}
            {hash ? (
              <>
                {": "}
                <ExplorerLink kind="tx" value={hash} plain={hash}>
                  View the payout transaction <span className="visually-hidden">{hash}</span>
                </ExplorerLink>
              </>
            ) : null}
          </dd>
        </>
      ) : null}
    </>
  );
}

function statusText(claim: ChallengeResponse) {
  return (
    <span>
      <span className={`status-${claim.status}`}>{claim.status[0]?.toUpperCase() + claim.status.slice(1)}</span>
      {claim.status === "rejected" && claim.rejectionReason ? `: ${claim.rejectionReason}` : null}
    </span>
  );
}

/** A claim the server holds for the connected address that this browser has no record of (made
 * in another browser, or its storage was cleared). Its coordinates stay hidden until resolution. */
function ServerOnlyItem({ claim }: { claim: ChallengeResponse }) {
  return (
    <li className="submission">
      <dl className="fields">
        <dt>Challenge</dt>
        <dd>#{claim.challengeId}</dd>
        <dt>Coordinates</dt>
        <dd className={claim.submissionText ? "mono" : undefined}>
          {claim.submissionText ?? "Hidden until the challenge is resolved"}
        </dd>
        <dt>Stake</dt>
        <dd>{formatStake(claim.submissionStake)} USDC</dd>
        {claim.submissionTimestamp ? (
          <>
            <dt>Paid</dt>
            <dd>{formatDateTime(claim.submissionTimestamp, "")}</dd>
          </>
        ) : null}
        <dt>In this browser</dt>
        <dd>No record: listed by Geopoem for your wallet</dd>
        <dt>Server status</dt>
        <dd>{statusText(claim)}</dd>
        {claim.outcome ? <OutcomeFields outcome={claim.outcome} /> : null}
      </dl>
      <div className="submission-actions">
        <ExplorerLink kind="tx" value={claim.transactionHash} plain={`Transaction ${claim.transactionHash}`}>
          View transaction <span className="visually-hidden">{claim.transactionHash}</span>
        </ExplorerLink>
      </div>
    </li>
  );
}

/** The same rule as useRereadActiveOnSettle for the address's list: when a claim it showed
 * pending comes back confirmed or rejected, the active challenge is read once more. */
function useRereadActiveWhenAnySettles(claims: ChallengeResponse[] | undefined) {
  const rereadActive = useRereadActive();
  const pendingBefore = useRef<Set<number>>(new Set());
  useEffect(() => {
    if (!claims) return;
    const settledNow = claims.some((claim) => claim.status !== "pending" && pendingBefore.current.has(claim.id));
    pendingBefore.current = new Set(claims.filter((claim) => claim.status === "pending").map((claim) => claim.id));
    if (settledNow) rereadActive();
    // rereadActive is a new function each render; the rule reads only the claims' change.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [claims]);
}

/** The connected wallet's claims from the server for transactions this browser has no record of.
 * A transaction this browser paid is shown by its own record only: the payment commits to that
 * record's guess, so a claim with another commitment on it (same hash and address, a stranger's,
 * waiting for verification to reject it) is not the player's and is never shown as theirs; the
 * same hash and commitment is the record itself. */
function useServerOnlyClaims(records: StoredSubmission[]): ChallengeResponse[] {
  const address = useConnectedAddress();
  const { data } = useQuery({
    ...claimsByAddressQuery(address ?? ""),
    enabled: Boolean(address),
    // Followed like this browser's own claims while one of them is pending.
    refetchInterval: (query) =>
      query.state.data?.some((claim) => claim.status === "pending")
        ? FOLLOW_INTERVAL_MS
        : query.state.data?.some((claim) => payoutFollowInterval(claim))
          ? PAYOUT_FOLLOW_INTERVAL_MS
          : false,
  });
  useRereadActiveWhenAnySettles(data);
  if (!address || !data) return [];
  const paidHere = new Set(
    records.flatMap((record) => (record.transactionHash ? [record.transactionHash.toLowerCase()] : [])),
  );
  return data.filter((claim) => !paidHere.has(claim.transactionHash.toLowerCase()));
}

/** "My submissions": this browser's guesses (from localStorage) with their server status
 * (GET /api/responses/{transactionHash}?commitment=..., so a stranger's claim on the same
 * transaction is never shown as the player's) and explorer links; with a wallet connected, also
 * that address's claims the server holds and this browser does not (GET /api/responses?address=),
 * so a player on another browser still sees what they paid for. */
export function MySubmissionsPanel() {
  const records = useSubmissions();
  const serverOnly = useServerOnlyClaims(records);
  return (
    <section className="card" aria-labelledby="my-submissions-heading">
      <h2 id="my-submissions-heading">My submissions</h2>
      {records.length === 0 && serverOnly.length === 0 ? (
        <p>No submissions from this browser yet.</p>
      ) : (
        <ul className="submissions">
          {records.map((record) => (
            <SubmissionItem key={record.salt} record={record} />
          ))}
          {serverOnly.map((claim) => (
            <ServerOnlyItem key={claim.id} claim={claim} />
          ))}
        </ul>
      )}
    </section>
  );
}

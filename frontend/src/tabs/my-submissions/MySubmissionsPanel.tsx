import { useQuery, useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useEffect, useRef } from "react";
import { ApiError } from "@/api/http";
import { claimsByAddressQuery, FOLLOW_INTERVAL_MS, responseStatusQuery } from "@/api/queries";
import type { ChallengeResponse } from "@/api/types";
import { ExplorerLink } from "@/components/ExplorerLink";
import { guessCommitment } from "@/lib/commitment";
import { formatStake, formatDateTime } from "@/lib/format";
import { getPublicConfig } from "@/config";
import {
  OutcomeFields,
  PAYOUT_FOLLOW_INTERVAL_MS,
  payoutFollowInterval,
  statusText,
  useRereadActive,
  useRereadActiveOnSettle,
} from "./claim-parts";
import { claimFollowInterval, planAt, useWalletHead } from "./following";
import { paymentText, relayText, SIGNATURE_ELSEWHERE } from "./relay-texts";
import {
  downloadOfflineRecord,
  isSigned,
  removeSubmission,
  useSubmissions,
  type StoredSubmission,
} from "@/wallet/pending";
import { useConnectedAddress, useWalletProviderOrNull } from "@/wallet/WalletContext";

export { PAYOUT_FOLLOW_INTERVAL_MS, payoutFollowInterval, SERVER_COPY_LAG_MS } from "./claim-parts";

// A stake paid by signature (its relay, "Send it yourself") loads only in a browser that has one:
// the first paint of every other visit does not carry it.
const SignedItem = lazy(() => import("./SignedItem").then((m) => ({ default: m.SignedItem })));

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
  // A stake paid by signature has texts of its own (signed-texts.ts); never shown here.
  signed: "Signed, not yet recorded by Geopoem",
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
  if (isSigned(record))
    return (
      <Suspense
        fallback={
          <li className="submission">
            {formatStake(record.stake)} USDC on #{record.challengeId}
          </li>
        }
      >
        <SignedItem record={record} />
      </Suspense>
    );
  return <TransferItem record={record} />;
}

function TransferItem({ record }: { record: StoredSubmission }) {
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

/** A claim the server holds for the connected address that this browser has no record of (made
 * in another browser, or its storage was cleared). Its coordinates stay hidden until resolution. */
function ServerOnlyItem({ claim }: { claim: ChallengeResponse }) {
  const hash = claim.transactionHash;
  const relay = claim.authorization;
  const stopped =
    claim.status === "pending" && !hash && (relay?.relayStatus === "refused" || relay?.relayStatus === "failed");
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
        {relay ? (
          <>
            <dt>Payment</dt>
            <dd>{paymentText(relay, false)}</dd>
          </>
        ) : null}
        <dt>In this browser</dt>
        <dd>No record: listed by Geopoem for your wallet</dd>
        <dt>Server status</dt>
        <dd>{statusText(claim)}</dd>
        {relay && claim.status !== "confirmed" ? (
          <>
            <dt>Sending</dt>
            <dd>{relayText(relay)}</dd>
          </>
        ) : null}
        {claim.outcome ? <OutcomeFields outcome={claim.outcome} /> : null}
      </dl>
      {stopped ? <p className="note">{SIGNATURE_ELSEWHERE}</p> : null}
      {hash ? (
        <div className="submission-actions">
          <ExplorerLink kind="tx" value={hash} plain={`Transaction ${hash}`}>
            View transaction <span className="visually-hidden">{hash}</span>
          </ExplorerLink>
        </div>
      ) : null}
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
  // A stake this browser signed is named by its commitment: its transaction may not be known yet.
  const signedHere = new Set(
    records.flatMap((record) => (isSigned(record) && record.commitment ? [record.commitment] : [])),
  );
  return data.filter((claim) =>
    claim.paymentMethod === "authorization"
      ? !signedHere.has(claim.commitment)
      : !paidHere.has((claim.transactionHash ?? "").toLowerCase()),
  );
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

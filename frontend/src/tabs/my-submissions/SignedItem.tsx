import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { ApiError } from "@/api/http";
import { authorizationClaimQuery, FOLLOW_INTERVAL_MS } from "@/api/queries";
import type { ChallengeResponse, ClaimAuthorization } from "@/api/types";
import { ExplorerLink } from "@/components/ExplorerLink";
import { getPublicConfig } from "@/config";
import { formatDateTime, formatStake } from "@/lib/format";
import {
  downloadOfflineRecord,
  parseBlockNumber,
  removeSubmission,
  updateSubmission,
  type StoredSubmission,
} from "@/wallet/pending";
import { followSelfSent, sendItYourself } from "@/wallet/self-send";
import type { EIP1193Provider } from "@/wallet/types";
import { useWalletOrNull, useWalletProviderOrNull } from "@/wallet/WalletContext";
import { OutcomeFields, payoutFollowInterval, statusText, useRereadActiveOnSettle } from "./claim-parts";
import { claimFollowInterval, planAt, useWalletHead } from "./following";
import {
  nextOfferChangeMs,
  paymentText,
  relayText,
  SELF_SEND,
  selfSendOffer,
  selfSentText,
  SIGNED_STATE_TEXT,
  type SelfSendWhy,
} from "./signed-texts";

/** A stake paid by signature in My submissions (docs/protocol.md 2a, 3.3a, 3.4c): followed by its
 * commitment (GET /api/responses/authorization/{commitment}) with its relay state in plain words,
 * never a dead end: when Geopoem's relay will not (or did not) put it on chain while the signature
 * is still valid, the player may send it themselves. */

/** The block of a transaction's receipt through the player's wallet, asked every
 * FOLLOW_INTERVAL_MS until it has one; undefined without a wallet on the configured chain. Once the
 * claim names its transaction, the head-driven schedule of following.ts applies as for a transfer. */
function useReceiptBlock(provider: EIP1193Provider | null, chainIdHex: string, hash: string | null) {
  const { data } = useQuery({
    queryKey: ["receipt-block", chainIdHex, hash],
    enabled: Boolean(provider && hash),
    staleTime: Infinity,
    queryFn: async () => {
      const chainId = await provider!.request({ method: "eth_chainId" });
      if (typeof chainId !== "string" || chainId.toLowerCase() !== chainIdHex.toLowerCase())
        throw new Error("another chain");
      const receipt = (await provider!.request({ method: "eth_getTransactionReceipt", params: [hash] })) as {
        blockNumber?: string;
      } | null;
      return parseBlockNumber(receipt?.blockNumber);
    },
    refetchInterval: (query) => (query.state.data === null ? FOLLOW_INTERVAL_MS : false),
  });
  return data ?? undefined;
}

/** Renders again when the offer of "Send it yourself" can change by time alone. */
function useOfferClock(record: StoredSubmission): number {
  const [now, setNow] = useState(() => Date.now());
  const wait = nextOfferChangeMs(record, now);
  useEffect(() => {
    if (wait === null) return;
    const timer = setTimeout(() => setNow(Date.now()), wait + 50);
    return () => clearTimeout(timer);
  }, [wait]);
  return now;
}

function RelayFields({ authorization }: { authorization: ClaimAuthorization }) {
  const hash = authorization.relayStatus === "sent" ? authorization.relayTransactionHash : null;
  return (
    <>
      <dt>Sending</dt>
      <dd>
        {relayText(authorization)}
        {hash ? (
          <>
            {": "}
            <ExplorerLink kind="tx" value={hash} plain={hash}>
              View Geopoem&apos;s transaction <span className="visually-hidden">{hash}</span>
            </ExplorerLink>
          </>
        ) : null}
      </dd>
    </>
  );
}

function ValidityField({ validBefore, now }: { validBefore: number; now: number }) {
  const expired = validBefore * 1000 <= now;
  return (
    <>
      <dt>Signature</dt>
      <dd>
        {expired
          ? `Expired at ${formatDateTime(validBefore)}: unless it was used before then, no USDC moved. You can submit your guess again.`
          : `Valid until ${formatDateTime(validBefore)}`}
      </dd>
    </>
  );
}

function SelfSentField({
  selfSent,
  claimHash,
}: {
  selfSent: NonNullable<StoredSubmission["selfSent"]>;
  /** The transaction the claim names: not linked twice. */
  claimHash: string | null;
}) {
  const hash = selfSent.hash && selfSent.hash.toLowerCase() !== claimHash?.toLowerCase() ? selfSent.hash : null;
  return (
    <>
      <dt>From your wallet</dt>
      <dd>
        {selfSentText(selfSent)}
        {hash ? (
          <>
            {": "}
            <ExplorerLink kind="tx" value={hash} plain={hash}>
              View your transaction <span className="visually-hidden">{hash}</span>
            </ExplorerLink>
          </>
        ) : null}
      </dd>
    </>
  );
}

/** The offer itself: what it does, that it needs ETH (said before the wallet is asked), the button. */
function SendItYourself({ record, why, relay }: { record: StoredSubmission; why: SelfSendWhy; relay: string }) {
  const wallet = useWalletOrNull();
  const [busy, setBusy] = useState(false);
  const race = relay === "queued" || relay === "sent";
  const onClick = async () => {
    setBusy(true);
    try {
      const provider = wallet ? await wallet.requireProvider() : null;
      await sendItYourself(record, {
        provider,
        config: getPublicConfig(),
        expectChainSwitch: wallet?.expectChainSwitch ?? (() => undefined),
      });
    } catch (error) {
      // The wallet's sentence is kept in the record ("From your wallet"); a chooser closed before any
      // wallet was asked has none yet.
      const message = error instanceof Error && error.message ? error.message : String(error);
      updateSubmission(record.salt, { selfSent: { state: "error", message } });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="self-send alert alert-info note">
      <p>
        {why === "slow" ? `${SELF_SEND.slow} ` : ""}
        {SELF_SEND.intro} {SELF_SEND.eth}
        {race ? ` ${SELF_SEND.race}` : ""}
      </p>
      <button type="button" className="button button-secondary" disabled={busy} onClick={() => void onClick()}>
        {busy ? "Sending..." : SELF_SEND.button}
      </button>
    </div>
  );
}

/** Follows the player's own transaction through the wallet until it is mined (the record says so). */
function useFollowSelfSent(record: StoredSubmission, provider: EIP1193Provider | null) {
  const hash = record.selfSent?.state === "sent" ? record.selfSent.hash : undefined;
  useQuery({
    queryKey: ["self-sent", hash],
    enabled: Boolean(provider && hash),
    queryFn: async () => (await followSelfSent(record, provider!)) ?? "waiting",
    refetchInterval: (query) => (query.state.data === "waiting" ? FOLLOW_INTERVAL_MS : false),
  });
}

export function SignedItem({ record }: { record: StoredSubmission }) {
  const { chainIdHex, confirmations } = getPublicConfig();
  const provider = useWalletProviderOrNull();
  const now = useOfferClock(record);
  const commitment = record.commitment ?? "";
  const signature = record.authorization?.signature;
  // Asked once signed (its POST's answer may have been lost); not when nothing reached Geopoem.
  const asks = Boolean(commitment && signature) && record.state !== "refused";
  const query = authorizationClaimQuery(commitment);
  const cached = useQueryClient().getQueryData<ChallengeResponse>(query.queryKey);
  const pending = cached?.status === "pending";
  // Before a transaction is known there is no block to watch: plain polling (following.ts).
  const inclusionBlock = useReceiptBlock(provider, chainIdHex, pending ? (cached?.transactionHash ?? null) : null);
  const head = useWalletHead(provider, chainIdHex, inclusionBlock, confirmations, pending);
  const { data, isPending, error, isFetchedAfterMount, refetch } = useQuery({
    ...query,
    enabled: asks,
    refetchInterval: (q) =>
      claimFollowInterval(
        q.state.data,
        q.state.error,
        record.state,
        planAt(head, inclusionBlock, confirmations).statusMs,
      ) || payoutFollowInterval(q.state.data),
  });
  const deepAt = head.deepAt;
  useEffect(() => {
    if (deepAt !== null) void refetch();
  }, [deepAt, refetch]);
  useFollowSelfSent(record, provider);
  const missing = error instanceof ApiError && error.status === 404;
  useRereadActiveOnSettle(missing ? "missing" : data?.status, isFetchedAfterMount);

  let status = null;
  if (asks) {
    if (isPending) status = <span>Checking status...</span>;
    else if (missing) status = <span>Not recorded by Geopoem yet</span>;
    else if (error) status = <span>Status unavailable ({error.message})</span>;
    else status = statusText(data);
  }
  const hash = data?.transactionHash ?? null;
  const settled = data?.status === "confirmed" || data?.status === "rejected";
  const validBefore = record.authorization?.validBefore;
  const selfSent = record.selfSent;
  const sentYourself = selfSent?.state === "sent" || selfSent?.state === "mined";
  // The signature's lifetime matters while nothing used it: not once the player's own is mined.
  const waiting = Boolean(signature) && !hash && !settled && record.state !== "refused" && selfSent?.state !== "mined";
  const offer = selfSendOffer(record, data, now);
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
        <dt>Payment</dt>
        <dd>{paymentText(data?.authorization, sentYourself)}</dd>
        <dt>In this browser</dt>
        <dd>{SIGNED_STATE_TEXT[record.state] ?? record.state}</dd>
        {record.state === "refused" && record.lastError ? (
          <>
            <dt>Why</dt>
            <dd>{record.lastError.replace(/^\d{3}: /, "")}</dd>
          </>
        ) : null}
        {status ? (
          <>
            <dt>Server status</dt>
            <dd>{status}</dd>
          </>
        ) : null}
        {data?.authorization && data.status !== "confirmed" ? <RelayFields authorization={data.authorization} /> : null}
        {waiting && validBefore !== undefined ? <ValidityField validBefore={validBefore} now={now} /> : null}
        {selfSent ? <SelfSentField selfSent={selfSent} claimHash={hash} /> : null}
        {data?.outcome ? <OutcomeFields outcome={data.outcome} /> : null}
      </dl>
      {offer && data?.authorization ? (
        <SendItYourself record={record} why={offer} relay={data.authorization.relayStatus} />
      ) : null}
      <div className="submission-actions">
        {hash ? (
          <ExplorerLink kind="tx" value={hash} plain={`Transaction ${hash}`}>
            View transaction <span className="visually-hidden">{hash}</span>
          </ExplorerLink>
        ) : null}
        <button
          type="button"
          className="link-button"
          onClick={() => downloadOfflineRecord({ ...record, transactionHash: hash ?? record.transactionHash })}
        >
          Download record
        </button>
        {record.state === "prepared" || record.state === "refused" ? (
          <button type="button" className="link-button" onClick={() => removeSubmission(record.salt)}>
            Remove
          </button>
        ) : null}
      </div>
    </li>
  );
}

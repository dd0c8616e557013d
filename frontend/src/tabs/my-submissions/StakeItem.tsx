import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { activeChallengeQuery, FOLLOW_INTERVAL_MS, isUnknownStake, stakeStatusQuery } from "@/api/queries";
import type { Stake } from "@/api/types";
import { ExplorerLink } from "@/components/ExplorerLink";
import { getPublicConfig } from "@/config";
import { formatDateTime, formatDistance, formatStake, formatUsdc } from "@/lib/format";
import { microDegrees } from "@/lib/protocol/coordinates";
import { unitsToDecimal } from "@/lib/stake";
import { postKeptGuess } from "@/wallet/keeper";
import { downloadOfflineRecord, removeStake, updateStake, type StoredStake } from "@/wallet/pending";
import { followOwnTransaction, revealFromWallet, sendItYourself } from "@/wallet/self-send";
import { useWalletOrNull, useWalletProviderOrNull } from "@/wallet/WalletContext";
import { planAt, stakeFollowInterval, useWalletHead } from "./following";
import { stakeOutcome, usePotView, type StakeOutcomeOnChain } from "./pot-view";
import {
  guessText,
  nextChangeMs,
  ownTransactionText,
  SELF_SEND,
  selfSendOffer,
  stakeStatus,
  type SelfSendWhy,
} from "./stake-status";

/** One stake in My submissions (docs/protocol.md 3.4): this browser's record, Geopoem's answer for
 * its commitment, and the pot's own events for its outcome. Either the record or Geopoem's stake
 * may be missing (a stake made in another browser). */

/** How long a web process may still serve the active challenge as it was before a change
 * (docs/decisions.md, "A copy in each process"): a read at the moment a stake is confirmed can fall in it. */
export const SERVER_COPY_LAG_MS = 1500;

const PRIZE_NAME = ["Earliest correct response", "Highest staked correct response"] as const;

/** Renders again when an offer can change by time alone. */
function useClock(record: StoredStake | undefined): number {
  const [now, setNow] = useState(() => Date.now());
  const wait = nextChangeMs(record, now);
  useEffect(() => {
    if (wait === null) return;
    const timer = setTimeout(() => setNow(Date.now()), wait + 50);
    return () => clearTimeout(timer);
  }, [wait]);
  return now;
}

/** When a stake shown here is confirmed in an answer fetched while the page shows it, the active
 * challenge is read again now and once more after SERVER_COPY_LAG_MS: its total bids move. */
function useRereadActiveOnConfirm(status: string | undefined, fetchedAfterMount: boolean) {
  const queryClient = useQueryClient();
  const previous = useRef<string | undefined>(undefined);
  useEffect(() => {
    const was = previous.current;
    previous.current = status;
    if (status !== "confirmed" || was === "confirmed" || !fetchedAfterMount) return;
    const reread = () => void queryClient.invalidateQueries({ queryKey: activeChallengeQuery().queryKey });
    reread();
    const timer = setTimeout(reread, SERVER_COPY_LAG_MS);
    return () => clearTimeout(timer);
  }, [status, fetchedAfterMount, queryClient]);
}

/** Follows the player's own transaction (Send it yourself, Reveal my guess) until it is mined. */
function useFollowOwn(record: StoredStake | undefined, field: "selfSent" | "reveal") {
  const provider = useWalletProviderOrNull();
  const hash = record?.[field]?.state === "sent" ? record[field]?.hash : undefined;
  useQuery({
    queryKey: ["own-transaction", field, hash],
    enabled: Boolean(record && hash),
    queryFn: async () =>
      (await followOwnTransaction(record!, field, { provider, config: getPublicConfig() })) ?? "waiting",
    refetchInterval: (query) => (query.state.data === "waiting" ? FOLLOW_INTERVAL_MS : false),
  });
}

function TransactionLink({ hash, label }: { hash: string; label: string }) {
  return (
    <ExplorerLink kind="tx" value={hash} plain={hash}>
      {label} <span className="visually-hidden">{hash}</span>
    </ExplorerLink>
  );
}

export function StakeItem({ record, listed }: { record?: StoredStake; listed?: Stake }) {
  const config = getPublicConfig();
  const provider = useWalletProviderOrNull();
  const now = useClock(record);
  const commitment = record?.commitment ?? listed?.commitment ?? "";
  const handedOver = Boolean(record && !["prepared", "refused", "failed"].includes(record.state));
  const query = stakeStatusQuery(commitment);
  const cached = useQueryClient().getQueryData<Stake>(query.queryKey);
  const pending = cached?.status === "pending";
  const head = useWalletHead(
    provider,
    config.chainIdHex,
    cached?.blockNumber ?? undefined,
    config.confirmations,
    pending,
  );
  const status = useQuery({
    ...query,
    enabled: Boolean(record) && handedOver && record!.state !== "signed",
    refetchInterval: (q) =>
      stakeFollowInterval(
        q.state.data,
        q.state.error,
        handedOver,
        planAt(head, q.state.data?.blockNumber ?? undefined, config.confirmations).statusMs,
      ),
  });
  const { refetch } = status;
  const deepAt = head.deepAt;
  useEffect(() => {
    if (deepAt !== null) void refetch();
  }, [deepAt, refetch]);
  const server = record ? status.data : listed;
  useRereadActiveOnConfirm(server?.status, status.isFetchedAfterMount);
  useFollowOwn(record, "selfSent");
  useFollowOwn(record, "reveal");

  const payer = record?.submitterAddress ?? listed?.submitterAddress;
  const challengeId = record?.challengeId ?? listed!.challengeId;
  const mayBeOnChain =
    Boolean(server?.id) ||
    server?.status === "pending" ||
    server?.status === "confirmed" ||
    Boolean(record && (record.state === "sent" || record.state === "staked" || record.selfSent?.state === "mined"));
  const pot = usePotView(challengeId, payer, { enabled: mayBeOnChain, provider });
  const guessPoint = record
    ? { latE6: BigInt(record.latE6), lonE6: BigInt(record.lonE6) }
    : listed?.submissionText
      ? microDegrees(listed.submissionText)
      : null;
  const outcome = pot.data ? stakeOutcome(pot.data, { commitment, guess: guessPoint }) : null;
  useEffect(() => {
    const staked = outcome?.staked;
    if (record && staked && (record.seq !== staked.seq || record.state === "sent"))
      updateStake(record.salt, { seq: staked.seq, transactionHash: staked.transactionHash, state: "staked" });
  }, [record, outcome?.staked]);

  const view = stakeStatus({
    record,
    server,
    unknownToSite: isUnknownStake(status.error),
    onChain: outcome?.staked,
    nowMs: now,
  });
  const offer = selfSendOffer(record, view, server, now);
  const confirmed = view.stage === "confirmed";
  const hash = outcome?.staked?.transactionHash ?? server?.transactionHash ?? record?.transactionHash ?? null;
  const text = record?.text ?? listed?.submissionText ?? null;
  const wallet = record?.paymentMethod ?? server?.paymentMethod;
  return (
    <li className="submission">
      <dl className="fields">
        <dt>Challenge</dt>
        <dd>#{challengeId}</dd>
        <dt>Coordinates</dt>
        <dd className={text ? "mono" : undefined}>{text ?? "Hidden until the solution is revealed"}</dd>
        <dt>Stake</dt>
        <dd>{formatStake(record?.stake ?? listed!.submissionStake)} USDC</dd>
        {record ? (
          <>
            <dt>Made</dt>
            <dd>{formatDateTime(Math.floor(record.createdAt / 1000))}</dd>
          </>
        ) : null}
        <dt>Payment</dt>
        <dd>
          {wallet === "approval"
            ? "Approved and staked from your wallet"
            : record?.selfSent
              ? "Signed, sent to the pot from your wallet"
              : "Signed: Geopoem's relayer puts it into the pot and pays the gas"}
        </dd>
        <dt>Status</dt>
        <dd>
          <span className={`status-${view.stage}`}>{view.text}</span>
          {server?.authorization?.relayStatus === "sent" && server.authorization.relayTransactionHash && !confirmed ? (
            <>
              {": "}
              <TransactionLink hash={server.authorization.relayTransactionHash} label="View Geopoem's transaction" />
            </>
          ) : null}
        </dd>
        {!record ? (
          <>
            <dt>In this browser</dt>
            <dd>No record: listed by Geopoem for your wallet</dd>
          </>
        ) : null}
        {["unsent", "refused", "failed", "expired"].includes(view.stage) ? null : (
          <>
            <dt>Guess</dt>
            <dd>{guessText(record, server, confirmed)}</dd>
          </>
        )}
        {record?.selfSent ? (
          <>
            <dt>From your wallet</dt>
            <dd>{ownTransactionText(record.selfSent)}</dd>
          </>
        ) : null}
        {outcome?.solution ? <OutcomeFields outcome={outcome} /> : null}
      </dl>
      {offer && record ? (
        <SendItYourself record={record} why={offer} relay={server?.authorization?.relayStatus} />
      ) : null}
      {record &&
      outcome?.staked &&
      outcome.solution &&
      outcome.correct &&
      outcome.beatsWinner &&
      outcome.guessWindowOpen ? (
        <RevealMyGuess record={record} seq={outcome.staked.seq} deadline={outcome.solution.guessDeadline} />
      ) : null}
      <div className="submission-actions">
        {hash ? <TransactionLink hash={hash} label="View transaction" /> : null}
        {record ? (
          <button
            type="button"
            className="link-button"
            onClick={() =>
              downloadOfflineRecord({
                ...record,
                transactionHash: hash ?? undefined,
                seq: outcome?.staked?.seq ?? record.seq,
              })
            }
          >
            Download record
          </button>
        ) : null}
        {record && view.removable ? (
          <button type="button" className="link-button" onClick={() => removeStake(record.salt)}>
            Remove
          </button>
        ) : null}
      </div>
    </li>
  );
}

/** The verdict, the distance, the reveal, and the prizes or the refund, from the pot's events. */
function OutcomeFields({ outcome }: { outcome: StakeOutcomeOnChain }) {
  const { correct, distanceMeters, revealed, solution, finalized, prizes, refundDue, refunded } = outcome;
  return (
    <>
      <dt>Result</dt>
      <dd>
        {correct === null ? "Not scored" : correct ? "Correct" : "Not correct"}
        {distanceMeters !== null ? `: ${formatDistance(distanceMeters)} from the solution` : ""}
      </dd>
      <dt>Revealed on chain</dt>
      <dd>{revealed ? "Yes" : "No"}</dd>
      {!finalized && !refundDue && solution ? (
        <>
          <dt>Winners</dt>
          <dd>
            {outcome.guessWindowOpen
              ? `Not fixed yet: a better correct guess may still be revealed until ${formatDateTime(solution.guessDeadline)}.`
              : "The guess window has closed: the winners are fixed once the pot is finalized."}
          </dd>
        </>
      ) : null}
      {finalized && !refundDue ? (
        <>
          <dt>Prize</dt>
          <dd>
            {prizes.length === 0
              ? "None"
              : prizes.map((prize) => (
                  <span key={prize.kind} className="prize-line">
                    {PRIZE_NAME[prize.kind]}: {formatUsdc(unitsToDecimal(prize.amount))} USDC,{" "}
                    {prize.paidIn ? (
                      <>
                        paid by the pot: <TransactionLink hash={prize.paidIn} label="View the payment" />
                      </>
                    ) : (
                      "not paid yet: the pot pays it to the wallet that staked"
                    )}
                  </span>
                ))}
          </dd>
        </>
      ) : null}
      {refundDue ? (
        <>
          <dt>Refund</dt>
          <dd>
            {refundDue === "aborted"
              ? "The solution was not revealed in time, so every stake is refunded with a share of the bond. "
              : "Nobody guessed correctly, so every stake is refunded. "}
            {refunded ? (
              <>
                {formatUsdc(unitsToDecimal(refunded.amount + refunded.bondShare))} USDC returned by the pot:{" "}
                <TransactionLink hash={refunded.transactionHash} label="View the refund" />
              </>
            ) : (
              "Not returned yet: the pot returns it to the wallet that staked."
            )}
          </dd>
        </>
      ) : null}
    </>
  );
}

/** The offer itself: what it does, that it needs ETH (said before the wallet is asked), the button. */
function SendItYourself({ record, why, relay }: { record: StoredStake; why: SelfSendWhy; relay: string | undefined }) {
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
      // The sentence is kept in the record ("From your wallet"); a chooser closed before any wallet
      // was asked has none yet.
      const message = error instanceof Error && error.message ? error.message : String(error);
      updateStake(record.salt, { selfSent: { state: "error", message } });
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

export const REVEAL = {
  intro:
    "Your correct guess would beat a winner on chain, but it is not revealed there yet. Reveal it before the guess window ends:",
  geopoem: "Reveal through Geopoem",
  wallet: "Reveal from my wallet",
  walletHint: "Sending it from your wallet needs a little ETH for gas.",
} as const;

/** "Reveal my guess" (docs/protocol.md section 2, "Reveals"): through Geopoem (the guess posted, its
 * worker reveals it) or sent from the player's wallet (`revealGuess`). */
function RevealMyGuess({ record, seq, deadline }: { record: StoredStake; seq: number; deadline: number }) {
  const wallet = useWalletOrNull();
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState<string | null>(null);
  const closing = record.guess.state === "closing";
  const throughGeopoem = async () => {
    setBusy(true);
    const verdict = await postKeptGuess(record);
    setSaid(
      verdict === "received"
        ? "Geopoem holds your guess: its worker reveals it in the pot."
        : verdict === "closing"
          ? "The guess window ends too soon for Geopoem: reveal it from your wallet."
          : verdict === "refused"
            ? "Geopoem refused it: reveal it from your wallet."
            : "Geopoem did not answer: try again, or reveal it from your wallet.",
    );
    setBusy(false);
  };
  const fromWallet = async () => {
    setBusy(true);
    try {
      const provider = wallet ? await wallet.requireProvider() : null;
      await revealFromWallet(record, seq, {
        provider,
        config: getPublicConfig(),
        expectChainSwitch: wallet?.expectChainSwitch ?? (() => undefined),
      });
      setSaid(null);
    } catch (error) {
      setSaid(error instanceof Error && error.message ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="reveal-guess alert alert-warning note">
      <p>
        {REVEAL.intro} {formatDateTime(deadline)}.
      </p>
      <p className="submission-actions">
        {closing ? null : (
          <button
            type="button"
            className="button button-secondary"
            disabled={busy}
            onClick={() => void throughGeopoem()}
          >
            {REVEAL.geopoem}
          </button>
        )}
        <button type="button" className="button button-secondary" disabled={busy} onClick={() => void fromWallet()}>
          {REVEAL.wallet}
        </button>
      </p>
      <p className="field-hint">{REVEAL.walletHint}</p>
      {record.reveal ? <p>From your wallet: {ownTransactionText(record.reveal)}</p> : null}
      {said ? <p role="status">{said}</p> : null}
    </div>
  );
}

import type { Stake, StakeAuthorization } from "@/api/types";
import { formatDateTime } from "@/lib/format";
import type { StoredStake } from "@/wallet/pending";
import type { StakeOnChain } from "./pot-view";

/** What My submissions says about one stake, in one line that never contradicts itself, and what it
 * offers (docs/protocol.md 3.4): pure, from this browser's record, Geopoem's answer and the pot. */

export type Stage =
  | "unsent"
  | "refused"
  | "failed"
  | "expired"
  | "signed"
  | "relaying"
  | "relay-stopped"
  | "sent"
  | "pending"
  | "confirmed";

export interface StakeStatusView {
  stage: Stage;
  text: string;
  /** Nothing of it is in the pot, and nothing will be: the row can go. */
  removable: boolean;
}

/** "Send it yourself" is offered a minute after Geopoem stored the signed stake if nothing is in the
 * pot yet, and at once when its relay refused or lost it (docs/protocol.md 3.4). */
export const SELF_SEND_AFTER_MS = 60_000;
/** The transaction must be mined before `validBefore`: not offered in the last half minute. */
export const SELF_SEND_MIN_REMAINING_MS = 30_000;

/** Failures after which the player's own transaction would still be taken while the signature is
 * valid: a lost nonce, and a token that refused for now (paused, or the payer blocked until
 * Circle lifts it); chain/relayer/reasons.py and chain/pot/errors.py name them. */
const RELAY_CODES_FOR_SELF_SEND = new Set(["lost", "token_paused", "payer_blacklisted"]);

function relayLine(relay: StakeAuthorization): string {
  const reason = relay.relayReason.trim();
  switch (relay.relayStatus) {
    case "queued":
      return "Relaying: Geopoem's relayer is putting your signed stake into the pot";
    case "sent":
      return "Relaying: sent by Geopoem's relayer, waiting for the chain";
    case "refused":
      return `Geopoem's relayer will not send it${reason ? `: ${reason}` : ""}`;
    case "failed":
      return `Not in the pot${reason ? `: ${reason}` : ""}. No USDC moved`;
    case "not_needed":
      return "Sent to the pot by someone else first";
  }
}

export function stakeStatus({
  record,
  server,
  unknownToSite,
  onChain,
  nowMs,
}: {
  record?: StoredStake | undefined;
  server?: Stake | undefined;
  /** Geopoem answered 404 for the commitment. */
  unknownToSite?: boolean;
  onChain?: StakeOnChain | null | undefined;
  nowMs: number;
}): StakeStatusView {
  const seq = onChain?.seq ?? server?.id ?? record?.seq ?? null;
  if (server?.status === "confirmed")
    return { stage: "confirmed", text: `Confirmed in the pot${seq ? ` (stake #${seq})` : ""}`, removable: false };
  if (onChain || server?.status === "pending")
    return {
      stage: "pending",
      text: `In the pot${seq ? ` (stake #${seq})` : ""}, waiting for confirmation`,
      removable: false,
    };
  if (record?.state === "prepared")
    return { stage: "unsent", text: "Not signed or sent: nothing was paid", removable: true };
  if (record?.state === "refused")
    return {
      stage: "refused",
      text: `Refused by Geopoem${record.lastError ? `: ${record.lastError.replace(/\.$/, "")}` : ""}. Nothing was paid`,
      removable: true,
    };
  if (record?.state === "failed")
    return { stage: "failed", text: "The transaction failed: nothing was staked", removable: true };
  const validBefore = record?.authorization?.validBefore ?? server?.authorization?.validBefore;
  const expired = validBefore !== undefined && validBefore * 1000 <= nowMs;
  const ownMined = record?.selfSent?.state === "mined";
  if (server?.status === "refused" || server?.status === "failed") {
    if (expired && !ownMined)
      return {
        stage: "expired",
        text: `The signature expired at ${formatDateTime(validBefore)} before it reached the pot: no USDC moved`,
        removable: true,
      };
    return {
      stage: "relay-stopped",
      text: server.authorization ? relayLine(server.authorization) : "Not in the pot. No USDC moved",
      removable: server.status === "failed",
    };
  }
  if (server?.status === "relaying" && server.authorization)
    return { stage: "relaying", text: relayLine(server.authorization), removable: false };
  if (record?.selfSent?.state === "sent" || record?.selfSent?.state === "mined" || record?.state === "sent")
    return { stage: "sent", text: "Sent from your wallet, waiting for the chain", removable: false };
  if (record?.state === "signed")
    return {
      stage: "signed",
      text: "Signed, not yet stored by Geopoem: it is sent again automatically while this page is open and on your next visit",
      removable: false,
    };
  if (expired)
    return {
      stage: "expired",
      text: `The signature expired at ${formatDateTime(validBefore)} before it reached the pot: no USDC moved`,
      removable: true,
    };
  if (record?.state === "relayed" && unknownToSite)
    return { stage: "relaying", text: "Stored by Geopoem, waiting for its relayer", removable: false };
  return { stage: "relaying", text: "Checking status...", removable: false };
}

export type SelfSendWhy = "relay-stopped" | "slow";

/** Whether "Send it yourself" is offered now, and why. */
export function selfSendOffer(
  record: StoredStake | undefined,
  view: StakeStatusView,
  server: Stake | undefined,
  nowMs: number,
): SelfSendWhy | null {
  const signed = record?.authorization;
  if (!record || !signed?.signature) return null;
  if (signed.validBefore * 1000 - nowMs < SELF_SEND_MIN_REMAINING_MS) return null;
  if (record.selfSent && ["sending", "sent", "mined"].includes(record.selfSent.state)) return null;
  if (view.stage === "relay-stopped") {
    const relay = server?.authorization;
    if (server?.status === "refused") return "relay-stopped";
    return relay && RELAY_CODES_FOR_SELF_SEND.has(relay.relayCode) ? "relay-stopped" : null;
  }
  if (view.stage !== "relaying") return null;
  const posted = record.postedAt ?? record.createdAt;
  return nowMs - posted >= SELF_SEND_AFTER_MS ? "slow" : null;
}

/** When the next decision of selfSendOffer or of the expiry can change by time alone, in ms from now. */
export function nextChangeMs(record: StoredStake | undefined, nowMs: number): number | null {
  const signed = record?.authorization;
  if (!record || !signed?.signature) return null;
  const times = [
    (record.postedAt ?? record.createdAt) + SELF_SEND_AFTER_MS,
    signed.validBefore * 1000 - SELF_SEND_MIN_REMAINING_MS,
    signed.validBefore * 1000,
  ].filter((t) => t > nowMs);
  return times.length ? Math.min(...times) - nowMs : null;
}

/** Where the guess is, for the "Guess" line. */
export function guessText(record: StoredStake | undefined, server: Stake | undefined, confirmed: boolean): string {
  if (record?.guess.state === "received" || server?.guessReceived) return "Guess received by Geopoem";
  if (!record) return "Kept only in the browser that made this stake";
  switch (record.guess.state) {
    case "refused":
      return `Geopoem refused it${record.guess.lastError ? `: ${record.guess.lastError}` : ""}`;
    case "closing":
      return "Geopoem can no longer reveal it in time: reveal it from your wallet below";
    default:
      return confirmed
        ? "Being sent to Geopoem (again automatically while this page is open)"
        : "Kept in this browser: sent to Geopoem once the stake is confirmed in the pot";
  }
}

export function ownTransactionText(own: NonNullable<StoredStake["selfSent"]>): string {
  switch (own.state) {
    case "sending":
      return "Waiting for your wallet...";
    case "sent":
      return "Sent, waiting for the chain";
    case "mined":
      return "On the chain";
    case "failed":
      return "Failed on the chain, so it changed nothing";
    case "error":
      return `Not sent: ${own.message ?? "unknown error"}`;
  }
}

export const SELF_SEND = {
  button: "Send it yourself",
  intro: "You can put your signed stake into the pot yourself: your wallet sends it to the pot's contract.",
  slow: "It is not in the pot a minute after Geopoem stored it.",
  eth: "This needs a little ETH for gas.",
  race: "If Geopoem's transaction gets there first, yours fails and costs only its gas.",
} as const;

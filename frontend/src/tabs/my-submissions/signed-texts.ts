import type { ChallengeResponse } from "@/api/types";
import type { StoredSubmission } from "@/wallet/pending";

/** What My submissions says about a stake paid by signature (docs/protocol.md 2a, 3.3a), and when
 * it offers "Send it yourself": pure, with the time passed in. Texts listed in docs/decisions.md. */

export { PAYMENT_TEXT, paymentText, relayText } from "./relay-texts";

/** "In this browser", for a stake paid by signature. */
export const SIGNED_STATE_TEXT: Partial<Record<StoredSubmission["state"], string>> = {
  prepared: "Not signed: nothing was paid",
  signed: "Signed, not yet recorded by Geopoem",
  "post-failed":
    "Signed, not yet recorded by Geopoem: it is sent again automatically while this page is open and on your next visit",
  refused: "Refused by Geopoem: nothing was paid",
  submitted: "Recorded by Geopoem",
};

/** A minute after the POST without a transaction, the player may send it themselves
 * (docs/protocol.md 3.3a, "Send it yourself"). */
export const SELF_SEND_AFTER_MS = 60_000;
/** The transaction must be mined before `validBefore`: not offered in the last half minute. */
export const SELF_SEND_MIN_REMAINING_MS = 30_000;

export type SelfSendWhy = "relay-stopped" | "slow";

/** Whether "Send it yourself" is offered now, and why: the relay refused or failed, or nothing is
 * on chain a minute after the POST; only for a claim Geopoem holds (else the payment would reach
 * the treasury unclaimed), still pending with no transaction known, with the signature in this
 * browser, valid long enough, and not already sent (or being sent) from here. */
export function selfSendOffer(
  record: StoredSubmission,
  claim: ChallengeResponse | undefined,
  nowMs: number,
): SelfSendWhy | null {
  const signed = record.authorization;
  const relay = claim?.authorization;
  if (!signed?.signature || record.state !== "submitted" || !claim || !relay) return null;
  if (claim.status !== "pending" || claim.transactionHash) return null;
  if (signed.validBefore * 1000 - nowMs < SELF_SEND_MIN_REMAINING_MS) return null;
  if (record.selfSent && ["sending", "sent", "mined"].includes(record.selfSent.state)) return null;
  if (relay.relayStatus === "refused" || relay.relayStatus === "failed") return "relay-stopped";
  const posted = record.postedAt ?? record.createdAt;
  return nowMs - posted >= SELF_SEND_AFTER_MS ? "slow" : null;
}

/** When the next decision of selfSendOffer can change by time alone (the minute after the POST, or
 * the end of the signature's use), in ms from now; null when time changes nothing more. */
export function nextOfferChangeMs(record: StoredSubmission, nowMs: number): number | null {
  const signed = record.authorization;
  if (!signed?.signature || record.state !== "submitted") return null;
  const times = [
    (record.postedAt ?? record.createdAt) + SELF_SEND_AFTER_MS,
    signed.validBefore * 1000 - SELF_SEND_MIN_REMAINING_MS,
    signed.validBefore * 1000,
  ].filter((t) => t > nowMs);
  return times.length ? Math.min(...times) - nowMs : null;
}

/** What the player's own submission came to ("From your wallet"). */
export function selfSentText(selfSent: NonNullable<StoredSubmission["selfSent"]>): string {
  switch (selfSent.state) {
    case "sending":
      return "Waiting for your wallet...";
    case "sent":
      return "Sent, waiting for the chain";
    case "mined":
      return "On the chain: Geopoem finds it there by itself";
    case "failed":
      return "Failed on the chain, so it moved no USDC (the signature was already used or had expired)";
    case "error":
      return `Not sent: ${selfSent.message ?? "unknown error"}`;
  }
}

export const SELF_SEND = {
  button: "Send it yourself",
  intro: "You can put your signed payment on the chain yourself: your wallet sends it to the USDC contract.",
  slow: "It is not on the chain a minute after Geopoem recorded it.",
  eth: "This needs a little ETH for gas. Geopoem then finds it on the chain by itself.",
  race: "If Geopoem's transaction gets there first, yours fails and costs only its gas.",
} as const;

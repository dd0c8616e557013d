import type { ClaimAuthorization } from "@/api/types";

/** The words for a stake paid by signature that My submissions needs on every visit (a claim the
 * server lists for the wallet); the rest loads with a record of one (signed-texts.ts). */

/** "Payment" for a stake paid by signature: who puts it on the chain, as far as the page knows. */
export const PAYMENT_TEXT = {
  relayed: "Signed payment: Geopoem puts it on the chain and pays the gas",
  yours: "Signed payment, sent to the chain from your wallet",
  plain: "Signed payment",
} as const;

export function paymentText(relay: ClaimAuthorization | null | undefined, selfSent: boolean): string {
  if (selfSent) return PAYMENT_TEXT.yours;
  if (relay?.relayStatus === "refused" || relay?.relayStatus === "failed" || relay?.relayStatus === "not_needed")
    return PAYMENT_TEXT.plain;
  return PAYMENT_TEXT.relayed;
}

/** The relay's state in plain words: the relay's own sentence when it gave one (why it refused or
 * failed, and what the player can do: chain/relay_reasons.py), else the page's; the transaction
 * (Geopoem's) is linked beside "sent". */
export function relayText(authorization: ClaimAuthorization): string {
  const reason = authorization.relayReason.trim();
  switch (authorization.relayStatus) {
    case "queued":
      return "Queued: Geopoem is sending it to the chain";
    case "sent":
      return "Sent by Geopoem, waiting for the chain";
    case "refused":
      return reason || "Geopoem will not send it";
    case "failed":
      return reason || "Geopoem could not send it";
    case "not_needed":
      return reason || "Already used on the chain: Geopoem did not need to send it";
  }
}

/** Whether the relay stopped in a way the player can get past by sending it themselves: every
 * refusal (a limit, the switch, its funds), and the failure of a transaction it lost (`relayCode`
 * "lost"). Other failures (cancelled, expired, the challenge closed, the balance gone, the token
 * refusing it) would only revert, or count late and keep the USDC. */
export function relayStoppedForSelfSend(authorization: ClaimAuthorization): boolean {
  if (authorization.relayStatus === "refused") return true;
  return authorization.relayStatus === "failed" && authorization.relayCode === "lost";
}

/** A claim listed for the wallet whose signature this browser does not hold. */
export const SIGNATURE_ELSEWHERE =
  "Your signature is kept only in the browser you signed it in: open Geopoem there to send it yourself. Unused, it expires and no USDC moves.";

import { signatureAvailable, signatureOffered } from "@/api/queries";
import type { PaymentsAuthorization } from "@/api/types";
import type { GuessEntry } from "@/wallet/flow";

/** The ways into the pot the confirm dialog offers (its chunk loads on demand; the form needs these
 * at once). */

export interface PendingGuess extends GuessEntry {
  challengeId: number;
  /** As the site shows them before the pot is read (null before it opened the challenge on chain). */
  termsDigest: string | null;
  termsSha256: string | null;
}

/** How the stake goes into the pot (docs/protocol.md section 2, "Stakes"): signed and relayed by
 * Geopoem (no ETH), signed and sent from the player's wallet, or approved and staked from it. */
export type StakeWay = "relay" | "self" | "approval";

export const PAY_CHOICE = {
  legend: "How to pay into the pot",
  relay: "Sign the stake (no ETH needed)",
  relayHint: "Geopoem's relayer puts your signed stake into the pot and pays the gas. It cannot change or redirect it.",
  self: "Sign it and send it yourself (needs ETH for gas)",
  selfHint: "Your wallet signs the stake and sends it to the pot in one transaction: nobody in between.",
  approval: "Approve and stake from your wallet (needs ETH for gas)",
  approvalHint:
    "Your wallet allows the pot to take the USDC, then sends the stake: one or two transactions. For wallets that cannot sign.",
  relayUnavailable:
    "Geopoem's relayer cannot send a signed stake right now, so paying without ETH is not available. Your wallet sends the stake, and you pay the gas in ETH.",
} as const;

/** The ways offered, first the default: the relayed signature where Geopoem's relay is on; else the
 * approval first and the signature sent yourself (docs/protocol.md 3.3). */
export function waysOffered(payments: PaymentsAuthorization | undefined): StakeWay[] {
  if (signatureOffered(payments)) return ["relay", "approval", "self"];
  if (signatureAvailable(payments)) return ["approval", "self"];
  return ["approval"];
}

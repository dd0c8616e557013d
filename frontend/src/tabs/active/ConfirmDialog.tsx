import { useId } from "react";
import { signatureOffered } from "@/api/queries";
import type { PaymentsAuthorization } from "@/api/types";
import { Dialog } from "@/components/Dialog";
import { getPublicConfig } from "@/config";
import { formatStake } from "@/lib/format";
import { downloadOfflineRecord, type PaymentMethod, type RecordAnchor } from "@/wallet/pending";
import "./confirm-dialog.css";

export interface PendingGuess {
  challengeId: number;
  text: string;
  stake: string;
  units: bigint;
  salt: string;
  /** The anchor of the terms on screen (absent for an unanchored challenge). */
  anchor?: RecordAnchor | undefined;
}

/** The texts of the choice between the two ways to pay (docs/protocol.md section 2 and 2a). */
export const PAY_CHOICE = {
  legend: "How to pay",
  signature: "Sign the payment (no ETH needed)",
  signatureHint: "Geopoem puts your signed payment on the chain and pays the gas.",
  transfer: "Send the transaction yourself (needs ETH for gas)",
  transferHint: "Your wallet sends the USDC transfer; you pay the gas in ETH.",
} as const;

/** "Confirm Solution Submission": the normalised coordinates and the stake, how to pay (a
 * signature first, where the token takes authorizations and the relay is on), the recommended
 * offline record (a real download), the next step, who gets the payout, and the terms. */
export function ConfirmDialog({
  guess,
  busy,
  progress = "",
  payments,
  method = "transfer",
  onMethodChange = () => undefined,
  notice,
  onCancel,
  onConfirm,
}: {
  guess: PendingGuess | null;
  busy: boolean;
  /** The payment flow's message while the dialog is still open (the account step). */
  progress?: string;
  /** GET /api/payments/authorization; undefined while unknown (then the transfer alone). */
  payments?: PaymentsAuthorization | undefined;
  /** The way to pay chosen; "authorization" only when it is offered. */
  method?: PaymentMethod;
  onMethodChange?: (method: PaymentMethod) => void;
  /** Why the dialog is shown again (the token turned the signature down). */
  notice?: string | undefined;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const config = getPublicConfig();
  const choiceId = useId();
  const offered = signatureOffered(payments);
  const signing = offered && method === "authorization";
  const minutes = payments ? Math.round(payments.validitySeconds / 60) : 0;
  return (
    <Dialog
      open={guess !== null}
      onOpenChange={(open) => {
        if (!open) onCancel();
      }}
      dismissible={!busy}
      className="confirm-dialog"
      title="Confirm Solution Submission"
      description="Please check your guess and your bid before you pay."
      actions={
        <>
          <button type="button" className="button button-secondary" onClick={onCancel} disabled={busy}>
            Cancel
          </button>
          <button type="button" className="button" onClick={onConfirm} disabled={busy}>
            {busy ? "Processing..." : "Confirm"}
          </button>
        </>
      }
    >
      {guess ? (
        <>
          <dl className="fields">
            <dt>Coordinates</dt>
            <dd className="mono">{guess.text}</dd>
            <dt>Stake</dt>
            <dd>{formatStake(guess.stake)} USDC</dd>
          </dl>
          {notice ? (
            <p className="alert alert-info note" role="status">
              {notice}
            </p>
          ) : null}
          {offered ? (
            <fieldset className="pay-choice" disabled={busy}>
              <legend>{PAY_CHOICE.legend}</legend>
              {(
                [
                  ["authorization", PAY_CHOICE.signature, PAY_CHOICE.signatureHint],
                  ["transfer", PAY_CHOICE.transfer, PAY_CHOICE.transferHint],
                ] as const
              ).map(([value, label, hint]) => (
                <label key={value} className="pay-option">
                  <input
                    type="radio"
                    name={choiceId}
                    value={value}
                    checked={method === value}
                    onChange={() => onMethodChange(value)}
                    aria-labelledby={`${choiceId}-${value}-label`}
                    aria-describedby={`${choiceId}-${value}-hint`}
                  />
                  <span id={`${choiceId}-${value}-label`} className="pay-option-label">
                    {label}
                  </span>
                  <span id={`${choiceId}-${value}-hint`} className="field-hint">
                    {hint}
                  </span>
                </label>
              ))}
            </fieldset>
          ) : payments?.token ? (
            // The token takes signatures but the relay cannot send one now: say why ETH is needed. (The
            // relay's reason is a sentence for a refused claim: it tells a player to send a signed payment
            // themselves, which means nothing before anything is signed.)
            <p className="note">
              Paying by signature (no ETH needed) is not available right now. Your wallet sends the transaction, and you
              pay the gas in ETH.
            </p>
          ) : null}
          <ul className="notes">
            <li>
              <strong>Recommended:</strong> keep an offline record of your guess. It holds your coordinates and the
              secret salt that proves them once the challenge is resolved.{" "}
              <button
                type="button"
                className="link-button"
                onClick={() =>
                  downloadOfflineRecord({
                    ...guess,
                    chainId: config.chainId,
                    paymentMethod: signing ? "authorization" : "transfer",
                  })
                }
              >
                Download offline record
              </button>
            </li>
            {signing ? (
              <li>
                Next step: your wallet asks you to select an account, switch to the {config.chainName} network and sign
                a payment of {formatStake(guess.stake)} USDC to the Geopoem treasury. Geopoem decides when it reaches
                the chain, usually within a block; your signature is valid for {minutes} minutes.
              </li>
            ) : (
              <li>
                Next step: your wallet asks you to select an account, switch to the {config.chainName} network and
                approve a transfer of {formatStake(guess.stake)} USDC.
              </li>
            )}
            <li>The wallet address that pays the bid receives any payout.</li>
            <li>By confirming you accept the terms in the Legal &amp; Terms tab; please read them first.</li>
          </ul>
          {busy && progress ? (
            <p className="dialog-progress" role="status">
              {progress}
            </p>
          ) : null}
        </>
      ) : null}
    </Dialog>
  );
}

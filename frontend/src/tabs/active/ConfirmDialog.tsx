import { useId } from "react";
import { signatureAvailable, signatureOffered } from "@/api/queries";
import { PAY_CHOICE, waysOffered, type PendingGuess, type StakeWay } from "./pay-ways";
import type { PaymentsAuthorization } from "@/api/types";
import { Dialog } from "@/components/Dialog";
import { getPublicConfig } from "@/config";
import { formatStake } from "@/lib/format";
import { downloadOfflineRecord } from "@/wallet/pending";
import "./confirm-dialog.css";

/** "Confirm Solution Submission": the normalised coordinates and the stake, how to pay, the
 * recommended offline record (a real download), the next step, who gets the payout, and the terms. */
export function ConfirmDialog({
  guess,
  busy,
  progress = "",
  payments,
  way,
  onWayChange = () => undefined,
  onCancel,
  onConfirm,
}: {
  guess: PendingGuess | null;
  busy: boolean;
  /** The flow's message while the dialog is still open (the account step). */
  progress?: string;
  /** GET /api/payments/authorization; undefined while unknown (then the approval alone). */
  payments?: PaymentsAuthorization | undefined;
  way: StakeWay;
  onWayChange?: (way: StakeWay) => void;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const config = getPublicConfig();
  const choiceId = useId();
  const ways = waysOffered(payments);
  const minutes = payments ? Math.round(payments.validitySeconds / 60) : 0;
  const labels: Record<StakeWay, [string, string]> = {
    relay: [PAY_CHOICE.relay, PAY_CHOICE.relayHint],
    self: [PAY_CHOICE.self, PAY_CHOICE.selfHint],
    approval: [PAY_CHOICE.approval, PAY_CHOICE.approvalHint],
  };
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
          {signatureAvailable(payments) && !signatureOffered(payments) ? (
            <p className="note">{PAY_CHOICE.relayUnavailable}</p>
          ) : null}
          {ways.length > 1 ? (
            <fieldset className="pay-choice" disabled={busy}>
              <legend>{PAY_CHOICE.legend}</legend>
              {ways.map((value) => (
                <label key={value} className="pay-option">
                  <input
                    type="radio"
                    name={choiceId}
                    value={value}
                    checked={way === value}
                    onChange={() => onWayChange(value)}
                    aria-labelledby={`${choiceId}-${value}-label`}
                    aria-describedby={`${choiceId}-${value}-hint`}
                  />
                  <span id={`${choiceId}-${value}-label`} className="pay-option-label">
                    {labels[value][0]}
                  </span>
                  <span id={`${choiceId}-${value}-hint`} className="field-hint">
                    {labels[value][1]}
                  </span>
                </label>
              ))}
            </fieldset>
          ) : null}
          <ul className="notes">
            <li>
              <strong>Recommended:</strong> keep an offline record of your guess. It holds your coordinates and the
              secret salt that prove them; this browser keeps them too and sends them to Geopoem only once your stake is
              in the pot.{" "}
              <button
                type="button"
                className="link-button"
                onClick={() =>
                  downloadOfflineRecord({
                    ...guess,
                    site: globalThis.location?.origin ?? "",
                    chainId: config.chainId,
                    pot: config.potAddress,
                    amountUnits: guess.units.toString(),
                    latE6: guess.latE6.toString(),
                    lonE6: guess.lonE6.toString(),
                    paymentMethod: way === "approval" ? "approval" : "authorization",
                  })
                }
              >
                Download offline record
              </button>
            </li>
            {way === "relay" ? (
              <li>
                Next step: your wallet asks you to select an account, switch to the {config.chainName} network and sign
                a stake of {formatStake(guess.stake)} USDC into the Geopoem pot. Geopoem's relayer puts it on the chain,
                usually within a block; your signature is valid for {minutes} minutes, and you can send it yourself if
                it is not.
              </li>
            ) : way === "self" ? (
              <li>
                Next step: your wallet asks you to select an account, switch to the {config.chainName} network, sign a
                stake of {formatStake(guess.stake)} USDC into the Geopoem pot and send it.
              </li>
            ) : (
              <li>
                Next step: your wallet asks you to select an account, switch to the {config.chainName} network, allow
                the Geopoem pot to take {formatStake(guess.stake)} USDC, and send the stake.
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

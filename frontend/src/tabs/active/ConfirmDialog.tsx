import { Dialog } from "@/components/Dialog";
import { getPublicConfig } from "@/config";
import { formatStake } from "@/lib/format";
import { downloadOfflineRecord, type RecordAnchor } from "@/wallet/pending";

export interface PendingGuess {
  challengeId: number;
  text: string;
  stake: string;
  units: bigint;
  salt: string;
  /** The anchor of the terms on screen (absent for an unanchored challenge). */
  anchor?: RecordAnchor | undefined;
}

/** "Confirm Solution Submission": the normalised coordinates and the stake, the recommended
 * offline record (a real download), the next step, who gets the payout, and the terms. */
export function ConfirmDialog({
  guess,
  busy,
  progress = "",
  onCancel,
  onConfirm,
}: {
  guess: PendingGuess | null;
  busy: boolean;
  /** The payment flow's message while the dialog is still open (the account step). */
  progress?: string;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const config = getPublicConfig();
  return (
    <Dialog
      open={guess !== null}
      onOpenChange={(open) => {
        if (!open) onCancel();
      }}
      dismissible={!busy}
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
          <ul className="notes">
            <li>
              <strong>Recommended:</strong> keep an offline record of your guess. It holds your coordinates and the
              secret salt that proves them once the challenge is resolved.{" "}
              <button
                type="button"
                className="link-button"
                onClick={() => downloadOfflineRecord({ ...guess, chainId: config.chainId })}
              >
                Download offline record
              </button>
            </li>
            <li>
              Next step: your wallet asks you to select an account, switch to the {config.chainName} network and approve
              a transfer of {formatStake(guess.stake)} USDC.
            </li>
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

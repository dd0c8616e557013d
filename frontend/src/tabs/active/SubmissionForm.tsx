import { useQuery, useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useId, useState, type ComponentType, type FormEvent } from "react";
import { flushSync } from "react-dom";
import { paymentsAuthorizationQuery, refreshAfterClaim, signatureOffered } from "@/api/queries";
import { toast } from "@/components/toast-store";
import { explorerLink, getPublicConfig } from "@/config";
import { newSalt } from "@/lib/commitment";
import { COORDINATES_MESSAGE, parseCoordinates } from "@/lib/coordinates";
import { parseStake } from "@/lib/stake";
import { WalletError } from "@/wallet/errors";
import { PROGRESS, SubmissionError, submitGuess } from "@/wallet/flow";
import { OpenInWalletApp } from "@/wallet/OpenInWalletApp";
import type { PaymentMethod, RecordAnchor } from "@/wallet/pending";
import { useWallet } from "@/wallet/WalletContext";
import type { PendingGuess } from "./ConfirmDialog";
import { CoordinatesAddon as DefaultAddon, type CoordinatesAddonProps } from "./CoordinatesAddon";

// The dialogs (and Radix Dialog) are lazy chunks: the first paint does not wait for them.
const ConfirmDialog = lazy(() => import("./ConfirmDialog").then((m) => ({ default: m.ConfirmDialog })));
const AccountHelpDialog = lazy(() => import("./AccountHelpDialog").then((m) => ({ default: m.AccountHelpDialog })));
const preloadDialogs = () => {
  void import("./ConfirmDialog");
};

export const SUBMIT_LABEL = "Submit Your Solution & Pay Your Bid";

// The stake paid by signature (and ethers' typed-data-free flow with it) loads on Confirm.
const loadSigned = () => import("@/wallet/signed");

/** The steps during which the confirm dialog stays open (with "Processing..."): the player is
 * choosing an account in the wallet. */
const ACCOUNT_STEP = new Set<string>([PROGRESS.connecting, PROGRESS.selectAccount]);

/** Resolves once the browser has painted a frame (rAF runs before the paint, the timeout after). */
const afterPaint = () =>
  new Promise<void>((resolve) => {
    if (typeof requestAnimationFrame === "function") requestAnimationFrame(() => setTimeout(resolve, 0));
    else setTimeout(resolve, 0);
  });

/** The right card: coordinates and bid, validation toasts, the confirm dialog, then the
 * wallet payment and the claim (the spec's Active Challenge tab, payment sequence and validation rules). */
export function SubmissionForm({
  challengeId,
  anchor,
  coordinatesAddon = DefaultAddon,
}: {
  challengeId: number;
  /** The anchor of the terms the card shows, kept in the record of a guess paid here. */
  anchor?: RecordAnchor | undefined;
  /** The map beside the coordinates field (see CoordinatesAddon.tsx). */
  coordinatesAddon?: ComponentType<CoordinatesAddonProps> | null;
}) {
  const config = getPublicConfig();
  const queryClient = useQueryClient();
  const wallet = useWallet();
  const [coordinates, setCoordinates] = useState("");
  const [stake, setStake] = useState("");
  const [guess, setGuess] = useState<PendingGuess | null>(null);
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState("");
  const [helpOpen, setHelpOpen] = useState(false);
  // How to pay (the dialog's choice) and why the dialog is shown again, if it is.
  // null until the player picks one: the signature where it is offered, also when the offer's answer
  // arrives after the dialog opened (a player quick to submit), else the transfer.
  const [chosenMethod, setMethod] = useState<PaymentMethod | null>(null);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const payments = useQuery(paymentsAuthorizationQuery()).data;
  const offered = signatureOffered(payments);
  const method: PaymentMethod = chosenMethod ?? (offered ? "authorization" : "transfer");
  const coordinatesId = useId();
  const stakeId = useId();
  const Addon = coordinatesAddon;
  const treasuryLink = explorerLink("address", config.treasuryAddress, config);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const parsed = parseCoordinates(coordinates);
    if (!parsed) {
      toast({ title: "Incorrect Coordinates", description: COORDINATES_MESSAGE });
      return;
    }
    const amount = parseStake(stake, { minimum: config.minStake, maximum: config.maxStake, step: config.stakeStep });
    if (!amount.ok) {
      toast({ title: "Invalid Stake Amount", description: amount.message });
      return;
    }
    // The salt is made now so the offline record offered in the dialog already holds it.
    setMethod(null);
    setNotice(undefined);
    setGuess({
      challengeId,
      text: parsed.text,
      stake: amount.amount,
      units: amount.units,
      salt: newSalt(),
      ...(anchor ? { anchor } : {}),
    });
  };

  const onConfirm = async () => {
    if (!guess || busy) return;
    const current = guess;
    // The dialog stays open, its Confirm button showing "Processing..." (spec), while the wallet
    // is asked for the account; it closes once that step is done, and the form's button carries
    // the progress from there on (docs/decisions.md, "Confirm shows "Processing..."").
    setBusy(true);
    // Several wallets and none chosen yet: the wallet chooser (a dialog of its own) comes first, and
    // two modal dialogs must not stack.
    if (!wallet.wallet && wallet.wallets.length > 1) setGuess(null);
    // Shown again after the finally below (the token turned the signature down): same guess.
    let again: PendingGuess | null = null;
    // The signature, when chosen and offered: the answer of GET /api/payments/authorization with its token.
    const signing =
      method === "authorization" && offered && payments?.token ? { ...payments, token: payments.token } : null;
    try {
      const provider = await wallet.requireProvider();
      const flowOptions = {
        provider,
        config,
        // Each message is put on screen and painted before the flow goes on: the spec shows them
        // all in order, also those the next step would replace at once.
        onProgress: (message: string) => {
          flushSync(() => {
            setProgress(message);
            if (!ACCOUNT_STEP.has(message)) setGuess(null);
          });
          return afterPaint();
        },
        expectChainSwitch: wallet.expectChainSwitch,
        // The header shows the account the player just picked, also while the wallet asks to pay.
        onAccount: wallet.setAddress,
      };
      const signed = signing ? await loadSigned() : null;
      const result =
        signed && signing
          ? await signed.submitSignedGuess(current, {
              ...flowOptions,
              payments: signing,
              // The wallet cannot sign typed data: it asks for a transaction next; say why first.
              onFallback: () => toast(signed.SIGNED_TOASTS.fallback),
            })
          : await submitGuess(current, flowOptions);
      wallet.setAddress(result.submitterAddress);
      toast({
        title: "Solution Submitted",
        description: "Your solution has been submitted successfully!",
        variant: "success",
      });
      setCoordinates("");
      setStake("");
      await refreshAfterClaim(queryClient);
    } catch (error) {
      const signed = signing ? await loadSigned() : null;
      if (signed && error instanceof signed.AuthorizationsNotAccepted) {
        // Nothing was recorded or paid: the same guess again, to pay by transaction.
        void queryClient.invalidateQueries({ queryKey: paymentsAuthorizationQuery().queryKey });
        again = current;
      } else if (error instanceof SubmissionError && error.retrying) {
        // Paid (or signed), and the claim is kept and sent again (wallet/keeper.ts): not a failure
        // the player must act on, and the form is cleared as after a success so the guess is not
        // paid twice.
        toast({
          title: "Submission Delayed",
          description:
            signed && error.signed
              ? signed.SIGNED_TOASTS.delayed
              : 'Your payment is confirmed. Geopoem has not recorded your solution yet; it is sent again automatically. See "My submissions".',
        });
        setCoordinates("");
        setStake("");
      } else if (error instanceof SubmissionError) {
        toast({
          title: "Submission Failed",
          description: error.message || "Failed to submit solution",
          variant: "destructive",
        });
      } else if (error instanceof WalletError && error.kind === "selectAccount") {
        toast({ title: "Account Selection Required", description: "Please select an account in MetaMask to continue" });
      } else if (
        error instanceof WalletError &&
        (error.kind === "signatureRejected" || error.kind === "signatureFailed")
      ) {
        toast({ title: "Signature Failed", description: error.message, variant: "destructive" });
      } else {
        // Red like every other failure (the spec's catalogue marks it as no variant at all).
        toast({
          title: "Transaction Failed",
          description: (error instanceof Error && error.message) || "Failed to process payment",
          variant: "destructive",
        });
      }
      if (again && error instanceof Error) {
        setMethod("transfer");
        setNotice(`${error.message} ${signed?.SIGNED_TOASTS.notAccepted ?? ""}`);
      }
    } finally {
      setGuess(again);
      setBusy(false);
      setProgress("");
    }
  };

  return (
    <section className="card" aria-labelledby="submit-heading">
      <h2 id="submit-heading">Submit your solution</h2>
      <form onSubmit={onSubmit} onFocus={preloadDialogs} noValidate>
        <div className="form-field">
          <label htmlFor={coordinatesId}>Coordinates (latitude, longitude)</label>
          <input
            id={coordinatesId}
            name="coordinates"
            type="text"
            inputMode="decimal"
            autoComplete="off"
            placeholder="29.979175, 31.134258"
            aria-describedby={`${coordinatesId}-hint`}
            value={coordinates}
            onChange={(e) => setCoordinates(e.target.value)}
            disabled={busy}
            required
          />
          <p id={`${coordinatesId}-hint`} className="field-hint">
            Example: 29.979175, 31.134258
          </p>
          {Addon ? (
            <Suspense fallback={null}>
              <Addon value={coordinates} onChange={setCoordinates} disabled={busy} inputId={coordinatesId} />
            </Suspense>
          ) : null}
        </div>
        <div className="form-field">
          <label htmlFor={stakeId}>USDC bid amount</label>
          <input
            id={stakeId}
            name="stake"
            type="number"
            inputMode="decimal"
            min="1"
            step={config.stakeStep}
            placeholder="1.00"
            aria-describedby={`${stakeId}-hint`}
            value={stake}
            onChange={(e) => setStake(e.target.value)}
            disabled={busy}
            required
          />
          <p id={`${stakeId}-hint`} className="field-hint">
            Minimum bid: 1.00 USDC
          </p>
        </div>
        <div className="alert alert-info note">
          <strong>Payment information:</strong> your bid is paid in test USDC on the {config.chainName} test network to
          the Geopoem treasury
          {treasuryLink ? (
            <>
              ,{" "}
              <a href={treasuryLink} target="_blank" rel="noreferrer">
                view the treasury on the block explorer
              </a>
            </>
          ) : (
            // A chain without an explorer (a local chain): the address itself, not a dead link.
            <>
              {" "}
              at <span className="mono break">{config.treasuryAddress}</span>
            </>
          )}
          .{" "}
          {offered
            ? "Sign the payment and you need no ETH: Geopoem pays the gas. Sending the transaction yourself needs a little test ETH for gas."
            : "You also need a little test ETH for gas."}
        </div>
        <div className="alert alert-warning note warning-block">
          <strong>Warning:</strong> stakes are final and non-refundable. Submitted solutions cannot be changed.
          Confirmed transactions are irreversible.
        </div>
        <p>
          <button type="button" className="link-button" onClick={() => setHelpOpen(true)}>
            How do I select my account in MetaMask?
          </button>
        </p>
        <OpenInWalletApp />
        <button type="submit" className="button button-block" disabled={busy}>
          {busy ? (
            <>
              <span className="spinner" aria-hidden="true" />
              <span>{progress || "Processing Transaction..."}</span>
            </>
          ) : (
            SUBMIT_LABEL
          )}
        </button>
        <p className="visually-hidden" role="status" aria-live="polite">
          {busy ? progress || "Processing Transaction..." : ""}
        </p>
      </form>
      <Suspense fallback={null}>
        {guess ? (
          <ConfirmDialog
            guess={guess}
            busy={busy}
            progress={progress}
            payments={payments}
            method={method}
            onMethodChange={setMethod}
            notice={notice}
            onCancel={() => setGuess(null)}
            onConfirm={() => void onConfirm()}
          />
        ) : null}
        {helpOpen ? <AccountHelpDialog open={helpOpen} onOpenChange={setHelpOpen} /> : null}
      </Suspense>
    </section>
  );
}

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useEffect, useId, useState, type ComponentType, type FormEvent } from "react";
import { flushSync } from "react-dom";
import { paymentsAuthorizationQuery, refreshAfterStake, signatureOffered } from "@/api/queries";
import type { Challenge } from "@/api/types";
import { ExplorerLink } from "@/components/ExplorerLink";
import { toast } from "@/components/toast-store";
import { getPublicConfig, potPin, potPinSentence } from "@/config";
import { newSalt } from "@/lib/commitment";
import { COORDINATES_MESSAGE, parseCoordinates } from "@/lib/coordinates";
import { formatStake } from "@/lib/format";
import { PREFLIGHT, StakeRefused } from "@/lib/pot/refusals";
import { microDegrees } from "@/lib/protocol/coordinates";
import { parseStake } from "@/lib/stake";
import { WalletError } from "@/wallet/errors";
import { PROGRESS } from "@/wallet/connect";
import type { Guess } from "@/wallet/flow";
import { OpenInWalletApp } from "@/wallet/OpenInWalletApp";
import { useWallet } from "@/wallet/WalletContext";
import { waysOffered, type PendingGuess, type StakeWay } from "./pay-ways";
import { CoordinatesAddon as DefaultAddon, type CoordinatesAddonProps } from "./CoordinatesAddon";

// The dialogs (and Radix Dialog) are lazy chunks: the first paint does not wait for them.
const ConfirmDialog = lazy(() => import("./ConfirmDialog").then((m) => ({ default: m.ConfirmDialog })));
const AccountHelpDialog = lazy(() => import("./AccountHelpDialog").then((m) => ({ default: m.AccountHelpDialog })));
const preloadDialogs = () => {
  void import("./ConfirmDialog");
};

export const SUBMIT_LABEL = "Submit Your Solution & Pay Your Bid";

// The stake flows (and the chain code with them) load on Confirm: the first paint does not carry them.
const loadSigned = () => import("@/wallet/signed");
const loadFlow = () => import("@/wallet/flow");

/** The steps during which the confirm dialog stays open (with "Processing..."): the player is
 * choosing an account in the wallet. */
const ACCOUNT_STEP = new Set<string>([PROGRESS.connecting, PROGRESS.selectAccount]);

/** Resolves once the browser has painted a frame (rAF runs before the paint, the timeout after). */
const afterPaint = () =>
  new Promise<void>((resolve) => {
    if (typeof requestAnimationFrame === "function") requestAnimationFrame(() => setTimeout(resolve, 0));
    else setTimeout(resolve, 0);
  });

/** Whether the close is within the margin, by this computer's clock (the chain's is checked again
 * before the wallet is asked), re-rendered when it gets there. */
function useClosingSoon(closesAt: number, marginSeconds: number): boolean {
  const stopAt = (closesAt - marginSeconds) * 1000;
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const wait = stopAt - Date.now();
    if (wait <= 0) return;
    const timer = setTimeout(() => setNow(Date.now()), Math.min(wait + 50, 2 ** 31 - 1));
    return () => clearTimeout(timer);
  }, [stopAt, now]);
  return now >= stopAt;
}

/** The right card: coordinates and bid, validation, the confirm dialog, then the stake into the pot
 * by one of its ways (the spec's Active Challenge tab, payment sequence and validation rules). */
export function SubmissionForm({
  challenge,
  coordinatesAddon = DefaultAddon,
}: {
  challenge: Challenge;
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
  // Why the last stake was not sent (kept beside the button, not only in a toast that goes away).
  const [refusal, setRefusal] = useState<string | null>(null);
  // The way chosen in the dialog; null until the player picks one (the first offered then).
  const [chosenWay, setWay] = useState<StakeWay | null>(null);
  const payments = useQuery(paymentsAuthorizationQuery()).data;
  const ways = waysOffered(payments);
  const way: StakeWay = chosenWay && ways.includes(chosenWay) ? chosenWay : ways[0]!;
  const coordinatesId = useId();
  const stakeId = useId();
  const refusalId = useId();
  const Addon = coordinatesAddon;
  const pin = potPin(config);
  const pinSentence = potPinSentence(pin, config.chainName);
  const closingSoon = useClosingSoon(challenge.closesTimestamp, config.stakeCloseMarginSeconds);
  const blocked =
    pin.state === "differs" ? pinSentence : closingSoon ? PREFLIGHT.closingSoon(config.stakeCloseMarginSeconds) : null;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (busy || blocked) return;
    setRefusal(null);
    const parsed = parseCoordinates(coordinates);
    const point = parsed ? microDegrees(parsed.text) : null;
    if (!parsed || !point) {
      toast({ title: "Incorrect Coordinates", description: COORDINATES_MESSAGE });
      return;
    }
    const amount = parseStake(stake, {
      minimum: challenge.minStake,
      maximum: config.maxStake,
      step: config.stakeStep,
    });
    if (!amount.ok) {
      toast({ title: "Invalid Stake Amount", description: amount.message });
      return;
    }
    // The salt is made now so the offline record offered in the dialog already holds it.
    setWay(null);
    setGuess({
      challengeId: challenge.id,
      termsDigest: challenge.termsDigest,
      termsSha256: challenge.termsSha256,
      text: parsed.text,
      ...point,
      stake: amount.amount,
      units: amount.units,
      salt: newSalt(),
    });
  };

  const onConfirm = async () => {
    if (!guess || busy) return;
    const current: Guess = {
      challenge,
      text: guess.text,
      latE6: guess.latE6,
      lonE6: guess.lonE6,
      stake: guess.stake,
      units: guess.units,
      salt: guess.salt,
    };
    // The dialog stays open, its Confirm button showing "Processing..." (spec), while the wallet is
    // asked for the account; it closes once that step is done, and the form's button carries the
    // progress from there on (docs/decisions.md, "Confirm shows "Processing..."").
    setBusy(true);
    // Several wallets and none chosen yet: the wallet chooser (a dialog of its own) comes first, and
    // two modal dialogs must not stack.
    if (!wallet.wallet && wallet.wallets.length > 1) setGuess(null);
    const signing = way !== "approval" && payments?.token ? { ...payments, token: payments.token } : null;
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
        signatureOffered: signatureOffered(payments),
      };
      const signed = signing ? await loadSigned() : null;
      const result =
        signed && signing
          ? await signed.submitBySignature(current, {
              ...flowOptions,
              payments: signing,
              sender: way === "self" ? "self" : "relay",
              // The wallet cannot sign typed data: it asks for a transaction next; say why first.
              onFallback: () => toast(signed.SIGNED_TOASTS.fallback),
            })
          : await (await loadFlow()).submitByApproval(current, flowOptions);
      wallet.setAddress(result.record.submitterAddress);
      toast({
        title: "Solution Submitted",
        description: "Your solution has been submitted successfully!",
        variant: "success",
      });
      setCoordinates("");
      setStake("");
      await refreshAfterStake(queryClient);
    } catch (error) {
      const signed = signing ? await loadSigned() : null;
      if (error instanceof StakeRefused) {
        // Nothing was signed or sent: the page checked first.
        setRefusal(error.message);
        toast({ title: "Stake Not Sent", description: error.message, variant: "destructive" });
      } else if (signed && error instanceof signed.StakeNotStored && error.retrying) {
        // Signed, and kept and sent again (wallet/keeper.ts): not a failure the player must act on,
        // and the form is cleared as after a success so the guess is not staked twice.
        toast({ title: "Submission Delayed", description: signed.SIGNED_TOASTS.delayed });
        setCoordinates("");
        setStake("");
      } else if (signed && error instanceof signed.StakeNotStored) {
        setRefusal(`${error.message} Nothing was paid.`);
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
    } finally {
      setGuess(null);
      setBusy(false);
      setProgress("");
    }
  };

  const minimum = formatStake(challenge.minStake);
  return (
    <section className="card" aria-labelledby="submit-heading">
      <h2 id="submit-heading">Submit your solution</h2>
      {pin.state === "unpinned" && pinSentence ? <p className="alert alert-warning note">{pinSentence}</p> : null}
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
            min={challenge.minStake}
            step={config.stakeStep}
            placeholder={minimum}
            aria-describedby={`${stakeId}-hint`}
            value={stake}
            onChange={(e) => setStake(e.target.value)}
            disabled={busy}
            required
          />
          <p id={`${stakeId}-hint`} className="field-hint">
            Minimum bid: {minimum} USDC
          </p>
        </div>
        <div className="alert alert-info note">
          <strong>Payment information:</strong> your bid is paid in {config.localChain ? "" : "test "}USDC on the{" "}
          {config.chainName} network into the Geopoem pot, a contract that holds every stake and pays the winners
          itself: nobody, Geopoem included, can take a stake out of it. The pot is{" "}
          <ExplorerLink kind="address" value={config.potAddress}>
            the pot's contract on the block explorer
          </ExplorerLink>
          .{" "}
          {signatureOffered(payments)
            ? "Sign the stake and you need no ETH: Geopoem's relayer pays the gas. Sending it from your wallet needs a little ETH for gas."
            : "Your wallet sends the stake, so you also need a little ETH for gas."}
        </div>
        <div className="alert alert-warning note warning-block">
          <strong>Warning:</strong> stakes are final: a stake cannot be withdrawn, and it is returned only if nobody
          guesses correctly or the solution is not revealed in time. Submitted solutions cannot be changed. Confirmed
          transactions are irreversible.
        </div>
        <p>
          <button type="button" className="link-button" onClick={() => setHelpOpen(true)}>
            How do I select my account in MetaMask?
          </button>
        </p>
        <OpenInWalletApp />
        {blocked || refusal ? (
          <p id={refusalId} className="alert alert-error note" role="alert">
            {blocked ?? refusal}
          </p>
        ) : null}
        <button
          type="submit"
          className="button button-block"
          disabled={busy || Boolean(blocked)}
          aria-describedby={blocked || refusal ? refusalId : undefined}
        >
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
            way={way}
            onWayChange={setWay}
            onCancel={() => setGuess(null)}
            onConfirm={() => void onConfirm()}
          />
        ) : null}
        {helpOpen ? <AccountHelpDialog open={helpOpen} onOpenChange={setHelpOpen} /> : null}
      </Suspense>
    </section>
  );
}

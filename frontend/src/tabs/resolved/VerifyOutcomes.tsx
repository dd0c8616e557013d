import { useEffect, useId, useRef, useState } from "react";
import { legacyVerifierAddresses, type Challenge } from "@/lib/verify-outcomes-types";
import { ExplorerLink } from "@/components/ExplorerLink";
import { getPublicConfig } from "@/config";
import { formatStake } from "@/lib/format";
import {
  MAX_BROWSER_RESPONSES,
  PHASES,
  verifyChallenge,
  type PayoutCheck,
  type Phase,
  type VerificationReport,
} from "@/lib/verify-outcomes";

export const SCRIPT_URL = "/verify_challenge.py";

const PHASE_LABEL: Record<Phase, string> = {
  anchor: "Reading the terms committed on chain",
  responses: "Reading the responses from this site",
  claims: "Reading the rejected claims, unclaimed payments and payouts from this site",
  transfers: "Scanning the chain's blocks for payments to the treasury",
  chain: "Reading the payments from the chain",
  checks: "Checking each payment",
};

type State =
  | { state: "idle" }
  | { state: "running"; phase: Phase; done: number; total: number }
  | { state: "done"; report: VerificationReport }
  | { state: "error"; message: string };

/** "Verify every outcome": re-checks every response of a resolved challenge in this browser, from
 * the public API and the public RPC node (src/lib/verify-outcomes.ts, docs/protocol.md section 5),
 * and offers the script that does the same outside the browser. */
export function VerifyOutcomes({ challenge }: { challenge: Challenge }) {
  const [state, setState] = useState<State>({ state: "idle" });
  const abort = useRef<AbortController | null>(null);
  const progressId = useId();
  const config = getPublicConfig();
  const origin = globalThis.location?.origin ?? "";
  const command = `python3 verify_challenge.py --site ${origin} --rpc ${config.rpcUrl || "<RPC URL>"} --challenge ${challenge.id}`;
  const tooMany = challenge.responseCount > MAX_BROWSER_RESPONSES;

  useEffect(() => () => abort.current?.abort(), []);

  async function run() {
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    setState({ state: "running", phase: "anchor", done: 0, total: 1 });
    try {
      const report = await verifyChallenge({
        challenge,
        config: {
          rpcUrl: config.rpcUrl,
          chainId: config.chainId,
          usdcAddress: config.usdcAddress,
          ...legacyVerifierAddresses(),
          tokenDecimals: config.tokenDecimals,
        },
        signal: controller.signal,
        progress: (phase, done, total) => {
          if (!controller.signal.aborted) setState({ state: "running", phase, done, total });
        },
      });
      if (!controller.signal.aborted) setState({ state: "done", report });
    } catch (error) {
      if (controller.signal.aborted) return;
      const message = error instanceof Error ? error.message : String(error);
      setState({ state: "error", message });
    }
  }

  function cancel() {
    abort.current?.abort();
    setState({ state: "idle" });
  }

  return (
    <div className="verify-outcomes">
      <p>
        Check every response of this challenge yourself: the terms are read from where they were committed on the
        blockchain, and each payment through a public node ({config.rpcUrl || "none configured"}); its guess, salt and
        stake must match what the payment committed to. Every payment to the treasury that names this challenge must be
        counted, rejected for the right reason or listed as unclaimed. Distances, correct answers, both winners, the
        prize split and the payouts are then recomputed here, not taken from this site.
      </p>
      {challenge.isDemo && !challenge.anchor && (
        <p className="hint">
          This is a demonstration challenge: its sample claims carry made-up transaction hashes that no blockchain
          holds, so their payments cannot be checked; everything else about them is. Claims paid on the blockchain are
          checked in full.
        </p>
      )}
      {tooMany ? (
        <p>
          This challenge has {challenge.responseCount.toLocaleString("en-US")} responses, more than{" "}
          {MAX_BROWSER_RESPONSES.toLocaleString("en-US")} can be checked in a browser. Use the script below.
        </p>
      ) : state.state === "running" ? (
        <div className="verify-progress">
          <label htmlFor={progressId}>
            Step {PHASES.indexOf(state.phase) + 1} of {PHASES.length}: {PHASE_LABEL[state.phase]}:{" "}
            {state.done.toLocaleString("en-US")} of {state.total.toLocaleString("en-US")}
          </label>
          <progress id={progressId} value={state.done} max={Math.max(state.total, 1)} />
          <button type="button" className="button button-secondary" onClick={cancel}>
            Cancel
          </button>
        </div>
      ) : (
        <button type="button" className="button button-secondary" onClick={() => void run()}>
          Verify every outcome
        </button>
      )}
      <div className="verify-result" role="status" aria-live="polite">
        {state.state === "done" && <VerificationResult report={state.report} />}
        {state.state === "error" && (
          <p className="check-bad">The check could not run: {state.message} Nothing was decided; try again later.</p>
        )}
      </div>
      <p className="hint">
        Or check without this page: <a href={SCRIPT_URL}>download verify_challenge.py</a> (Python 3.10 or newer, no
        installation) and run <code className="mono break">{command}</code>
      </p>
    </div>
  );
}

const PAYOUT_LABEL: Record<PayoutCheck["kind"], string> = {
  earliest: "Earliest correct response",
  highest: "Highest staked correct response",
  operations: "Operations and donations",
};

function PayoutLine({ payout }: { payout: PayoutCheck }) {
  const what = `${PAYOUT_LABEL[payout.kind]}: ${formatStake(payout.amount)} USDC to `;
  return (
    <li>
      {what}
      <span className="mono break">{payout.address}</span>
      {payout.state === "paid" && payout.transactionHash ? (
        <>
          {": paid, "}
          <ExplorerLink kind="tx" value={payout.transactionHash} plain={payout.transactionHash}>
            view the payout transaction
          </ExplorerLink>
        </>
      ) : payout.state === "due" ? (
        ": not paid yet"
      ) : payout.state === "kept" ? (
        ": kept in the treasury"
      ) : (
        `: different: ${payout.problems.join("; ")}`
      )}
    </li>
  );
}

function VerificationResult({ report }: { report: VerificationReport }) {
  const total = report.outcomes.length;
  const failing = report.outcomes.filter((o) => o.problems.length > 0);
  const failingRejected = report.rejected.filter((r) => r.problems.length > 0);
  const count = (kind: "confirmed" | "rejected" | "late" | "unclaimed") =>
    report.payments.filter((p) => p.accountedAs === kind).length;
  const outside = report.payments.filter((p) => p.accountedAs === null && !p.inWindow);
  const missing = report.payments.filter((p) => p.accountedAs === null && p.inWindow).length;
  const anchor = report.anchor;
  const published = report.publishedExceptions;
  // Said with the headline whenever there is any: "reproduced" with exceptions still means stakes
  // paid in time that are not in the prizes (listed below).
  const exceptionsNote =
    published > 0 ? `; this site published ${published} ${published === 1 ? "exception" : "exceptions"}` : "";
  return (
    <>
      {/* The headline never says everything was reproduced while anything differs. */}
      {report.ok ? (
        <p className="check-ok">
          {report.reproduced} of {total} outcomes reproduced{exceptionsNote}
        </p>
      ) : (
        <p className="check-bad">
          Differences found: {report.differenceCount}
          {exceptionsNote}
        </p>
      )}
      {anchor ? (
        <p>
          The terms were read from the blockchain: committed in block{" "}
          <ExplorerLink kind="block" value={String(anchor.blockNumber)} plain={String(anchor.blockNumber)}>
            {anchor.blockNumber}
          </ExplorerLink>{" "}
          by the registry <span className="mono break">{anchor.registry}</span>.
        </p>
      ) : report.terms === "demo" ? (
        <p className="check-bad">
          The terms of this demonstration challenge were never committed on the blockchain, so this check guarantees
          nothing: the site could have changed them at any time.
        </p>
      ) : null}
      {report.ok && report.unpaidDemo === 0 && (
        <p>
          {report.terms === "anchored" ? "The terms match what was committed on chain, and every" : "Every"} payment,
          commitment, chain position, distance, verdict, winner, prize and payout matches.
        </p>
      )}
      {report.unpaidDemo > 0 && (
        <p className="hint">
          {report.unpaidDemo} demonstration {report.unpaidDemo === 1 ? "claim has" : "claims have"} no payment on the
          blockchain: {report.unpaidDemo === 1 ? "its" : "their"} payment was not checked, everything else was.
        </p>
      )}
      {report.completeness && (
        <p>
          {report.payments.length} {report.payments.length === 1 ? "payment" : "payments"} to the treasury name this
          challenge: {count("confirmed")} counted, {count("rejected")} rejected for a reason checked again here,{" "}
          {count("unclaimed")} listed as unclaimed
          {count("late") > 0 ? `, ${count("late")} claimed after the challenge was resolved` : ""}
          {outside.length > 0 ? `, ${outside.length} made outside the open window and not counted` : ""}
          {missing > 0 ? `, ${missing} not accounted for` : ""}.
        </p>
      )}
      {report.exceptions.length > 0 && (
        <ul className="verify-exceptions" aria-label="Exceptions">
          {report.exceptions.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
      {report.payouts.length > 0 && (
        <ul className="verify-payouts" aria-label="Payouts">
          {report.payouts.map((payout) => (
            <PayoutLine key={payout.kind} payout={payout} />
          ))}
        </ul>
      )}
      {(failing.length > 0 || failingRejected.length > 0 || report.differences.length > 0) && (
        <ul className="verify-differences" aria-label="Differences">
          {failing.slice(0, 100).map((o) => (
            <li key={o.response.id}>
              Response {o.response.id} (<span className="mono break">{o.response.transactionHash}</span>):{" "}
              {o.problems.join("; ")}
            </li>
          ))}
          {failing.length > 100 && <li>... and {failing.length - 100} more responses differ.</li>}
          {failingRejected.slice(0, 100).map((r) => (
            <li key={`rejected-${r.claim.id}`}>
              Rejected claim {r.claim.id} (
              <span className="mono break">
                {/* An authorization never used has no transaction (docs/protocol.md 3.5): named by its commitment. */}
                {r.claim.transactionHash || `authorization ${r.claim.commitment}`}
              </span>
              ): {r.problems.join("; ")}
            </li>
          ))}
          {failingRejected.length > 100 && <li>... and {failingRejected.length - 100} more rejected claims differ.</li>}
          {report.differences.map((difference) => (
            <li key={difference}>{difference}</li>
          ))}
        </ul>
      )}
      {outside.length > 0 && (
        <p className="hint">
          Made outside the open window, so not counted:{" "}
          {outside.slice(0, 20).map((p, i) => (
            <span key={p.transactionHash}>
              {i > 0 ? ", " : ""}
              <ExplorerLink kind="tx" value={p.transactionHash}>
                {p.transactionHash}
              </ExplorerLink>
            </span>
          ))}
          {outside.length > 20 ? ` and ${outside.length - 20} more` : ""}.
        </p>
      )}
    </>
  );
}

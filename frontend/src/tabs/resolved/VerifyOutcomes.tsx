import { useEffect, useId, useRef, useState } from "react";
import type { Challenge } from "@/api";
import { getPublicConfig } from "@/config";
import { MAX_BROWSER_RESPONSES, verifyChallenge, type Phase, type VerificationReport } from "@/lib/verify-outcomes";

export const SCRIPT_URL = "/verify_challenge.py";

const PHASE_LABEL: Record<Phase, string> = {
  responses: "Reading the responses from this site",
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
    setState({ state: "running", phase: "responses", done: 0, total: challenge.responseCount });
    try {
      const report = await verifyChallenge({
        challenge,
        config: {
          rpcUrl: config.rpcUrl,
          chainId: config.chainId,
          usdcAddress: config.usdcAddress,
          treasuryAddress: config.treasuryAddress,
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
        Check every response of this challenge yourself: each payment is read from the blockchain through a public node
        ({config.rpcUrl || "none configured"}), and its guess, salt and stake must match what the payment committed to.
        Distances, correct answers, both winners and the prize split are then recomputed here, not taken from this site.
      </p>
      {challenge.isDemo && (
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
            {PHASE_LABEL[state.phase]}: {state.done.toLocaleString("en-US")} of {state.total.toLocaleString("en-US")}
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

function VerificationResult({ report }: { report: VerificationReport }) {
  const total = report.outcomes.length;
  const failing = report.outcomes.filter((o) => o.problems.length > 0);
  return (
    <>
      <p className={report.ok ? "check-ok" : "check-bad"}>
        {report.reproduced} of {total} outcomes reproduced
      </p>
      {report.ok && report.unpaidDemo === 0 && (
        <p>Every payment, commitment, chain position, distance, verdict, winner and prize matches.</p>
      )}
      {report.unpaidDemo > 0 && (
        <p className="hint">
          {report.unpaidDemo} demonstration {report.unpaidDemo === 1 ? "claim has" : "claims have"} no payment on the
          blockchain: {report.unpaidDemo === 1 ? "its" : "their"} payment was not checked, everything else was.
        </p>
      )}
      {(failing.length > 0 || report.differences.length > 0) && (
        <ul className="verify-differences">
          {failing.slice(0, 100).map((o) => (
            <li key={o.response.id}>
              Response {o.response.id} (<span className="mono break">{o.response.transactionHash}</span>):{" "}
              {o.problems.join("; ")}
            </li>
          ))}
          {failing.length > 100 && <li>... and {failing.length - 100} more responses differ.</li>}
          {report.differences.map((difference) => (
            <li key={difference}>{difference}</li>
          ))}
        </ul>
      )}
    </>
  );
}

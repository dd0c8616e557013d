import { useEffect, useId, useRef, useState } from "react";
import { ExplorerLink } from "@/components/ExplorerLink";
import { getPublicConfig, PINNED_POTS } from "@/config";
import {
  type Difference,
  MAX_BROWSER_STAKES,
  type Phase,
  PHASES,
  type VerificationReport,
  verifyChallenge,
} from "@/lib/verify";

export const SCRIPT_URL = "/verify_challenge.py";

const PHASE_LABEL: Record<Phase, string> = {
  site: "Reading the challenge, its stakes and its winners from this site",
  events: "Reading the pot's events from the blockchain",
  views: "Reading the pot's own state",
  checks: "Checking every outcome",
};

type State =
  | { state: "idle" }
  | { state: "running"; phase: Phase; done: number; total: number }
  | { state: "done"; report: VerificationReport }
  | { state: "error"; message: string };

interface Props {
  challenge: { id: number; responseCount: number };
  /** The verifier run (lib/verify); a test may give its own. */
  verify?: typeof verifyChallenge;
}

/** "Verify every outcome": the checks of docs/protocol.md section 5 in this browser (lib/verify),
 * from the pot pinned in the page's code, read through the public RPC node, and this site's public
 * answers; and the script that does the same outside the browser. */
export function VerifyOutcomes({ challenge, verify = verifyChallenge }: Props) {
  const [state, setState] = useState<State>({ state: "idle" });
  const abort = useRef<AbortController | null>(null);
  const config = getPublicConfig();
  const unpinned = !PINNED_POTS[config.chainId];
  const origin = globalThis.location?.origin ?? "";
  const command =
    `python3 verify_challenge.py --site ${origin} --rpc ${config.rpcUrl || "<RPC URL>"} --challenge ${challenge.id}` +
    (unpinned && config.potAddress ? ` --pot ${config.potAddress}` : "");

  useEffect(() => () => abort.current?.abort(), []);

  async function run() {
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    setState({ state: "running", phase: "site", done: 0, total: 1 });
    try {
      const report = await verify({
        challengeId: challenge.id,
        config,
        pins: PINNED_POTS,
        signal: controller.signal,
        progress: (phase, done, total) => {
          if (!controller.signal.aborted) setState({ state: "running", phase, done, total });
        },
      });
      if (!controller.signal.aborted) setState({ state: "done", report });
    } catch (error) {
      if (controller.signal.aborted) return;
      setState({ state: "error", message: error instanceof Error ? error.message : String(error) });
    }
  }

  function cancel() {
    abort.current?.abort();
    setState({ state: "idle" });
  }

  return (
    <div className="verify-outcomes">
      <p>
        Check this challenge yourself: every event of the pot that holds its stakes is read from the blockchain through
        a public node ({config.rpcUrl || "none configured"}) and replayed by the pot's rules, then held to the
        pot&apos;s own state. What this site shows (the poem and terms, the stakes, the published guesses, the winners
        and the payments) must be what the chain holds.
      </p>
      {challenge.responseCount > MAX_BROWSER_STAKES ? (
        <p>
          This challenge has {challenge.responseCount.toLocaleString("en-US")} stakes, more than{" "}
          {MAX_BROWSER_STAKES.toLocaleString("en-US")} can be checked in a browser. Use the script below.
        </p>
      ) : state.state === "running" ? (
        <RunProgress {...state} onCancel={cancel} />
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

function RunProgress({
  phase,
  done,
  total,
  onCancel,
}: {
  phase: Phase;
  done: number;
  total: number;
  onCancel: () => void;
}) {
  const id = useId();
  return (
    <div className="verify-progress">
      <label htmlFor={id}>
        Step {PHASES.indexOf(phase) + 1} of {PHASES.length}: {PHASE_LABEL[phase]}: {done.toLocaleString("en-US")} of{" "}
        {total.toLocaleString("en-US")}
      </label>
      <progress id={id} value={done} max={Math.max(total, 1)} />
      <button type="button" className="button button-secondary" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

function differenceText({ seq, text }: Difference): string {
  return seq === null ? text : `Stake ${seq}: ${text}`;
}

function VerificationResult({ report }: { report: VerificationReport }) {
  const shown = report.differences.slice(0, 100);
  return (
    <>
      {/* The headline never says everything was reproduced while anything differs. */}
      {report.ok ? (
        <p className="check-ok">
          {report.reproduced} of {report.total} outcomes reproduced
        </p>
      ) : (
        <p className="check-bad">Differences found: {report.differences.length}</p>
      )}
      <p>
        The pot checked: <ExplorerLink kind="address" value={report.pot} />
        {report.unpinned
          ? ". No pot is pinned in Geopoem's code for this chain: it is the one this site names."
          : ", the one pinned in Geopoem's code for this chain."}
      </p>
      {report.ok && (
        <p>
          Every stake, verdict, winner, prize and payment matches the pot&apos;s events and its own state, and
          everything this site shows matches the chain.
        </p>
      )}
      {shown.length > 0 && (
        <ul className="verify-differences" aria-label="Differences">
          {shown.map((difference) => (
            <li key={differenceText(difference)}>{differenceText(difference)}</li>
          ))}
          {report.differences.length > shown.length && (
            <li>... and {report.differences.length - shown.length} more differences.</li>
          )}
        </ul>
      )}
      <ul className="verify-checks" aria-label="Checks">
        {report.lines.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
    </>
  );
}

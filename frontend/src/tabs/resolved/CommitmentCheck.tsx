import { useId, useState } from "react";
import { solutionCommitment, solutionPreimage, SOLUTION_COMMITMENT_TAG } from "@/lib/commitment";

type Result =
  { state: "idle" } | { state: "busy" } | { state: "done"; hash: string } | { state: "error"; message: string };

/** "Check the commitment yourself": the revealed text and salt are hashed in this browser and the
 * result compared with the solutionSha256 published before anyone played. The fields can be
 * edited, so a sceptic can see that changing one character changes the hash. */
export function CommitmentCheck({
  challengeId,
  published,
  reveal,
  salt,
}: {
  challengeId: number;
  published: string;
  reveal: string | null;
  salt: string | null;
}) {
  const [text, setText] = useState(reveal ?? "");
  const [saltText, setSaltText] = useState(salt ?? "");
  const [result, setResult] = useState<Result>({ state: "idle" });
  const textId = useId();
  const saltId = useId();
  const resultId = useId();

  async function recompute() {
    setResult({ state: "busy" });
    try {
      setResult({ state: "done", hash: await solutionCommitment({ challengeId, text, salt: saltText }) });
    } catch (error) {
      setResult({ state: "error", message: error instanceof Error ? error.message : String(error) });
    }
  }

  const preimage = solutionPreimage({ challengeId, text, salt: saltText });
  const matches = result.state === "done" && result.hash === published.toLowerCase();

  return (
    <div className="commitment-check">
      <p>
        Before the challenge opened, only the SHA-256 hash of the solution was published. It is computed over the text{" "}
        <code>{`${SOLUTION_COMMITMENT_TAG}|{challenge id}|{solution}|{salt}`}</code>, where the salt is 32 random bytes
        kept secret until the reveal, so nobody could work the solution out from the hash. Recompute it here: if it
        equals the published hash, the solution was fixed before the first guess and was not changed.
      </p>
      <div className="form-field">
        <label htmlFor={textId}>Revealed solution</label>
        <input
          id={textId}
          className="mono"
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setResult({ state: "idle" });
          }}
          spellCheck={false}
          autoComplete="off"
        />
      </div>
      <div className="form-field">
        <label htmlFor={saltId}>Salt</label>
        <input
          id={saltId}
          className="mono"
          value={saltText}
          onChange={(e) => {
            setSaltText(e.target.value);
            setResult({ state: "idle" });
          }}
          spellCheck={false}
          autoComplete="off"
        />
      </div>
      <p className="preimage">
        Text hashed: <code className="mono break">{preimage}</code>
      </p>
      <button
        type="button"
        className="button button-secondary"
        onClick={() => void recompute()}
        disabled={result.state === "busy"}
        aria-describedby={resultId}
      >
        Recompute SHA-256 in this browser
      </button>
      <div id={resultId} className="commitment-result" role="status" aria-live="polite">
        {result.state === "done" ? (
          <>
            <p>
              Computed SHA-256: <code className="mono break">{result.hash}</code>
            </p>
            <p className={matches ? "check-ok" : "check-bad"}>
              {matches
                ? "Match: the computed hash equals the published solution SHA-256."
                : "No match: the computed hash differs from the published solution SHA-256."}
            </p>
          </>
        ) : result.state === "error" ? (
          <p className="check-bad">The hash could not be computed: {result.message}</p>
        ) : null}
      </div>
      <p className="hint">
        To check without this page, run in a terminal:{" "}
        <code className="mono break">{`printf '%s' '${preimage}' | sha256sum`}</code>
      </p>
    </div>
  );
}

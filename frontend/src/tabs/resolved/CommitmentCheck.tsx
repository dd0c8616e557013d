import { useId, useState } from "react";
import { getPublicConfig } from "@/config";
import { SALT_PATTERN } from "@/lib/commitment";
import { SOLUTION_TAG, solutionCommitment } from "@/lib/protocol/commitment";
import { microDegrees } from "@/lib/protocol/coordinates";

type Result =
  { state: "idle" } | { state: "busy" } | { state: "done"; hash: string } | { state: "error"; message: string };

/** "Check the commitment yourself": the revealed solution and salt are hashed in this browser as the
 * pot hashes them (docs/protocol.md section 1, solution commitment v2) and the result compared with
 * the solutionSha256 fixed in the pot before anyone played. The fields can be edited, so a sceptic
 * can see that changing one digit changes the hash. */
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
  const { chainId, potAddress } = getPublicConfig();
  const [text, setText] = useState(reveal ?? "");
  const [saltText, setSaltText] = useState(salt ?? "");
  const [result, setResult] = useState<Result>({ state: "idle" });
  const textId = useId();
  const saltId = useId();
  const resultId = useId();
  const point = microDegrees(text);

  async function recompute() {
    setResult({ state: "busy" });
    try {
      if (!point) throw new Error("the solution is not valid coordinates");
      if (!SALT_PATTERN.test(saltText)) throw new Error("a salt is 64 lowercase hex characters");
      const hash = solutionCommitment({
        chainId: BigInt(chainId),
        pot: potAddress,
        challengeId: BigInt(challengeId),
        ...point,
        salt: saltText,
      });
      setResult({ state: "done", hash });
    } catch (error) {
      setResult({ state: "error", message: error instanceof Error ? error.message : String(error) });
    }
  }

  const matches = result.state === "done" && result.hash === published.replace(/^0x/, "").toLowerCase();
  const words = point
    ? `bytes32 "${SOLUTION_TAG}", ${chainId}, ${potAddress}, ${challengeId}, ${point.latE6}, ${point.lonE6}, 0x${saltText}`
    : "";

  return (
    <div className="commitment-check">
      <p>
        Before the challenge opened, only the SHA-256 hash of the solution was fixed in the pot. It is computed over the
        ABI encoding of{" "}
        <code>{`(bytes32 "${SOLUTION_TAG}", chain id, pot, challenge id, latitude × 10⁶, longitude × 10⁶, salt)`}</code>
        , where the salt is 32 random bytes kept secret until the reveal, so nobody could work the solution out from the
        hash. The pot checked it when the solution was revealed; recompute it here: if it equals the published hash, the
        solution was fixed before the first guess and was not changed.
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
      {words ? (
        <p className="preimage">
          Values encoded: <code className="mono break">{words}</code>
        </p>
      ) : null}
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
      {point ? (
        <p className="hint">
          To check without this page, ask the pot itself with any node, for example with Foundry&apos;s cast:{" "}
          <code className="mono break">{`cast call ${potAddress} "solutionCommitment(uint256,int256,int256,bytes32)(bytes32)" ${challengeId} ${point.latE6} ${point.lonE6} 0x${saltText}`}</code>
        </p>
      ) : null}
    </div>
  );
}

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { resolvedChallengesQuery, type Challenge } from "@/api";
import { Alert } from "@/components/Alert";
import { Spinner } from "@/components/Spinner";
import { formatDate, formatDateTime, formatStake } from "@/lib/format";
import { ResolvedDetailsDialog } from "./ResolvedDetailsDialog";
import "./resolved.css";

export const RESOLVED_LOAD_ERROR = "Failed to load resolved challenges. Please try again later.";
export const RESOLVED_EMPTY = "No resolved challenges available yet.";

/** A revealed challenge whose guess window is still open is not over yet: its winners may change. */
const badgeOf = (challenge: Challenge) =>
  challenge.phase === "aborted" ? "Aborted" : challenge.phase === "revealing" ? "Revealing" : "Resolved";

/** The Resolved Challenges tab: every challenge whose solution is revealed (or that aborted), newest
 * first; a row opens the details dialog, where the reveal can be checked. */
export function ResolvedTab() {
  const { data, isPending, isError } = useQuery(resolvedChallengesQuery());
  const [selected, setSelected] = useState<Challenge | null>(null);

  return (
    <section className="tab-section resolved-tab" aria-labelledby="resolved-heading">
      <h2 id="resolved-heading">Resolved Challenges</h2>
      {isPending ? (
        <Spinner label="Loading resolved challenges..." />
      ) : isError ? (
        <Alert tone="error">{RESOLVED_LOAD_ERROR}</Alert>
      ) : data.length === 0 ? (
        <Alert>{RESOLVED_EMPTY}</Alert>
      ) : (
        <>
          <p className="tab-intro">
            Select a challenge to see its poem, the revealed solution, the winners and how to check the reveal yourself.
          </p>
          <ul className="resolved-list">
            {data.map((challenge) => (
              <li key={challenge.id}>
                <button
                  type="button"
                  className="resolved-row"
                  onClick={() => setSelected(challenge)}
                  aria-haspopup="dialog"
                >
                  <span className="resolved-row-head">
                    <span className="resolved-row-title">{challenge.poemTitle}</span>
                    <span className="badge badge-resolved">{badgeOf(challenge)}</span>
                  </span>
                  <span className="resolved-row-facts">
                    <span>
                      Solution: <span className="mono">{challenge.solutionReveal ?? "missing"}</span>
                    </span>
                    {challenge.phase === "revealing" ? (
                      <span>Guesses can be revealed until: {formatDateTime(challenge.guessDeadline)}</span>
                    ) : (
                      <span>Completed: {formatDate(challenge.guessDeadline ?? challenge.closesTimestamp)}</span>
                    )}
                    <span>Total bids: {formatStake(challenge.stakedSum)} USDC</span>
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      <ResolvedDetailsDialog challenge={selected} onClose={() => setSelected(null)} />
    </section>
  );
}

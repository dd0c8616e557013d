import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { resolvedChallengesQuery, winnersQuery, type Challenge } from "@/api";
import { Alert } from "@/components/Alert";
import { Select } from "@/components/Select";
import { RevealMapSection } from "@/maps/RevealMapSection";
import { ThresholdValue } from "@/components/Threshold";
import { formatUsdc, formatStake } from "@/lib/format";
import { WinnerCard } from "./WinnerCard";
import "./winners.css";

export const CHOOSE_LABEL = "Choose a completed challenge to view winners";
export const NO_CORRECT = "No correct responses found for this challenge.";
export const WINNERS_LOAD_ERROR = "Failed to load the winners of this challenge. Please try again later.";
const RESOLVED_LOAD_ERROR = "Failed to load resolved challenges. Please try again later.";

/** The Winners' Circle: pick a resolved challenge, see its two prize winners as
 * the server scored them at resolution (`GET /api/challenges/{id}/winners`). */
export function WinnersTab() {
  const { data, isPending, isError } = useQuery(resolvedChallengesQuery());
  const [selectedId, setSelectedId] = useState<string | undefined>(undefined);
  const challenges = data ?? [];
  const selected = challenges.find((c) => String(c.id) === selectedId) ?? null;

  return (
    <section className="tab-section winners-tab" aria-labelledby="winners-heading">
      <h2 id="winners-heading">Winners' Circle</h2>
      <p className="tab-intro">
        Each resolved challenge pays 40% of its total stake to the earliest correct response and 40% to the highest
        staked correct response; 20% goes to site operations and student donations.
      </p>
      {isError ? (
        <Alert tone="error">{RESOLVED_LOAD_ERROR}</Alert>
      ) : (
        <Select
          id="winners-challenge"
          label={CHOOSE_LABEL}
          placeholder={
            isPending
              ? "Loading challenges..."
              : challenges.length === 0
                ? "No completed challenges yet"
                : "Select a challenge"
          }
          options={challenges.map((c) => ({ value: String(c.id), label: `Challenge #${c.id}: ${c.poemTitle}` }))}
          value={selectedId}
          onValueChange={setSelectedId}
          disabled={isPending || challenges.length === 0}
        />
      )}
      {selected && <ChallengeWinners challenge={selected} />}
    </section>
  );
}

function ChallengeWinners({ challenge }: { challenge: Challenge }) {
  const { data, isPending, isError } = useQuery(winnersQuery(challenge.id));
  return (
    <div className="winners-detail">
      <div className="card">
        <h3>
          Challenge #{challenge.id}: {challenge.poemTitle}
        </h3>
        <dl className="fields">
          <dt>Challenge ID</dt>
          <dd>{challenge.id}</dd>
          <dt>Title</dt>
          <dd>{challenge.poemTitle}</dd>
          <dt>Proximity threshold</dt>
          <dd>
            <ThresholdValue meters={challenge.proximityThreshold} />
          </dd>
          <dt>Target coordinates</dt>
          <dd className="mono">{challenge.solutionReveal ?? "Not revealed"}</dd>
          <dt>Solution SHA256 hash</dt>
          <dd className="mono">{challenge.solutionSha256}</dd>
          {data && (
            <>
              <dt>Total staked</dt>
              <dd>
                {formatStake(data.totalStaked)} USDC ({data.responseCount} confirmed{" "}
                {data.responseCount === 1 ? "response" : "responses"})
              </dd>
            </>
          )}
        </dl>
      </div>
      {isPending ? (
        <div className="loading-line" role="status">
          <span className="spinner" aria-hidden="true" /> Loading response data...
        </div>
      ) : isError ? (
        <Alert tone="error">{WINNERS_LOAD_ERROR}</Alert>
      ) : !data.earliest || !data.highest ? (
        <Alert>{NO_CORRECT}</Alert>
      ) : (
        <>
          <div className="grid-2 winner-cards">
            <WinnerCard
              headingId={`earliest-${challenge.id}`}
              title="Earliest Correct Response"
              rule="First to solve: the correct response that came first in chain order (block, then position in the block). Wins 40% of the total stake."
              winner={data.earliest}
            />
            <WinnerCard
              headingId={`highest-${challenge.id}`}
              title="Highest Staked Correct Response"
              rule="The correct response with the largest stake; a tie goes to the earliest of the tied responses. Wins 40% of the total stake."
              winner={data.highest}
            />
          </div>
          {data.earliest.id === data.highest.id && (
            <p className="note">The same response won both prizes, so its submitter receives both 40% shares.</p>
          )}
          <p className="note">Site operations and student donations (20%): {formatUsdc(data.operations)} USDC.</p>
        </>
      )}
      {data ? <RevealMapSection challenge={challenge} /> : null}
    </div>
  );
}

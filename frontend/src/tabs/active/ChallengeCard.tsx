import type { Challenge } from "@/api/types";
import { ThresholdValue } from "@/components/Threshold";
import { formatStake, formatDateTime } from "@/lib/format";

/** The left card: the active challenge as the spec lists it. The poem and instructions are
 * HTML the server sanitised (challenges/models.py). */
export function ChallengeCard({ challenge }: { challenge: Challenge }) {
  return (
    <section className="card" aria-labelledby="challenge-heading">
      <p>
        <span className="badge badge-active">Active</span>
      </p>
      <h2 id="challenge-heading">{challenge.poemTitle}</h2>
      <dl className="fields">
        <dt>Challenge</dt>
        <dd>#{challenge.id}</dd>
        <dt>Proximity threshold</dt>
        <dd>
          <ThresholdValue meters={challenge.proximityThreshold} unit="meters" />
        </dd>
        <dt>Total bids</dt>
        <dd>{formatStake(challenge.stakedSum)} USDC</dd>
        <dt>Started</dt>
        <dd>{formatDateTime(challenge.startTimestamp, "")}</dd>
      </dl>
      <h3>Poem</h3>
      <div className="html-content poem" dangerouslySetInnerHTML={{ __html: challenge.poemText }} />
      <h3>Instructions</h3>
      <div className="html-content" dangerouslySetInnerHTML={{ __html: challenge.instructionsText }} />
      <h3>Solution SHA256 hash</h3>
      <p className="mono">{challenge.solutionSha256}</p>
    </section>
  );
}

import type { Challenge } from "@/api/types";
import { ExplorerLink } from "@/components/ExplorerLink";
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
        <TermsOnChain challenge={challenge} />
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

/** Where the terms were committed on chain before anyone could stake (docs/protocol.md section 6);
 * texts in docs/decisions.md, "Active card". */
function TermsOnChain({ challenge }: { challenge: Challenge }) {
  const anchor = challenge.anchor;
  // An answer of an older server says nothing either way: nothing is claimed.
  if (anchor === undefined) return null;
  const block = anchor ? String(anchor.blockNumber) : "";
  return (
    <>
      <dt>Terms on chain</dt>
      <dd>
        {anchor ? (
          <>
            Committed in{" "}
            <ExplorerLink kind="block" value={block} plain={`block ${block}`} mono={false}>
              block {block}
            </ExplorerLink>
            , so they cannot be changed
          </>
        ) : challenge.isDemo ? (
          "Not committed: this is a demonstration challenge"
        ) : (
          "Not committed"
        )}
      </dd>
    </>
  );
}

import type { Challenge } from "@/api/types";
import { ExplorerLink } from "@/components/ExplorerLink";
import { ThresholdValue } from "@/components/Threshold";
import { getPublicConfig } from "@/config";
import { formatDateTime, formatStake } from "@/lib/format";

/** The left card: the open challenge as the spec lists it, with what the pot fixed for it (the close,
 * the minimum stake, the operator's bond) and the pot that holds the stakes. The poem and
 * instructions are HTML the server sanitised (challenges/sanitize.py). */
export function ChallengeCard({ challenge }: { challenge: Challenge }) {
  const { potAddress } = getPublicConfig();
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
        <dt>Closes</dt>
        <dd>{formatDateTime(challenge.closesTimestamp)}</dd>
        <dt>Minimum stake</dt>
        <dd>{formatStake(challenge.minStake)} USDC</dd>
        <dt>Operator's bond</dt>
        <dd>{formatStake(challenge.bond)} USDC, paid to the players if the solution is not revealed in time</dd>
        <dt>Pot</dt>
        <dd>
          <ExplorerLink kind="address" value={potAddress} />
        </dd>
        <TermsOnChain challenge={challenge} />
      </dl>
      <h3>Poem</h3>
      <div className="html-content poem" dangerouslySetInnerHTML={{ __html: challenge.poemText }} />
      <h3>Instructions</h3>
      <div className="html-content" dangerouslySetInnerHTML={{ __html: challenge.instructionsText }} />
      <h3>Solution SHA256 hash</h3>
      <p className="mono break">{challenge.solutionSha256}</p>
    </section>
  );
}

/** Where the pot fixed the terms, before anyone could stake (docs/protocol.md section 2). */
function TermsOnChain({ challenge }: { challenge: Challenge }) {
  const block = challenge.openBlockNumber;
  return (
    <>
      <dt>Terms on chain</dt>
      <dd>
        {block === null ? (
          "Not opened on chain yet"
        ) : (
          <>
            Fixed in the pot in{" "}
            <ExplorerLink kind="block" value={String(block)} plain={`block ${block}`} mono={false}>
              block {block}
            </ExplorerLink>
            , so they cannot be changed
          </>
        )}
      </dd>
    </>
  );
}

import { useQuery } from "@tanstack/react-query";
import { responsesQuery, winnersQuery, type Challenge, type Stake } from "@/api";
import { Dialog } from "@/components/Dialog";
import { ScrollRegion } from "@/components/ScrollRegion";
import { Spinner } from "@/components/Spinner";
import { ThresholdValue } from "@/components/Threshold";
import { ExplorerLink } from "@/components/ExplorerLink";
import { RevealMapSection } from "@/maps/RevealMapSection";
import { useSettlement, withRevealedGuess } from "@/lib/pot/settlement";
import { unitsToDecimal } from "@/lib/stake";
import { PHASE_LABEL, phaseText } from "@/tabs/active/PhaseCard";
import { CommitmentCheck } from "./CommitmentCheck";
import { VerifyOutcomes } from "./VerifyOutcomes";
import { formatDateTime, formatDistance, formatStake, formatUsdc, shortAddress } from "@/lib/format";

export const NO_CORRECT = "No correct responses found for this challenge.";

/** The "Resolved Challenge Details" dialog, with what a player needs to trust
 * the result: the salt and an in-browser check of the commitment, the winners, every stake, and a
 * re-check of every outcome against the chain. */
export function ResolvedDetailsDialog({ challenge, onClose }: { challenge: Challenge | null; onClose: () => void }) {
  return (
    <Dialog
      open={challenge !== null}
      onOpenChange={(open) => !open && onClose()}
      title="Resolved Challenge Details"
      description={challenge ? `Challenge #${challenge.id}: ${challenge.poemTitle}` : undefined}
      className="dialog-wide"
    >
      {challenge && <DetailsBody challenge={challenge} />}
    </Dialog>
  );
}

function DetailsBody({ challenge }: { challenge: Challenge }) {
  return (
    <>
      <dl className="fields">
        <dt>Challenge ID</dt>
        <dd>{challenge.id}</dd>
        <dt>Proximity threshold</dt>
        <dd>
          <ThresholdValue meters={challenge.proximityThreshold} />
        </dd>
        <dt>Total staked</dt>
        <dd>{formatStake(challenge.stakedSum)} USDC</dd>
        <dt>Started</dt>
        <dd>{formatDateTime(challenge.startTimestamp)}</dd>
        <dt>Closed</dt>
        <dd>{formatDateTime(challenge.closesTimestamp)}</dd>
        <dt>Phase</dt>
        <dd>
          {PHASE_LABEL[challenge.phase]}: {phaseText(challenge)}
        </dd>
        <dt>Title</dt>
        <dd>{challenge.poemTitle}</dd>
      </dl>

      <h3>Poem</h3>
      {/* Sanitised on the server when staff save it (challenges/sanitize.py). */}
      <div className="poem html-content" dangerouslySetInnerHTML={{ __html: challenge.poemText }} />
      <h3>Instructions</h3>
      <div className="html-content" dangerouslySetInnerHTML={{ __html: challenge.instructionsText }} />

      <h3>Solution</h3>
      <dl className="fields">
        <dt>Solution SHA256 hash</dt>
        <dd className="mono break">{challenge.solutionSha256}</dd>
        <dt>Revealed coordinates</dt>
        <dd className="mono">{challenge.solutionReveal ?? "missing"}</dd>
        <dt>Salt</dt>
        <dd className="mono break">{challenge.solutionSalt ?? "missing"}</dd>
      </dl>

      <h3>Check the commitment yourself</h3>
      <CommitmentCheck
        key={challenge.id}
        challengeId={challenge.id}
        published={challenge.solutionSha256}
        reveal={challenge.solutionReveal}
        salt={challenge.solutionSalt}
      />

      <h3>Winners</h3>
      <WinnersSummary challengeId={challenge.id} />

      <h3>Map</h3>
      <RevealMapSection challenge={challenge} />

      <h3>Stakes</h3>
      <StakesTable challenge={challenge} />

      <h3>Verify every outcome</h3>
      <VerifyOutcomes key={challenge.id} challenge={challenge} />
    </>
  );
}

function WinnerLine({ label, winner, prize }: { label: string; winner: Stake; prize: string | null }) {
  return (
    <li>
      <strong>{label}:</strong>{" "}
      <ExplorerLink kind="address" value={winner.submitterAddress} plain={shortAddress(winner.submitterAddress)}>
        {shortAddress(winner.submitterAddress)}
      </ExplorerLink>{" "}
      at {formatDistance(winner.distanceMeters)}, staked {formatStake(winner.submissionStake)} USDC
      {prize === null ? "" : `, prize ${formatUsdc(prize)} USDC`}
    </li>
  );
}

function WinnersSummary({ challengeId }: { challengeId: number }) {
  const { data, isPending, isError } = useQuery(winnersQuery(challengeId));
  const settlement = useSettlement(challengeId).data;
  const finalized = settlement?.finalized ?? null;
  if (isPending) return <Spinner label="Loading winners..." />;
  if (isError) return <p role="alert">Failed to load the winners. Please try again later.</p>;
  const earliestWinner = withRevealedGuess(data.earliest, settlement);
  const highestWinner = withRevealedGuess(data.highest, settlement);
  if (!earliestWinner || !highestWinner) return <p>{NO_CORRECT}</p>;
  // The pot's amounts once it fixed them, else the site's.
  const earliest = finalized ? unitsToDecimal(finalized.earliestPrize) : data.prizes.earliest;
  const highest = finalized ? unitsToDecimal(finalized.highestPrize) : data.prizes.highest;
  const share = finalized ? unitsToDecimal(finalized.share) : data.prizes.share;
  return (
    <ul className="winner-lines">
      <WinnerLine label="Earliest correct response (40%)" winner={earliestWinner} prize={earliest} />
      <WinnerLine label="Highest staked correct response (40%)" winner={highestWinner} prize={highest} />
      {share !== null ? (
        <li>
          <strong>Site operations and student donations (20%):</strong> {formatUsdc(share)} USDC
        </li>
      ) : null}
    </ul>
  );
}

function StakesTable({ challenge }: { challenge: Challenge }) {
  const query = useQuery(responsesQuery(challenge.id));
  const settlement = useSettlement(challenge.id).data;
  if (query.isPending) return <Spinner label="Loading stakes..." />;
  if (query.isError) return <p role="alert">Failed to load the stakes. Please try again later.</p>;
  const data = query.data.map((stake) => withRevealedGuess(stake, settlement));
  if (data.length === 0) return <p>No stakes were made on this challenge.</p>;
  return (
    <ScrollRegion label="Stakes" hint="Scroll the table sideways to see every column →">
      <table className="stakes-table">
        <caption>
          {data.length < challenge.responseCount
            ? `The first ${data.length} of ${challenge.responseCount} stakes, in the pot's order`
            : `All ${data.length} stakes, in the pot's order`}
        </caption>
        <thead>
          <tr>
            <th scope="col">Player</th>
            <th scope="col">Guess</th>
            <th scope="col">Stake</th>
            <th scope="col">Distance</th>
            <th scope="col">Correct</th>
            <th scope="col">Revealed on chain</th>
            <th scope="col">Transaction</th>
          </tr>
        </thead>
        <tbody>
          {data.map((response) => (
            <tr key={response.commitment}>
              <td className="mono">{shortAddress(response.submitterAddress)}</td>
              <td className="mono">{response.submissionText ?? "hidden"}</td>
              <td>{formatStake(response.submissionStake)} USDC</td>
              <td>{formatDistance(response.distanceMeters)}</td>
              <td>{response.isCorrect === null ? "Unknown" : response.isCorrect ? "Yes" : "No"}</td>
              <td>{response.revealed ? "Yes" : "No"}</td>
              <td>
                {response.transactionHash ? (
                  <ExplorerLink
                    kind="tx"
                    value={response.transactionHash}
                    plain={`${response.transactionHash.slice(0, 10)}...`}
                  >
                    {response.transactionHash.slice(0, 10)}...{" "}
                    <span className="visually-hidden">(transaction of response {response.id})</span>
                  </ExplorerLink>
                ) : (
                  "Not known"
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

import type { Challenge } from "@/api/types";
import { formatDateTime, formatStake } from "@/lib/format";

/** A challenge that no longer takes stakes, shown until it is final (docs/protocol.md 3.6's phases):
 * where it stands, what happens next and when, and where to look. Never a dead end. */

const hours = (seconds: number) => {
  const h = seconds / 3600;
  return `${Number.isInteger(h) ? h : h.toFixed(1)} ${h === 1 ? "hour" : "hours"}`;
};

export const PHASE_LABEL: Record<Challenge["phase"], string> = {
  open: "Open",
  closed: "Closed",
  revealing: "Revealing",
  final: "Final",
  paid: "Paid",
  aborted: "Aborted",
};

/** What happens next, in the player's words. */
export function phaseText(challenge: Challenge): string {
  switch (challenge.phase) {
    case "open":
      return `It takes stakes until ${formatDateTime(challenge.closesTimestamp)}.`;
    case "closed":
      return `It closed on ${formatDateTime(challenge.closesTimestamp)} and takes no more stakes. The solution is revealed on chain by ${formatDateTime(challenge.solutionDeadline)} at the latest; guesses can then be revealed for ${hours(challenge.guessWindowSeconds)}, and the pot pays the winners. If the solution is not revealed by then, every stake is refunded with a share of the operator's bond of ${formatStake(challenge.bond)} USDC.`;
    case "revealing":
      return `The solution is revealed${challenge.solutionReveal ? `: ${challenge.solutionReveal}` : ""}. Guesses can be revealed on chain until ${formatDateTime(challenge.guessDeadline)}; then the winners are fixed and the pot pays them. My submissions below shows whether your guesses are correct.`;
    case "final":
      return `The guess window closed on ${formatDateTime(challenge.guessDeadline)}: the winners are fixed and the pot is paying them (see the Winners' Circle), or refunding every stake if nobody was correct.`;
    case "paid":
      return "Every prize and the share are paid, or every stake was refunded: see the Winners' Circle.";
    case "aborted":
      return `The solution was not revealed by ${formatDateTime(challenge.solutionDeadline)}: every stake is refunded with a share of the operator's bond.`;
  }
}

export function PhaseCard({ challenge }: { challenge: Challenge }) {
  return (
    <section className="card phase-card" aria-labelledby="phase-heading">
      <p>
        <span className="badge badge-resolved">{PHASE_LABEL[challenge.phase]}</span>
      </p>
      <h2 id="phase-heading">
        Challenge #{challenge.id}: {challenge.poemTitle}
      </h2>
      <p>No challenge takes stakes right now. This one is {PHASE_LABEL[challenge.phase].toLowerCase()}.</p>
      <p>{phaseText(challenge)}</p>
      <dl className="fields">
        <dt>Total staked</dt>
        <dd>
          {formatStake(challenge.stakedSum)} USDC ({challenge.responseCount}{" "}
          {challenge.responseCount === 1 ? "stake" : "stakes"})
        </dd>
        <dt>Closed</dt>
        <dd>{formatDateTime(challenge.closesTimestamp)}</dd>
        {challenge.guessDeadline ? (
          <>
            <dt>Guess window ends</dt>
            <dd>{formatDateTime(challenge.guessDeadline)}</dd>
          </>
        ) : (
          <>
            <dt>Solution due by</dt>
            <dd>{formatDateTime(challenge.solutionDeadline)}</dd>
          </>
        )}
      </dl>
    </section>
  );
}

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { resolvedChallengesQuery, winnersQuery, type Challenge } from "@/api";
import { Alert } from "@/components/Alert";
import { Select } from "@/components/Select";
import { ThresholdValue } from "@/components/Threshold";
import { formatDateTime, formatStake, formatUsdc } from "@/lib/format";
import { useSettlement, withRevealedGuess } from "@/lib/pot/settlement";
import { unitsToDecimal } from "@/lib/stake";
import { RevealMapSection } from "@/maps/RevealMapSection";
import { useConnectedAddress } from "@/wallet/WalletContext";
import { WinnerCard } from "./WinnerCard";
import "./winners.css";

export const CHOOSE_LABEL = "Choose a completed challenge to view winners";
export const NO_CORRECT = "No correct responses found for this challenge.";
export const WINNERS_LOAD_ERROR = "Failed to load the winners of this challenge. Please try again later.";
const RESOLVED_LOAD_ERROR = "Failed to load resolved challenges. Please try again later.";

/** The Winners' Circle: pick a challenge whose solution is revealed (the latest by default), see its
 * two prize winners as the pot holds them, each prize's amount and payment from the pot's events. */
export function WinnersTab() {
  const { data, isPending, isError } = useQuery(resolvedChallengesQuery());
  const [chosenId, setChosenId] = useState<string | undefined>(undefined);
  const challenges = data ?? [];
  // The list is newest first: the latest is shown until the player picks another.
  const selectedId = chosenId ?? (challenges[0] ? String(challenges[0].id) : undefined);
  const selected = challenges.find((c) => String(c.id) === selectedId) ?? null;

  return (
    <section className="tab-section winners-tab" aria-labelledby="winners-heading">
      <h2 id="winners-heading">Winners' Circle</h2>
      <p className="tab-intro">
        Each challenge pays 40% of its total stake to the earliest correct response and 40% to the highest staked
        correct response; 20% goes to site operations and student donations. The pot pays them itself, to the wallets
        that staked; when nobody is correct, it returns every stake.
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
          onValueChange={setChosenId}
          disabled={isPending || challenges.length === 0}
        />
      )}
      {selected && <ChallengeWinners challenge={selected} />}
    </section>
  );
}

const same = (a: string | null | undefined, b: string | null | undefined) =>
  Boolean(a && b && a.toLowerCase() === b.toLowerCase());

function ChallengeWinners({ challenge }: { challenge: Challenge }) {
  const { data, isPending, isError } = useQuery(winnersQuery(challenge.id));
  const settlement = useSettlement(challenge.id).data;
  // A winner who revealed their guess from their own wallet: its guess is the pot's, not the site's.
  const earliest = withRevealedGuess(data?.earliest ?? null, settlement);
  const highest = withRevealedGuess(data?.highest ?? null, settlement);
  const address = useConnectedAddress();
  const finalized = settlement?.finalized ?? null;
  const final = Boolean(finalized) || Boolean(data?.final);
  // The pot's amounts when it has fixed them, else the site's.
  const prize = (kind: 0 | 1): string | null =>
    finalized
      ? unitsToDecimal(kind === 0 ? finalized.earliestPrize : finalized.highestPrize)
      : ((kind === 0 ? data?.prizes.earliest : data?.prizes.highest) ?? null);
  const share = finalized ? unitsToDecimal(finalized.share) : (data?.prizes.share ?? null);
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
          <dd className="mono break">{challenge.solutionSha256}</dd>
          <dt>Total staked</dt>
          <dd>
            {formatStake(challenge.stakedSum)} USDC ({challenge.responseCount}{" "}
            {challenge.responseCount === 1 ? "stake" : "stakes"})
          </dd>
        </dl>
        {!final && challenge.guessDeadline ? (
          <p className="note">
            Not final yet: a better correct guess may still be revealed until {formatDateTime(challenge.guessDeadline)}.
          </p>
        ) : null}
      </div>
      {isPending ? (
        <div className="loading-line" role="status">
          <span className="spinner" aria-hidden="true" /> Loading response data...
        </div>
      ) : isError ? (
        <Alert tone="error">{WINNERS_LOAD_ERROR}</Alert>
      ) : !earliest || !highest ? (
        <Alert>
          {NO_CORRECT}
          {final ? " The pot returns every stake to the wallet that paid it." : ""}
        </Alert>
      ) : (
        <>
          <div className="grid-2 winner-cards">
            <WinnerCard
              headingId={`earliest-${challenge.id}`}
              title="Earliest Correct Response"
              rule="First to solve: the correct response with the lowest sequence number in the pot (the chain order of the stakes). Wins 40% of the total stake."
              winner={earliest}
              prize={prize(0)}
              paidIn={settlement?.paid[0]?.transactionHash ?? null}
              final={final}
              you={same(address, earliest.submitterAddress)}
            />
            <WinnerCard
              headingId={`highest-${challenge.id}`}
              title="Highest Staked Correct Response"
              rule="The correct response with the largest stake; a tie goes to the earliest of the tied responses. Wins 40% of the total stake."
              winner={highest}
              prize={prize(1)}
              paidIn={settlement?.paid[1]?.transactionHash ?? null}
              final={final}
              you={same(address, highest.submitterAddress)}
            />
          </div>
          {earliest.id === highest.id && (
            <p className="note">The same response won both prizes, so its submitter receives both 40% shares.</p>
          )}
          {share !== null ? (
            <p className="note">
              Site operations and student donations (20%): {formatUsdc(share)} USDC
              {settlement?.paid[2] ? ", paid" : ""}.
            </p>
          ) : null}
        </>
      )}
      {data ? <RevealMapSection challenge={challenge} /> : null}
    </div>
  );
}

/** The reveal map's place in the Resolved details dialog and the Winners' Circle (main bundle:
 * a toggle and two queries). The map, with Leaflet, loads when the player opens it. */
import { useQuery } from "@tanstack/react-query";
import { lazy, Suspense, useId, useMemo, useState } from "react";
import { confirmedGuessesQuery, winnersQuery, type Challenge } from "@/api";
import { Spinner } from "@/components/Spinner";
import { useSettlement, withRevealedGuess } from "@/lib/pot/settlement";

const RevealMap = lazy(() => import("./RevealMap"));

export const SHOW_REVEAL_MAP = "Show the map";
export const HIDE_REVEAL_MAP = "Hide the map";

export function RevealMapSection({ challenge }: { challenge: Challenge }) {
  const [open, setOpen] = useState(false);
  const regionId = useId();
  if (!challenge.solutionReveal) return null;
  return (
    <div className="reveal-map-section">
      <button
        type="button"
        className="button button-secondary"
        aria-expanded={open}
        aria-controls={regionId}
        onClick={() => setOpen((was) => !was)}
      >
        {open ? HIDE_REVEAL_MAP : SHOW_REVEAL_MAP}
      </button>
      <div id={regionId}>{open ? <RevealMapLoader challenge={challenge} /> : null}</div>
    </div>
  );
}

function RevealMapLoader({ challenge }: { challenge: Challenge }) {
  const winners = useQuery(winnersQuery(challenge.id));
  const guesses = useQuery(confirmedGuessesQuery(challenge.id));
  // The guesses the pot shows revealed that the site does not hold (revealed from a player's wallet).
  // Memoised on the answers: the map is redrawn when they change, not on every render.
  const settlement = useSettlement(challenge.id).data;
  const shown = useMemo(
    () =>
      winners.data && guesses.data
        ? {
            earliest: withRevealedGuess(winners.data.earliest, settlement),
            highest: withRevealedGuess(winners.data.highest, settlement),
            guesses: guesses.data.guesses.map((guess) => withRevealedGuess(guess, settlement)),
          }
        : null,
    [winners.data, guesses.data, settlement],
  );
  if (winners.isPending || guesses.isPending) return <Spinner label="Loading the map..." />;
  if (winners.isError || guesses.isError) {
    return <p role="alert">Failed to load the map's data. Please try again later.</p>;
  }
  return (
    <Suspense fallback={<Spinner label="Loading the map..." />}>
      <RevealMap
        challengeId={challenge.id}
        solution={challenge.solutionReveal ?? ""}
        thresholdMeters={challenge.proximityThreshold}
        earliest={shown!.earliest}
        highest={shown!.highest}
        guesses={shown!.guesses}
        complete={guesses.data.complete}
      />
    </Suspense>
  );
}

/** The reveal map's place in the Resolved details dialog and the Winners' Circle (main bundle:
 * a toggle and two queries). The map, with Leaflet, loads when the player opens it. */
import { useQuery } from "@tanstack/react-query";
import { lazy, Suspense, useId, useState } from "react";
import { confirmedGuessesQuery, winnersQuery, type Challenge } from "@/api";
import { Spinner } from "@/components/Spinner";

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
        earliest={winners.data.earliest}
        highest={winners.data.highest}
        guesses={guesses.data.guesses}
        complete={guesses.data.complete}
      />
    </Suspense>
  );
}

/** The reveal map (lazy chunk, with Leaflet): the solution, the proximity circle at its true
 * radius in metres, both winners' guesses with a line to the solution and their distance, and
 * every guess as a small point. The legend under it says the same in words. */
import { useEffect, useMemo, useRef } from "react";
import type { Stake } from "@/api";
import { formatDistance } from "@/lib/format";
import { createMap, destroyMap, dotIcon, L, pinIcon } from "./base-map";
import { textToPosition } from "./geo";

export interface RevealMapProps {
  challengeId: number;
  /** The revealed solution, canonical "lat, lon". */
  solution: string;
  thresholdMeters: number | null;
  earliest: Stake | null;
  highest: Stake | null;
  /** Confirmed guesses (possibly only the first pages: see `complete`). */
  guesses: Stake[];
  complete: boolean;
}

interface WinnerMark {
  key: string;
  label: string;
  winner: Stake;
}

/** The winners to draw: one mark when the same response won both prizes. */
export function winnerMarks(earliest: Stake | null, highest: Stake | null): WinnerMark[] {
  if (earliest && highest && earliest.id === highest.id) {
    return [{ key: "both", label: "Earliest and highest staked correct response", winner: earliest }];
  }
  const marks: WinnerMark[] = [];
  if (earliest) marks.push({ key: "earliest", label: "Earliest correct response", winner: earliest });
  if (highest) marks.push({ key: "highest", label: "Highest staked correct response", winner: highest });
  return marks;
}

export default function RevealMap(props: RevealMapProps) {
  const { challengeId, solution, thresholdMeters, earliest, highest, guesses, complete } = props;
  const containerRef = useRef<HTMLDivElement>(null);
  // Memoised on the answers (React Query keeps an unchanged answer the same object), so the map
  // below is redrawn when the data changes and not on every render.
  const target = useMemo(() => textToPosition(solution), [solution]);
  const marks = useMemo(() => winnerMarks(earliest, highest), [earliest, highest]);
  const drawnGuesses = useMemo(
    () => guesses.filter((g) => g.submissionText && textToPosition(g.submissionText)),
    [guesses],
  );

  useEffect(() => {
    const container = containerRef.current;
    if (!container || !target) return;
    const solutionAt = L.latLng(target.lat, target.lon);
    const map = createMap(container, { center: solutionAt, zoom: 15 });
    const bounds = L.latLngBounds(solutionAt, solutionAt);

    // Every guess, under everything else.
    for (const guess of drawnGuesses) {
      const at = textToPosition(guess.submissionText ?? "");
      if (!at) continue;
      L.circleMarker([at.lat, at.lon], {
        radius: 3,
        className: "map-guess-point",
        interactive: false,
      }).addTo(map);
    }

    if (thresholdMeters !== null) {
      const circle = L.circle(solutionAt, {
        radius: thresholdMeters,
        className: "map-proximity-circle",
        interactive: false,
      }).addTo(map);
      bounds.extend(circle.getBounds());
    }

    for (const mark of marks) {
      const at = textToPosition(mark.winner.submissionText ?? "");
      if (!at) continue;
      const guessAt = L.latLng(at.lat, at.lon);
      L.polyline([guessAt, solutionAt], {
        className: `map-winner-line map-winner-line-${mark.key}`,
        interactive: false,
      }).addTo(map);
      L.marker(guessAt, {
        icon: dotIcon(`map-winner map-winner-${mark.key}`),
        interactive: false,
        keyboard: false,
        title: mark.label,
      })
        .bindTooltip(`${mark.label}: ${formatDistance(mark.winner.distanceMeters)}`, {
          permanent: true,
          direction: mark.key === "highest" ? "left" : "right",
          className: `map-distance-label map-distance-${mark.key}`,
        })
        .addTo(map);
      bounds.extend(guessAt);
    }

    L.marker(solutionAt, { icon: pinIcon("map-pin-solution"), interactive: false, keyboard: false, title: "Solution" })
      .bindTooltip("Solution", { permanent: true, direction: "top", offset: [0, -36], className: "map-solution-label" })
      .addTo(map);

    const size = map.getSize();
    if (size.x > 0 && size.y > 0) map.fitBounds(bounds, { padding: [48, 48], maxZoom: 18 });
    return () => destroyMap(container, map);
  }, [target, marks, drawnGuesses, thresholdMeters]);

  if (!target) return <p>The solution was not revealed, so there is no map.</p>;
  const legendId = `reveal-map-legend-${challengeId}`;
  return (
    <figure className="reveal-map">
      <div
        ref={containerRef}
        className="map-canvas"
        role="region"
        aria-label={`Map of the solution and the winners of challenge #${challengeId}`}
        aria-describedby={legendId}
      />
      <figcaption id={legendId}>
        <ul className="map-legend">
          <li>
            <span className="legend-swatch legend-solution" aria-hidden="true" /> Solution: {target.text}
          </li>
          <li>
            <span className="legend-swatch legend-circle" aria-hidden="true" />{" "}
            {thresholdMeters === null
              ? "No proximity threshold was set, so there is no circle."
              : `Proximity circle: ${thresholdMeters} m radius`}
          </li>
          {marks.map((mark) => (
            <li key={mark.key}>
              <span className={`legend-swatch legend-winner-${mark.key}`} aria-hidden="true" /> {mark.label}:{" "}
              {mark.winner.submissionText ?? "hidden"}, {formatDistance(mark.winner.distanceMeters)} from the solution
            </li>
          ))}
          {marks.length === 0 ? <li>No correct responses, so no winners to show.</li> : null}
          <li>
            <span className="legend-swatch legend-point" aria-hidden="true" />{" "}
            {complete
              ? `Confirmed guesses: ${drawnGuesses.length} ${drawnGuesses.length === 1 ? "point" : "points"}`
              : `Confirmed guesses: the first ${drawnGuesses.length} as points (not all are shown)`}
          </li>
        </ul>
      </figcaption>
    </figure>
  );
}

import { within } from "@testing-library/react";
import * as L from "leaflet";
import { afterEach, describe, expect, it, vi } from "vitest";
import { GUESS_PAGE_SIZE } from "@/api/responses";
import { installFakeServer, json } from "../../test/http";
import { renderWithClient } from "../../test/render";
import { OPERA, OPERA_WINNERS, PYRAMID, PYRAMID_WINNERS } from "../../test/resolvedChallenges";
import { layers, openRevealMap, servePyramid, SOLUTION } from "../../test/revealMap";
import { RevealMapSection } from "./RevealMapSection";

afterEach(() => vi.unstubAllGlobals());

// Typing and lazy chunks under a loaded machine (two cores, several engineers) can take seconds.
describe("the reveal map", { timeout: 30000 }, () => {
  it("shows the solution, the circle at the threshold radius, both winners with lines, and every confirmed guess", async () => {
    servePyramid();
    renderWithClient(<RevealMapSection challenge={PYRAMID} />);
    const { region, map } = await openRevealMap();
    const { circles, lines, points, markers } = layers(map);

    // The proximity circle: centred on the solution, at its true radius in metres.
    expect(circles).toHaveLength(1);
    expect(circles[0]!.getLatLng()).toEqual(SOLUTION);
    expect(circles[0]!.getRadius()).toBe(150);

    // Both winners: a marker at each guess and a line from it to the solution.
    const earliest = L.latLng(29.9792, 31.1342);
    const highest = L.latLng(29.97918, 31.13426);
    expect(lines.map((line) => line.getLatLngs())).toEqual([
      [earliest, SOLUTION],
      [highest, SOLUTION],
    ]);
    const byTitle = Object.fromEntries(markers.map((m) => [m.options.title, m]));
    expect(byTitle["Solution"]!.getLatLng()).toEqual(SOLUTION);
    expect(byTitle["Earliest correct response"]!.getLatLng()).toEqual(earliest);
    expect(byTitle["Highest staked correct response"]!.getLatLng()).toEqual(highest);
    // Their distances, on the map and in the legend.
    expect(byTitle["Earliest correct response"]!.getTooltip()?.getContent()).toBe("Earliest correct response: 6.24 m");
    expect(byTitle["Highest staked correct response"]!.getTooltip()?.getContent()).toBe(
      "Highest staked correct response: 0.59 m",
    );

    // Every confirmed guess of both pages is a point.
    expect(points.map((p) => p.getLatLng())).toEqual([earliest, highest, L.latLng(30.0444, 31.2357)]);

    const legend = within(region.closest("figure")!);
    expect(legend.getByText(/Solution: 29.979175, 31.134258/)).toBeInTheDocument();
    expect(legend.getByText(/Proximity circle: 150 m radius/)).toBeInTheDocument();
    expect(
      legend.getByText(/Earliest correct response: 29.9792, 31.1342, 6.24 m from the solution/),
    ).toBeInTheDocument();
    expect(legend.getByText(/Highest staked correct response: 29.97918, 31.13426, 0.59 m/)).toBeInTheDocument();
    expect(legend.getByText(/Confirmed guesses: 3 points/)).toBeInTheDocument();
  });

  it("draws one winner mark when the same response won both prizes", async () => {
    const server = servePyramid();
    server.on("GET", "/api/challenges/1/winners", () =>
      json({ ...PYRAMID_WINNERS, highest: PYRAMID_WINNERS.earliest }),
    );
    renderWithClient(<RevealMapSection challenge={PYRAMID} />);
    const { map } = await openRevealMap();
    const { lines, markers } = layers(map);
    expect(lines).toHaveLength(1);
    expect(markers.map((m) => m.options.title).sort()).toEqual([
      "Earliest and highest staked correct response",
      "Solution",
    ]);
  });

  it("without a threshold or winners there is no circle and no line, and it says so", async () => {
    const server = installFakeServer();
    server.on("GET", "/api/challenges/2/winners", () => json(OPERA_WINNERS));
    server.on("GET", `/api/responses?challengeId=2&limit=${GUESS_PAGE_SIZE}`, () => json([]));
    renderWithClient(<RevealMapSection challenge={OPERA} />);
    const { region, map } = await openRevealMap();
    const { circles, lines, markers } = layers(map);
    expect(circles).toHaveLength(0);
    expect(lines).toHaveLength(0);
    expect(markers.map((m) => m.options.title)).toEqual(["Solution"]);
    expect(region.closest("figure")).toHaveTextContent("No proximity threshold was set, so there is no circle.");
    expect(region.closest("figure")).toHaveTextContent("No correct responses, so no winners to show.");
  });
});

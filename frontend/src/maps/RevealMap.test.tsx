import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import * as L from "leaflet";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ScoredResponse } from "@/api";
import { installFakeServer, json } from "../../test/http";
import { renderWithClient } from "../../test/render";
import { OPERA, OPERA_WINNERS, PYRAMID, PYRAMID_RESPONSES, PYRAMID_WINNERS } from "../../test/resolvedChallenges";
import { ResolvedTab } from "../tabs/resolved";
import { WinnersTab } from "../tabs/winners";
import { fetchConfirmedGuesses, GUESS_PAGES, GUESS_PAGE_SIZE, nextLink } from "@/api/responses";
import { mapOf } from "./registry";
import { RevealMapSection } from "./RevealMapSection";

afterEach(() => vi.unstubAllGlobals());

const page1 = `/api/responses?challengeId=1&limit=${GUESS_PAGE_SIZE}`;
const page2 = `http://testserver/api/responses?challengeId=1&limit=${GUESS_PAGE_SIZE}&cursor=YWZ0ZXI6Mg`;

/** Pyramid's answers; the confirmed responses come in two pages linked by the Link header. */
function servePyramid() {
  const server = installFakeServer();
  server.on("GET", "/api/challenges/resolved", () => json([PYRAMID, OPERA]));
  server.on("GET", "/api/challenges/1/winners", () => json(PYRAMID_WINNERS));
  server.on("GET", "/api/challenges/2/winners", () => json(OPERA_WINNERS));
  server.on("GET", "/api/responses?challengeId=1", () => json(PYRAMID_RESPONSES));
  server.on("GET", page1, () => json(PYRAMID_RESPONSES.slice(0, 2), 200, { Link: `<${page2}>; rel="next"` }));
  server.on("GET", page2, () => json(PYRAMID_RESPONSES.slice(2)));
  return server;
}

function layers(map: L.Map) {
  const found = {
    circles: [] as L.Circle[],
    lines: [] as L.Polyline[],
    points: [] as L.CircleMarker[],
    markers: [] as L.Marker[],
  };
  map.eachLayer((layer) => {
    if (layer instanceof L.Circle) found.circles.push(layer);
    else if (layer instanceof L.CircleMarker) found.points.push(layer);
    else if (layer instanceof L.Polyline) found.lines.push(layer);
    else if (layer instanceof L.Marker) found.markers.push(layer);
  });
  return found;
}

async function openRevealMap() {
  const user = userEvent.setup();
  await user.click(await screen.findByRole("button", { name: "Show the map" }));
  const region = await screen.findByRole("region", { name: /^Map of the solution and the winners/ });
  // The map is made in an effect after the lazy chunk renders.
  const map = await waitFor(() => {
    const found = mapOf(region);
    if (!found) throw new Error("no Leaflet map in the region yet");
    return found;
  });
  return { user, region, map };
}

const SOLUTION = L.latLng(29.979175, 31.134258);

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

  it("is in the Resolved details dialog", async () => {
    servePyramid();
    renderWithClient(<ResolvedTab />);
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: /Four Thousand Summers/ }));
    const dialog = await screen.findByRole("dialog", { name: "Resolved Challenge Details" });
    await user.click(within(dialog).getByRole("button", { name: "Show the map" }));
    const region = await within(dialog).findByRole("region", { name: /^Map of the solution/ });
    await waitFor(() => expect(layers(mapOf(region)!).circles[0]!.getRadius()).toBe(150));
  });

  it("is in the Winners' Circle", async () => {
    servePyramid();
    renderWithClient(<WinnersTab />);
    const user = userEvent.setup();
    const trigger = await screen.findByRole("combobox", { name: "Choose a completed challenge to view winners" });
    await vi.waitFor(() => expect(trigger).toBeEnabled());
    await user.click(trigger);
    await user.click(await screen.findByRole("option", { name: "Challenge #1: Four Thousand Summers" }));
    const { map } = await openRevealMap();
    expect(layers(map).lines).toHaveLength(2);
  });
});

describe("the confirmed guesses behind the reveal map", () => {
  it("reads the next page from the Link header", () => {
    expect(nextLink(`<${page2}>; rel="next"`)).toBe(page2);
    expect(nextLink(null)).toBeNull();
    expect(nextLink('<http://x/a>; rel="prev"')).toBeNull();
  });

  it(`stops after ${GUESS_PAGES} pages and says the list is incomplete`, async () => {
    const server = installFakeServer();
    const guess: ScoredResponse = PYRAMID_RESPONSES[2]!;
    const pageUrl = (n: number) => (n === 0 ? page1 : `http://testserver/api/responses?page=${n}`);
    for (let n = 0; n <= GUESS_PAGES; n += 1) {
      server.on("GET", pageUrl(n), () =>
        json([{ ...guess, id: n + 10 }], 200, { Link: `<${pageUrl(n + 1)}>; rel="next"` }),
      );
    }
    const result = await fetchConfirmedGuesses(1);
    expect(result.guesses.map((g) => g.id)).toEqual([10, 11, 12, 13, 14]);
    expect(result.complete).toBe(false);
    expect(server.calls).toHaveLength(GUESS_PAGES);
    expect(server.calls[0]!.init?.credentials).toBe("include");
  });
});

import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import * as L from "leaflet";
import { GUESS_PAGE_SIZE } from "@/api/responses";
import { mapOf } from "@/maps/registry";
import { installFakeServer, json } from "./http";
import { OPERA, OPERA_WINNERS, PYRAMID, PYRAMID_RESPONSES, PYRAMID_WINNERS } from "./resolvedChallenges";

/** The reveal map's test helpers: the Pyramid's answers, the Leaflet layers drawn, and opening the
 * map wherever it is shown (maps/RevealMap.test.tsx, the tabs' own tests). */

export const page1 = `/api/responses?challengeId=1&limit=${GUESS_PAGE_SIZE}`;
export const page2 = `http://testserver/api/responses?challengeId=1&limit=${GUESS_PAGE_SIZE}&cursor=YWZ0ZXI6Mg`;

/** Pyramid's answers; the confirmed responses come in two pages linked by the Link header. */
export function servePyramid() {
  const server = installFakeServer();
  server.on("GET", "/api/challenges/resolved", () => json([PYRAMID, OPERA]));
  server.on("GET", "/api/challenges/1/winners", () => json(PYRAMID_WINNERS));
  server.on("GET", "/api/challenges/2/winners", () => json(OPERA_WINNERS));
  server.on("GET", "/api/responses?challengeId=1", () => json(PYRAMID_RESPONSES));
  server.on("GET", page1, () => json(PYRAMID_RESPONSES.slice(0, 2), 200, { Link: `<${page2}>; rel="next"` }));
  server.on("GET", page2, () => json(PYRAMID_RESPONSES.slice(2)));
  return server;
}

export function layers(map: L.Map) {
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

export async function openRevealMap() {
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

export const SOLUTION = L.latLng(29.979175, 31.134258);

// The maps as a player uses them: the pick map beside the coordinates field (a click or the arrow
// keys write canonical coordinates) and the reveal map of a challenge whose solution is out (the
// proximity circle at its true radius, the solution, both winners and every published guess).
// This machine has no internet: the tiles never load, and the maps say so and still work.
import assert from "node:assert/strict";

import { assertNoViolationsIn } from "./axe.mjs";
import { coordinatesField } from "./game.mjs";

export const PICK_MAP = "Map for your guess";
export const CANONICAL = /^-?\d{1,2}(\.\d{1,6})?, -?\d{1,3}(\.\d{1,6})?$/;
// Leaflet's world is 256 px wide at zoom 0: degrees of longitude per pixel at zoom 12.
const DEG_PER_PX_Z12 = 360 / (256 * 2 ** 12);

const parse = (text) => text.split(",").map((part) => Number(part.trim()));

/** Types `start`, opens the pick map on it, moves the pin north with the arrow key, then clicks
 * 120 px east and 80 px south of the centre; returns the canonical coordinates the field then holds. */
export async function pickOnMap(page, start) {
  const field = coordinatesField(page);
  await field.fill(start);
  await page.getByRole("button", { name: "Show map" }).click();
  const map = page.getByRole("application", { name: PICK_MAP });
  await map.waitFor();
  await map.locator(".map-pin-guess").waitFor(); // the typed coordinates already have a pin
  await page.getByText("Map tiles unavailable — markers and clicks still work").waitFor({ timeout: 20000 });

  // Keyboard: the arrow keys move the pin (10 px at zoom 12 a step) and rewrite the field.
  await map.focus();
  await page.keyboard.press("ArrowUp");
  const [latUp, lonUp] = parse(await field.inputValue());
  const [lat0, lon0] = parse(start);
  assert.ok(latUp > lat0 && Math.abs(latUp - lat0 - 10 * DEG_PER_PX_Z12) < 1e-5, `ArrowUp moved north: ${latUp}`);
  assert.equal(lonUp, lon0);

  const beforeClick = await field.inputValue();
  await map.scrollIntoViewIfNeeded();
  const box = await map.boundingBox();
  await map.click({ position: { x: box.width / 2 + 120, y: box.height / 2 + 80 } });
  await page.waitForFunction(
    (previous) => document.querySelector('input[name="coordinates"]')?.value !== previous,
    beforeClick,
  );
  const picked = await field.inputValue();
  assert.match(picked, CANONICAL, `canonical, at most 6 decimals: ${picked}`);
  const [lat, lon] = parse(picked);
  assert.ok(Math.abs(lon - (lon0 + 120 * DEG_PER_PX_Z12)) < 0.0005, `longitude of the click: ${lon}`);
  assert.ok(lat < lat0 && lat0 - lat < 80 * DEG_PER_PX_Z12, `latitude of the click, south of the start: ${lat}`);
  await assertNoViolationsIn(page, ".map-addon");
  return { map, picked };
}

/** The reveal map under `scope` (the Resolved details, or the Winners' Circle panel): the proximity
 * circle at its true radius, a line from each winner to the solution, the winners' distances, one
 * point per published guess. */
export async function assertRevealMap(page, scope, { threshold, latitude, earliest, highest, guesses }) {
  await scope.getByRole("button", { name: "Show the map" }).click();
  const region = scope.getByRole("region", { name: /^Map of the solution and the winners/ });
  await region.waitFor();
  const figure = region.locator("xpath=ancestor::figure[1]");
  await region.locator("path.map-proximity-circle").waitFor();
  assert.equal(await region.locator("path.map-proximity-circle").count(), 1);
  assert.equal(await region.locator("path.map-winner-line").count(), 2, "a line from each winner to the solution");
  assert.equal(await region.locator(".map-winner-earliest").count(), 1);
  assert.equal(await region.locator(".map-winner-highest").count(), 1);
  assert.equal(await region.locator(".map-pin-solution").count(), 1);
  assert.equal(await region.locator("path.map-guess-point").count(), guesses, "every published guess is a point");
  await region.getByText(`Earliest correct response: ${earliest.toFixed(2)} m`).waitFor();
  await region.getByText(`Highest staked correct response: ${highest.toFixed(2)} m`).waitFor();
  await figure.getByText(`Proximity circle: ${threshold} m radius`).waitFor();
  await assertNoViolationsIn(page, ".reveal-map-section");
  // The circle is drawn at its true radius: its on-screen diameter against Web Mercator's scale at
  // this zoom (read from a tile's URL, .../{z}/{x}/{y}.png) and latitude, measured again until the
  // map has settled (at most 5 s): mid-animation the SVG is scaled and old tiles linger.
  const deadline = Date.now() + 5000;
  let radiusMetres = NaN;
  for (;;) {
    const measured = await region.evaluate((element) => {
      const box = element.querySelector("path.map-proximity-circle").getBoundingClientRect();
      const tile = element.querySelector("img.leaflet-tile");
      const zoom = tile ? Number(new URL(tile.src).pathname.split("/").at(-3)) : null;
      return { diameterPx: box.height, zoom };
    });
    assert.ok(Number.isInteger(measured.zoom), "the tile layer is there (its URL gives the zoom)");
    const metresPerPx = (40075016.686 * Math.cos((latitude * Math.PI) / 180)) / (256 * 2 ** measured.zoom);
    radiusMetres = (measured.diameterPx / 2) * metresPerPx;
    if (Math.abs(radiusMetres - threshold) / threshold < 0.05 || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.ok(
    Math.abs(radiusMetres - threshold) / threshold < 0.05,
    `circle radius ${radiusMetres.toFixed(1)} m, threshold ${threshold} m`,
  );
  return region;
}

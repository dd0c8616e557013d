// The maps: a guess picked on the pick map is the guess paid for and stored; the reveal map of a
// resolved challenge shows its proximity circle and both winners, in the Resolved details dialog
// and in the Winners' Circle. Screenshots of both maps go to e2e/artifacts/screenshots.
//
// In the suite it runs before adminResolve (it needs the active challenge). On its own, with its
// own stack (database geopoem_maps, Redis DB 10, so a suite run beside it is not disturbed):
//   npm run build && node --test e2e/flows/maps.mjs
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { query } from "../lib/db.mjs";
import {
  activeChallenge,
  chooseTransfer,
  confirmDialog,
  coordinatesField,
  expectToast,
  openGame,
  openTab,
  settledResponse,
  SPEC,
  stakeField,
} from "../lib/game.mjs";
import { describeOnOwnStack, screenshot, state, withPlayer } from "../lib/suite.mjs";

const PICK_MAP = "Map for your guess";
const START = "40.689247, -74.044502"; // typed first: the map opens on it, at zoom 12
const CANONICAL = /^-?\d{1,2}(\.\d{1,6})?, -?\d{1,3}(\.\d{1,6})?$/;
// Leaflet's world is 256 px wide at zoom 0: degrees of longitude per pixel at zoom 12.
const DEG_PER_PX_Z12 = 360 / (256 * 2 ** 12);

// axe-core through the DevTools protocol (the page's CSP refuses an injected <script>), on the map
// parts only: the rest of the page is the other flows' to check.
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
async function assertAccessible(page, selector) {
  if (!(await page.evaluate(() => typeof window.axe !== "undefined"))) await page.evaluate(AXE_SOURCE);
  const { violations } = await page.evaluate(
    (include) => window.axe.run({ include: [include] }, { resultTypes: ["violations"] }),
    selector,
  );
  const summary = violations.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help} — ${v.nodes
        .slice(0, 3)
        .map((n) => n.target.join(" "))
        .join(" | ")}`,
  );
  assert.deepEqual(summary, [], `axe found violations in ${selector}`);
}

const parse = (text) => text.split(",").map((part) => Number(part.trim()));

/** The map's reveal part under `scope` (the dialog, or the Winners' Circle panel). */
async function assertRevealMap(page, scope, { threshold, latitude, earliest, highest, guesses }) {
  await scope.getByRole("button", { name: "Show the map" }).click();
  const region = scope.getByRole("region", { name: /^Map of the solution and the winners/ });
  await region.waitFor();
  const figure = region.locator("xpath=ancestor::figure[1]");
  // The circle and the lines are SVG paths Leaflet drew; the markers are its divs.
  await region.locator("path.map-proximity-circle").waitFor();
  assert.equal(await region.locator("path.map-proximity-circle").count(), 1);
  assert.equal(await region.locator("path.map-winner-line").count(), 2, "a line from each winner to the solution");
  assert.equal(await region.locator(".map-winner-earliest").count(), 1);
  assert.equal(await region.locator(".map-winner-highest").count(), 1);
  assert.equal(await region.locator(".map-pin-solution").count(), 1);
  assert.equal(await region.locator("path.map-guess-point").count(), guesses, "every confirmed guess is a point");
  await region.getByText(`Earliest correct response: ${earliest.toFixed(2)} m`).waitFor();
  await region.getByText(`Highest staked correct response: ${highest.toFixed(2)} m`).waitFor();
  await figure.getByText(`Proximity circle: ${threshold} m radius`).waitFor();
  await assertAccessible(page, ".reveal-map-section");
  // The circle is drawn at its true radius: its on-screen diameter against Web Mercator's scale
  // at this zoom (read from a tile's URL, .../{z}/{x}/{y}.png) and latitude. Measured again until
  // the map has settled (for at most 5 s): in the middle of Leaflet's zoom animation the SVG is
  // scaled and the tiles of the old zoom are still there, so a single early reading can be off.
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

export function register() {
  test(
    "pick map: a click fills the field with canonical coordinates, the arrow keys move the pin, and the guess stored is the map's",
    { timeout: 120000 },
    async () => {
      const { stack } = state;
      const player = stack.accounts.players[6];
      const challenge = await activeChallenge();
      assert.ok(challenge, "an active challenge to guess on");

      await withPlayer({ account: player }, async ({ page, wallet, errors }) => {
        await openGame(page);
        await page.getByText(challenge.poem_title).first().waitFor();
        const field = coordinatesField(page);
        await field.fill(START);
        await page.getByRole("button", { name: "Show map" }).click();
        const map = page.getByRole("application", { name: PICK_MAP });
        await map.waitFor();
        await map.locator(".map-pin-guess").waitFor(); // the typed coordinates already have a pin

        // Keyboard: the arrow keys move the pin (10 px at zoom 12 a step) and rewrite the field.
        await map.focus();
        await page.keyboard.press("ArrowUp");
        const [latUp, lonUp] = parse(await field.inputValue());
        const [lat0, lon0] = parse(START);
        assert.ok(
          latUp > lat0 && Math.abs(latUp - lat0 - 10 * DEG_PER_PX_Z12) < 1e-5,
          `ArrowUp moved north by a step: ${latUp}`,
        );
        assert.equal(lonUp, lon0);

        // A click 120 px east and 80 px south of the centre (the start) drops the pin there.
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
        await screenshot(page, "pick-map-1280");
        await assertAccessible(page, ".map-addon");

        // Submit the guess the map produced.
        await stakeField(page).fill("1");
        await page.getByRole("button", { name: SPEC.submit }).click();
        const dialog = confirmDialog(page);
        await dialog.waitFor();
        await dialog.getByText(picked).first().waitFor();
        await chooseTransfer(dialog);
        await dialog.getByRole("button", { name: "Confirm" }).click();
        await expectToast(page, SPEC.submitted);
        assert.equal(await field.inputValue(), "", "the form is reset after the submission");
        assert.equal(await map.locator(".map-pin-guess").count(), 0, "and the pin goes with the text");

        assert.equal(wallet.sentTransactions.length, 1);
        const row = await settledResponse(wallet.sentTransactions[0].hash);
        assert.equal(row.status, "confirmed", `claim ${row.status}: ${row.rejection_code} ${row.rejection_reason}`);
        assert.equal(row.submission_text, picked, "the stored claim holds the coordinates the map wrote");
        assert.equal(row.challenge_id, challenge.id);
        assert.deepEqual(errors, []);
      });
    },
  );

  test(
    "reveal map: the proximity circle and both winners with their distances, in the Resolved details and the Winners' Circle",
    { timeout: 120000 },
    async () => {
      const { stack } = state;
      const [pyramid] = await query(
        stack.dbUrl,
        "SELECT id, poem_title, proximity_threshold_m, solution FROM challenges_challenge WHERE status = 'resolved' AND poem_title = 'Four Thousand Summers'",
      );
      assert.ok(pyramid, "the seeded resolved challenge");
      const scored = `SELECT id FROM responses_response WHERE challenge_id = ${pyramid.id} AND status = 'confirmed' AND is_correct`;
      const [earliest] = await query(
        stack.dbUrl,
        `${scored} ORDER BY block_number, transaction_index, log_index, id LIMIT 1`,
      );
      const [highest] = await query(
        stack.dbUrl,
        `${scored} ORDER BY submission_stake DESC, block_number, transaction_index, log_index, id LIMIT 1`,
      );
      const [{ count: guesses }] = await query(
        stack.dbUrl,
        `SELECT count(*)::int AS count FROM responses_response WHERE challenge_id = ${pyramid.id} AND status = 'confirmed'`,
      );
      const latitude = Number(pyramid.solution.split(",")[0]);
      // Distances are not stored: the public list computes them when a page is read.
      const listed = await (await fetch(`${stack.baseUrl}/api/responses?challengeId=${pyramid.id}&limit=1000`)).json();
      const distance = Object.fromEntries(listed.map((r) => [r.id, r.distanceMeters]));
      const expected = {
        threshold: pyramid.proximity_threshold_m,
        latitude,
        earliest: distance[earliest.id],
        highest: distance[highest.id],
        guesses,
      };

      await withPlayer({}, async ({ page, errors }) => {
        await openGame(page);
        await openTab(page, "Resolved Challenges");
        await page.getByRole("button", { name: new RegExp(pyramid.poem_title) }).click();
        const details = page.getByRole("dialog", { name: "Resolved Challenge Details" });
        await details.waitFor();
        const region = await assertRevealMap(page, details, expected);
        await region.scrollIntoViewIfNeeded();
        await screenshot(page, "reveal-map-resolved-1280");
        await page.keyboard.press("Escape");
        await details.waitFor({ state: "hidden" });

        await openTab(page, "Winners' Circle");
        await page.getByRole("combobox").click();
        await page.getByRole("option", { name: `Challenge #${pyramid.id}: ${pyramid.poem_title}` }).click();
        const winners = await assertRevealMap(page, page.getByRole("tabpanel"), expected);
        await winners.scrollIntoViewIfNeeded();
        await screenshot(page, "reveal-map-winners-1280");
        assert.deepEqual(errors, []);
      });
    },
  );
}

// Run on its own: `node --test e2e/flows/maps.mjs` starts (and stops) a stack of its own.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.env.E2E_DB_NAME ??= "geopoem_maps";
  process.env.E2E_REDIS_DB ??= "10";
  process.env.E2E_LOG_DIR ??= path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "artifacts", "logs-maps");
  describeOnOwnStack("maps, on their own stack", register);
}

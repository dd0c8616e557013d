// A guess picked on the map and staked by signature while no block is mined: Geopoem's relayer has
// sent it and it waits in the pool; the player reloads the page, and the row and its record (the
// guess, its salt, the signature) are still there; then blocks come, the stake is confirmed and the
// page hands the guess to Geopoem: the one stored is the one the map wrote.
import assert from "node:assert/strict";
import { test } from "node:test";

import { query, sqlString } from "../lib/db.mjs";
import {
  expectToast,
  mySubmissions,
  openGame,
  rowOf,
  screenshotsOf,
  signedStakesOf,
  SPEC,
  stakeField,
  until,
  withMiningHeld,
  confirmDialog,
} from "../lib/game.mjs";
import { pickOnMap } from "../lib/maps.mjs";
import { screenshot, state, withPlayer } from "../lib/suite.mjs";

const START = "40.689247, -74.044502"; // typed first: the map opens on it, at zoom 12

export function register() {
  test("a stake picked on the map, relaying across a reload: the row and its record stay; then Confirmed", async () => {
    const { stack } = state;
    const player = stack.accounts.players[3];
    await withPlayer({ account: player }, async ({ page, errors }) => {
      await openGame(page);
      const { map, picked } = await pickOnMap(page, START);
      await screenshot(page, "pick-map-1280", { fullPage: false });
      await stakeField(page).fill("1");
      await page.getByRole("button", { name: SPEC.submit }).click();
      const dialog = confirmDialog(page);
      await dialog.getByText(picked).first().waitFor();
      const row = rowOf(page, picked);
      await withMiningHeld(async () => {
        await dialog.getByRole("button", { name: "Confirm" }).click();
        await expectToast(page, SPEC.submitted);
        assert.equal(await map.locator(".map-pin-guess").count(), 0, "the pin goes with the text of the form");
        await row.getByText("Relaying: sent by Geopoem's relayer, waiting for the chain").waitFor({ timeout: 30000 });
        const [signed] = await signedStakesOf(player);
        assert.equal(signed.relay_status, "sent");
        await row.getByText(signed.relay_transaction_hash.toLowerCase(), { exact: false }).first().waitFor();
        await screenshotsOf(page, row, "row-relaying");

        await page.reload();
        await page.getByRole("tablist").waitFor();
        await row.getByText("Relaying: sent by Geopoem's relayer, waiting for the chain").waitFor({ timeout: 30000 });
        await row.getByText(picked, { exact: true }).waitFor();
        await row.getByRole("button", { name: "Download record" }).waitFor();
        const kept = JSON.parse(await page.evaluate(() => localStorage.getItem("geopoem:stakes:v2")));
        assert.equal(kept.length, 1);
        assert.equal(kept[0].text, picked);
        assert.match(kept[0].salt, /^[0-9a-f]{64}$/);
        assert.match(kept[0].authorization.signature, /^0x[0-9a-f]{130}$/);
        await screenshotsOf(page, row, "row-relaying-after-reload");
      });
      await row.getByText(/^Confirmed in the pot \(stake #\d+\)$/).waitFor({ timeout: 60000 });
      await row.getByText("Guess received by Geopoem").waitFor({ timeout: 30000 });
      assert.equal(await mySubmissions(page).getByRole("listitem").count(), 1, "one row, not two");
      const stored = await until(
        async () =>
          (await query(stack.dbUrl, `SELECT text FROM responses_guess WHERE payer = lower(${sqlString(player)})`))[0],
        "the guess stored",
      );
      assert.equal(stored.text, picked, "the guess Geopoem holds is the one the map wrote");
      assert.deepEqual(errors, []);
    });
  });
}

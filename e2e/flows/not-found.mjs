import assert from "node:assert/strict";
import { test } from "node:test";

import { screenshot, state, withPlayer } from "../lib/suite.mjs";

export function register() {
  test("an unknown path shows the 404 page", async () => {
    await withPlayer({}, async ({ page }) => {
      const answer = await page.goto(`${state.stack.baseUrl}/no/such/page`);
      assert.equal(answer.status(), 404);
      await page.getByRole("heading", { name: "404 Page Not Found" }).waitFor();
      await page.getByText("Did you forget to add the page to the router?").waitFor();
      await screenshot(page, "not-found-1280");
      await page.setViewportSize({ width: 390, height: 844 });
      await screenshot(page, "not-found-390");
      // Not a dead end: the way back to the game.
      await page.getByRole("link", { name: "Back to Geopoem" }).click();
      await page.getByRole("tablist").waitFor();
    });
  });
}

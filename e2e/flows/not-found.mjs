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
    });
  });
}

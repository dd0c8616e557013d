import assert from "node:assert/strict";
import { test } from "node:test";

import { expectToast, openGame, shortAddress, SPEC } from "../lib/game.mjs";
import { query } from "../lib/db.mjs";
import { state, withPlayer } from "../lib/suite.mjs";

export function register() {
  test("connect shows the shortened address, follows an account change, and a network change reloads the page", async () => {
    const [first, second] = state.stack.accounts.players;
    const before = await query(state.stack.dbUrl, "SELECT count(*)::int AS n FROM responses_response");
    await withPlayer({ accounts: [first, second] }, async ({ page, wallet }) => {
      await openGame(page);
      const connect = page.getByRole("button", { name: SPEC.connect });
      await connect.click();
      await expectToast(page, SPEC.connected);
      const header = page.getByRole("banner");
      await header.getByText(shortAddress(first)).waitFor();
      assert.equal(
        await header.getByText(shortAddress(first)).textContent(),
        `${first.slice(0, 6)}...${first.slice(-4)}`,
      );
      assert.ok(wallet.methods().includes("eth_requestAccounts"));

      await wallet.selectAccount(second);
      await header.getByText(shortAddress(second)).waitFor();
      assert.equal(await header.getByText(shortAddress(first)).count(), 0);

      // A marker in the page's memory: a reload wipes it.
      await page.evaluate(() => {
        window.__e2eBeforeReload = true;
      });
      const reloaded = page.waitForEvent("load");
      await wallet.changeChain("0x1");
      await reloaded;
      await page.getByRole("tablist").waitFor();
      assert.equal(await page.evaluate(() => window.__e2eBeforeReload ?? false), false);
      // On load the existing connection is looked up: still connected, with the new account.
      await header.getByText(shortAddress(second)).waitFor();
      assert.equal(await page.getByRole("button", { name: SPEC.connect }).count(), 0);
    });
    const after = await query(state.stack.dbUrl, "SELECT count(*)::int AS n FROM responses_response");
    assert.deepEqual(after, before, "connecting records nothing");
  });
}

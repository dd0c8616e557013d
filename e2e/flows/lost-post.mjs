import assert from "node:assert/strict";
import { test } from "node:test";

import { expectToast, responsesOf, settledResponse, submitGuess, toast, waitForGame } from "../lib/game.mjs";
import { rpc } from "../lib/rpc.mjs";
import { state, withPlayer } from "../lib/suite.mjs";

export function register() {
  test("a POST lost after a mined transaction is recovered on reload", { timeout: 120000 }, async () => {
    const { stack } = state;
    const player = stack.accounts.players[5];
    await withPlayer({ account: player }, async ({ page, wallet }) => {
      await waitForGame(page);
      // The one fault made with a mock: the network drops the claim's POST after the payment
      // is mined (a real network cannot be told to lose exactly this request).
      let dropped = 0;
      await page.route("**/api/responses", async (route) => {
        if (route.request().method() === "POST" && dropped === 0) {
          dropped += 1;
          await route.abort("connectionreset");
        } else {
          await route.continue();
        }
      });
      await submitGuess(page, "40.68925, -74.04450", "7");
      await toast(page, "Submission Failed").waitFor({ timeout: 30000 });
      assert.equal(dropped, 1);
      const { hash } = wallet.sentTransactions[0];
      assert.equal(
        (await rpc(stack.rpcUrl, "eth_getTransactionReceipt", [hash])).status,
        "0x1",
        "the payment was mined",
      );
      assert.deepEqual(await responsesOf(player), [], "the server never heard of the claim");
      const mine = page.getByRole("region", { name: "My submissions" });
      const entry = mine.getByRole("listitem").filter({ hasText: hash });
      await entry
        .getByText("Payment made, not yet recorded by Geopoem: it is sent again on your next visit", { exact: true })
        .waitFor();

      await page.unroute("**/api/responses");
      await page.reload();
      await page.getByRole("tablist").waitFor();
      await expectToast(page, [
        "Submission Recovered",
        "A paid guess from an earlier visit had not reached Geopoem; it has now been submitted.",
      ]);
      await entry.getByText("Recorded by Geopoem", { exact: true }).waitFor();
      const row = await settledResponse(hash);
      assert.equal(row.status, "confirmed", `claim ${row.status}: ${row.rejection_code} ${row.rejection_reason}`);
      assert.equal(row.submission_text, "40.68925, -74.0445");
      assert.equal(row.stake, "7.000000");
    });
  });
}

import assert from "node:assert/strict";
import { test } from "node:test";

import { expectToast, openGame, responsesOf, settledResponse, submitGuess, waitForGame } from "../lib/game.mjs";
import { rpc } from "../lib/rpc.mjs";
import { state, withPlayer } from "../lib/suite.mjs";

export function register() {
  test(
    "a POST lost after a mined transaction is sent again while the page is open, and recovered on reload",
    { timeout: 120000 },
    async () => {
      const { stack } = state;
      const player = stack.accounts.players[5];
      await withPlayer({ account: player }, async ({ page, wallet }) => {
        await waitForGame(page);
        // The one fault made with a mock: the network drops the claim's POSTs after the payment is
        // mined, until the player leaves the page (a real network cannot be told to lose exactly
        // these requests).
        let dropped = 0;
        await page.route("**/api/responses", async (route) => {
          if (route.request().method() === "POST") {
            dropped += 1;
            await route.abort("connectionreset");
          } else {
            await route.continue();
          }
        });
        await submitGuess(page, "40.68925, -74.04450", "7");
        // Paid, not yet recorded: the page says it keeps sending the claim (no red failure).
        await expectToast(page, [
          "Submission Delayed",
          'Your payment is confirmed. Geopoem has not recorded your solution yet; it is sent again automatically. See "My submissions".',
        ]);
        const { hash } = wallet.sentTransactions[0];
        assert.equal(
          (await rpc(stack.rpcUrl, "eth_getTransactionReceipt", [hash])).status,
          "0x1",
          "the payment was mined",
        );
        const mine = page.getByRole("region", { name: "My submissions" });
        const entry = mine.getByRole("listitem").filter({ hasText: hash });
        await entry
          .getByText(
            "Payment made, not yet recorded by Geopoem: it is sent again automatically while this page is open and on your next visit",
            { exact: true },
          )
          .waitFor();
        // Sent again while the page is open, about 2 s later.
        const deadline = Date.now() + 15000;
        while (dropped < 2) {
          assert.ok(Date.now() < deadline, `the claim was posted ${dropped} time(s) in 15 s`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        assert.deepEqual(await responsesOf(player), [], "the server never heard of the claim");

        // The player leaves; the network is back when they return.
        await page.goto("about:blank");
        await page.unroute("**/api/responses");
        await openGame(page);
        await expectToast(page, [
          "Submission Recovered",
          "A paid guess that had not reached Geopoem has now been recorded.",
        ]);
        await entry.getByText("Recorded by Geopoem", { exact: true }).waitFor();
        const row = await settledResponse(hash);
        assert.equal(row.status, "confirmed", `claim ${row.status}: ${row.rejection_code} ${row.rejection_reason}`);
        assert.equal(row.submission_text, "40.68925, -74.0445");
        assert.equal(row.stake, "7.000000");
      });
    },
  );
}

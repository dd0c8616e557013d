import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";

import { query, sqlString } from "../lib/db.mjs";
import { expectToast, SPEC, settledResponse, submitGuess, waitForGame } from "../lib/game.mjs";
import { rpc } from "../lib/rpc.mjs";
import { screenshot, state, withPlayer } from "../lib/suite.mjs";

/** A stranger's POST from outside the browser: his own CSRF cookie, his own invented guess and salt
 * on the player's transaction hash, naming whichever address he likes. */
async function squat(claim, naming) {
  const { baseUrl } = state.stack;
  const page = await fetch(`${baseUrl}/`);
  const cookie = page.headers.getSetCookie().find((c) => c.startsWith("csrftoken="));
  assert.ok(cookie, "the page sets a CSRF cookie");
  const token = cookie.split(";")[0].slice("csrftoken=".length);
  const answer = await fetch(`${baseUrl}/api/responses`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Cookie: `csrftoken=${token}`, "X-CSRFToken": token },
    body: JSON.stringify({
      challengeId: claim.challengeId,
      submissionText: "1.5, 2.5",
      submissionStake: claim.submissionStake,
      transactionHash: claim.transactionHash,
      submitterAddress: naming,
      submissionSalt: randomBytes(32).toString("hex"),
    }),
  });
  return { status: answer.status, body: await answer.json() };
}

export function register() {
  test(
    "a squatter posting on the player's hash between the receipt and the page's POST gains nothing",
    { timeout: 120000 },
    async () => {
      const { stack } = state;
      const player = stack.accounts.players[3];
      const stranger = stack.accounts.players[2];
      await withPlayer({ account: player }, async ({ page, wallet }) => {
        await waitForGame(page);
        // The page's POST is held (playwright's route) until the stranger, who read the hash on
        // chain, has posted his claims on it; then it goes on unchanged.
        const squats = [];
        await page.route("**/api/responses", async (route) => {
          const request = route.request();
          if (request.method() !== "POST" || squats.length > 0) return route.continue();
          const claim = request.postDataJSON();
          assert.equal(
            (await rpc(stack.rpcUrl, "eth_getTransactionReceipt", [claim.transactionHash])).status,
            "0x1",
            "posted after the receipt",
          );
          squats.push(await squat(claim, player), await squat(claim, stranger));
          return route.continue();
        });
        // Far from the solution and a small stake: the winners adminResolve checks stay the same.
        await submitGuess(page, "35.6586, 139.7454", "1.5");
        await expectToast(page, SPEC.submitted);

        const { hash } = wallet.sentTransactions[0];
        assert.deepEqual(
          squats.map(({ status, body }) => [status, body.code]),
          [
            [422, "commitment_mismatch"],
            [422, "wrong_sender"],
          ],
          "the server read the transaction and refused both: nothing stored",
        );
        const row = await settledResponse(hash);
        assert.equal(row.status, "confirmed", `claim ${row.status}: ${row.rejection_code} ${row.rejection_reason}`);
        assert.equal(row.submitter_address.toLowerCase(), player.toLowerCase());
        assert.equal(row.submission_text, "35.6586, 139.7454");
        const rows = await query(
          stack.dbUrl,
          `SELECT id FROM responses_response WHERE transaction_hash = lower(${sqlString(hash)})`,
        );
        assert.equal(rows.length, 1, "only the player's claim names the transaction");

        // A squatter coming after the confirmation: 409, still nothing stored.
        const late = await squat(
          { challengeId: row.challenge_id, submissionStake: "1.5", transactionHash: hash },
          player,
        );
        assert.equal(late.status, 409);

        await page.unroute("**/api/responses");
        await page.reload();
        const mine = page.getByRole("region", { name: "My submissions" });
        const entry = mine.getByRole("listitem").filter({ hasText: hash });
        await entry.getByText("35.6586, 139.7454", { exact: true }).waitFor();
        await entry.getByText("Confirmed", { exact: true }).waitFor({ timeout: 30000 });
        await screenshot(page, "squatter-my-submissions-1280");
      });
    },
  );
}

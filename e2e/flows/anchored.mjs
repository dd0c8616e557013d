import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";

import { query } from "../lib/db.mjs";
import {
  closeAndResolve,
  expectToast,
  openGame,
  openTab,
  settledResponse,
  SPEC,
  staffLogin,
  submitGuess,
} from "../lib/game.mjs";
import { screenshot, state, withPlayer } from "../lib/suite.mjs";

// A challenge's whole life with its terms on chain (docs/protocol.md section 6): staff write and
// publish it in the admin; the worker anchors its terms in the registry; only then do players see
// it, with the anchor's block on the card; a player stakes a correct guess from the wallet; staff
// close and resolve; the player sees the outcome in My submissions and re-checks everything, in the
// page and with the downloaded script, against the anchor the chain holds (their own record too).
const TITLE = "The Iron Lace";
const SOLUTION = "48.85837, 2.294481";
const GUESS = "48.8584, 2.2945";
const PYTHON = path.join(import.meta.dirname, "..", "..", ".venv", "bin", "python");
const SCRIPT = path.join(import.meta.dirname, "..", "..", "verify_challenge.py");

/** The anchor row of a challenge, as the worker left it. */
async function anchorOf(dbUrl, challengeId) {
  const [row] = await query(
    dbUrl,
    `SELECT status, block_number, transaction_hash FROM challenges_challengeanchor WHERE challenge_id = ${challengeId}`,
  );
  return row ?? null;
}

function runVerifier(args) {
  return spawnSync(PYTHON, ["-S", SCRIPT, ...args], { encoding: "utf8", timeout: 120000 });
}

export function register() {
  test(
    "a challenge published in the admin is anchored on chain, played, resolved and verified against its anchor",
    { timeout: 180000 },
    async () => {
      const { stack } = state;
      const player = stack.accounts.players[2];
      await withPlayer({ account: player }, async ({ page, wallet }) => {
        // Staff write the poem and publish it: one action.
        await staffLogin(page);
        await page.goto(`${stack.baseUrl}/admin/challenges/challenge/add/`);
        await page.getByLabel("Poem title").fill(TITLE);
        await page
          .getByLabel("Poem text")
          .fill("<p>Iron lace above the river,<br>a thousand stairs to count the wind.</p>");
        await page.getByLabel("Instructions text").fill("<p>Give the place as latitude, longitude.</p>");
        await page.getByLabel("Proximity threshold m").fill("100");
        await page.getByLabel("Solution").fill(SOLUTION);
        await page.getByRole("button", { name: "Save and continue editing" }).click();
        await page.getByText("was added successfully").waitFor();
        const challengeId = Number(page.url().match(/challenge\/(\d+)\/change/)[1]);
        await page.getByRole("link", { name: "Publish…" }).click();
        await page.getByRole("button", { name: /^Yes, publish/ }).click();
        await page.getByText("Published: it is now the active challenge.", { exact: false }).waitFor();

        // The worker anchors it; the admin shows the state, transaction and block.
        const deadline = Date.now() + 60000;
        let anchor = await anchorOf(stack.dbUrl, challengeId);
        while (anchor?.status !== "confirmed") {
          assert.ok(Date.now() < deadline, `anchor still ${anchor?.status} after 60 s`);
          await new Promise((resolve) => setTimeout(resolve, 300));
          anchor = await anchorOf(stack.dbUrl, challengeId);
        }
        await page.reload();
        await page.locator('.geopoem-anchor[data-anchor-status="confirmed"]').waitFor();
        await page.getByText(`Block: ${anchor.block_number}`, { exact: false }).first().waitFor();
        await screenshot(page, "admin-anchored-1280");

        // The player sees the new challenge with its terms committed in that block.
        await openGame(page);
        await page.getByText(TITLE).first().waitFor();
        await page.getByText(`Committed in block ${anchor.block_number}`, { exact: false }).waitFor();
        await screenshot(page, "active-anchored-1280");
        await page.setViewportSize({ width: 390, height: 844 });
        await page.getByText(`Committed in block ${anchor.block_number}`, { exact: false }).scrollIntoViewIfNeeded();
        await screenshot(page, "active-anchored-390");
        await page.setViewportSize({ width: 1280, height: 900 });

        // A correct guess, paid from the wallet and confirmed by the worker.
        const before = wallet.sentTransactions.length;
        await submitGuess(page, GUESS, "3");
        await expectToast(page, SPEC.submitted);
        assert.equal(wallet.sentTransactions.length, before + 1);
        const { hash } = wallet.sentTransactions.at(-1);
        const row = await settledResponse(hash);
        assert.equal(row.status, "confirmed", `claim ${row.status}: ${row.rejection_code} ${row.rejection_reason}`);
        const mine = page.getByRole("region", { name: "My submissions" });
        const entry = mine.getByRole("listitem").filter({ hasText: hash });
        await entry.getByText("Confirmed", { exact: true }).waitFor({ timeout: 30000 });

        // The record the player keeps holds the anchor they saw when paying.
        const dir = mkdtempSync(path.join(tmpdir(), "geopoem-record-"));
        try {
          const [download] = await Promise.all([
            page.waitForEvent("download"),
            entry.getByRole("button", { name: "Download record" }).click(),
          ]);
          const recordFile = path.join(dir, "record.json");
          await download.saveAs(recordFile);

          // Staff close and resolve.
          await page.goto(`${stack.baseUrl}/admin/challenges/challenge/${challengeId}/change/`);
          await closeAndResolve(page, /Resolved: 1 correct of 1 scored; 3 payout\(s\) created\./);

          // My submissions: the outcome, its distance and prize, and the payout still due.
          await openGame(page);
          const resolvedEntry = page
            .getByRole("region", { name: "My submissions" })
            .getByRole("listitem")
            .filter({ hasText: hash });
          await resolvedEntry.getByText(/^Correct: [\d.]+ m from the solution$/).waitFor({ timeout: 30000 });
          await resolvedEntry.getByText("2.40 USDC", { exact: true }).waitFor();
          await resolvedEntry.getByText("Not paid yet: it is sent to the wallet that paid the bid").waitFor();
          await screenshot(page, "my-submissions-outcome-1280");
          await page.setViewportSize({ width: 390, height: 844 });
          await resolvedEntry.getByText(/^Correct: /).scrollIntoViewIfNeeded();
          await screenshot(page, "my-submissions-outcome-390");
          await page.setViewportSize({ width: 1280, height: 900 });

          // Every outcome re-checked in the page against the anchor on chain.
          await openTab(page, "Resolved Challenges");
          await page.getByRole("button", { name: new RegExp(TITLE) }).click();
          const details = page.getByRole("dialog", { name: "Resolved Challenge Details" });
          await details.waitFor();
          const verify = details.getByRole("button", { name: "Verify every outcome" });
          await verify.scrollIntoViewIfNeeded();
          await verify.click();
          await details.locator(".verify-result p").first().waitFor({ timeout: 90000 });
          const result = (await details.locator(".verify-result").textContent()).trim();
          await screenshot(page, "resolved-anchored-verified-1280");
          assert.match(result, /^1 of 1 outcomes reproduced/, result);
          assert.match(result, new RegExp(`committed in block ${anchor.block_number}`), result);
          assert.equal(await details.locator(".verify-differences").count(), 0, result);

          // The script, as a player runs it: the whole challenge, then the player's own record.
          const site = ["--site", stack.baseUrl, "--rpc", stack.rpcUrl, "--challenge", String(challengeId)];
          const whole = runVerifier([...site, "--registry", stack.registry]);
          assert.equal(whole.status, 0, whole.stdout + whole.stderr);
          assert.match(whole.stdout, /1 of 1 outcomes reproduced\n$/);
          const own = runVerifier([...site, "--record", recordFile]);
          assert.equal(own.status, 0, own.stdout + own.stderr);
          assert.match(own.stdout, new RegExp(hash, "i"));
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    },
  );
}

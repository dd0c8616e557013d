import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";

import { query } from "../lib/db.mjs";
import { closeAndResolve, openGame, openTab, staffLogin } from "../lib/game.mjs";
import { screenshot, state, withPlayer } from "../lib/suite.mjs";

const SOLUTION = "40.689247, -74.044502";
const PYTHON = path.join(import.meta.dirname, "..", "..", ".venv", "bin", "python");

/** A winners card (an article named by its heading). */
const card = (page, heading) => page.getByRole("article", { name: heading });

/** The value a card shows for a field (its <dd> after the <dt>). */
async function field(scope, name) {
  return (
    await scope
      .locator("dt", { hasText: new RegExp(`^${name}$`) })
      .locator("xpath=following-sibling::dd[1]")
      .textContent()
  ).trim();
}

/** Decimal strings to token units (6 decimals) and back to the 2-decimal cut the page shows. */
const units = (decimal) => {
  const [whole, fraction = ""] = decimal.split(".");
  return BigInt(whole + fraction.padEnd(6, "0").slice(0, 6));
};
const cut2 = (u) => `${u / 1000000n}.${String((u % 1000000n) / 10000n).padStart(2, "0")}`;

export function register() {
  test(
    "staff resolve the challenge in the admin; the Resolved tab, its details and commitment check, the Winners' Circle",
    { timeout: 120000 },
    async () => {
      const { stack } = state;
      const [challenge] = await query(
        stack.dbUrl,
        "SELECT id, poem_title FROM challenges_challenge WHERE status = 'active'",
      );
      assert.equal(challenge.poem_title, "The Torch on the Tide");
      const pending = await query(
        stack.dbUrl,
        `SELECT id FROM responses_response WHERE challenge_id = ${challenge.id} AND status = 'pending'`,
      );
      assert.deepEqual(pending, [], "every claim is settled before staff resolve");

      await withPlayer({}, async ({ page }) => {
        // Staff, in the Django admin.
        await staffLogin(page);
        await page.goto(`${stack.baseUrl}/admin/challenges/challenge/`);
        await page
          .getByRole("link", { name: /The Torch on the Tide/ })
          .first()
          .click();
        // The worker scores, reveals and creates the payouts while the page refreshes itself.
        await closeAndResolve(page, /Resolved: \d+ correct of \d+ scored; 3 payout\(s\) created\./);
        await page.getByText(SOLUTION).first().waitFor();
        await screenshot(page, "admin-resolved-1280");

        const [resolved] = await query(
          stack.dbUrl,
          `SELECT status, staked_sum::text AS staked_sum FROM challenges_challenge WHERE id = ${challenge.id}`,
        );
        assert.equal(resolved.status, "resolved");
        const payouts = await query(
          stack.dbUrl,
          `SELECT kind, address, amount::text AS amount FROM challenges_payout WHERE challenge_id = ${challenge.id} ORDER BY kind`,
        );
        const byKind = Object.fromEntries(payouts.map((p) => [p.kind, p]));
        const [earliest] = await query(
          stack.dbUrl,
          `SELECT id, submitter_address, submission_text FROM responses_response WHERE challenge_id = ${challenge.id} AND status = 'confirmed' AND is_correct ORDER BY block_number, transaction_index, log_index LIMIT 1`,
        );
        const [highest] = await query(
          stack.dbUrl,
          `SELECT id, submitter_address, submission_text, submission_stake::text AS stake FROM responses_response WHERE challenge_id = ${challenge.id} AND status = 'confirmed' AND is_correct ORDER BY submission_stake DESC, block_number, transaction_index, log_index LIMIT 1`,
        );
        assert.equal(
          earliest.submitter_address.toLowerCase(),
          stack.accounts.players[0].toLowerCase(),
          "the earliest correct claim is the first flow's",
        );
        assert.equal(
          highest.submitter_address.toLowerCase(),
          stack.accounts.players[5].toLowerCase(),
          "the highest stake is the recovered 7 USDC claim",
        );
        // 40% of the confirmed stakes to each winner (token units, no floats).
        const prizeUnits = (units(resolved.staked_sum) * 40n) / 100n;
        assert.equal(units(byKind.earliest.amount), prizeUnits);
        assert.equal(units(byKind.highest.amount), prizeUnits);
        assert.equal(byKind.earliest.address.toLowerCase(), earliest.submitter_address.toLowerCase());
        assert.equal(byKind.highest.address.toLowerCase(), highest.submitter_address.toLowerCase());
        const prize = `${cut2(prizeUnits)} USDC`;
        // Distances are not stored: the public list computes them when a page is read.
        const listed = await (
          await fetch(`${stack.baseUrl}/api/responses?challengeId=${challenge.id}&limit=1000`)
        ).json();
        const distance = Object.fromEntries(listed.map((r) => [r.id, r.distanceMeters]));
        assert.ok(listed.every((r) => typeof r.distanceMeters === "number" && typeof r.isCorrect === "boolean"));

        // The player's view.
        await openGame(page);
        await page.getByText("No active challenge available at the moment.").waitFor();
        await openTab(page, "Resolved Challenges");
        const row = page.getByRole("button", { name: /The Torch on the Tide/ });
        await row.getByText("Resolved").waitFor();
        await row.getByText(SOLUTION).waitFor();
        await row.click();
        const details = page.getByRole("dialog", { name: "Resolved Challenge Details" });
        await details.waitFor();
        await details.getByText(SOLUTION).first().waitFor();
        await details.getByRole("button", { name: "Recompute SHA-256 in this browser" }).click();
        await details.getByText("Match: the computed hash equals the published solution SHA-256.").waitFor();
        await screenshot(page, "resolved-details-1280");

        // Every outcome re-checked in the browser against anvil (the configured public RPC): the claims
        // the earlier flows paid for are real transactions, so each must be reproduced in full.
        const [{ count }] = await query(
          stack.dbUrl,
          `SELECT count(*)::int AS count FROM responses_response WHERE challenge_id = ${challenge.id} AND status = 'confirmed'`,
        );
        assert.ok(count >= 2, "the earlier flows confirmed claims on this challenge");
        const verify = details.getByRole("button", { name: "Verify every outcome" });
        await verify.scrollIntoViewIfNeeded();
        await verify.click();
        // The result (or the reason it could not run) replaces the progress bar; its text is the message.
        await details.locator(".verify-result p").first().waitFor({ timeout: 90000 });
        const result = (await details.locator(".verify-result").textContent()).trim();
        await screenshot(page, "resolved-verified-1280");
        assert.match(result, new RegExp(`^${count} of ${count} outcomes reproduced`), result);
        assert.match(
          result,
          /Every payment, commitment, chain position, distance, verdict, winner, prize and payout matches\./,
        );
        // The seeded challenge is a demonstration: never anchored, and the page says what that means.
        assert.match(result, /never committed on the blockchain, so this check guarantees nothing/);
        assert.equal(await details.locator(".verify-differences").count(), 0, "no response differs");
        assert.equal(
          await details.getByRole("link", { name: "download verify_challenge.py" }).getAttribute("href"),
          "/verify_challenge.py",
        );
        await page.setViewportSize({ width: 390, height: 844 });
        await details.getByText(`${count} of ${count} outcomes reproduced`).scrollIntoViewIfNeeded();
        await page.screenshot({
          path: path.join(import.meta.dirname, "..", "artifacts", "screenshots", "resolved-verified-390.png"),
        });
        await page.setViewportSize({ width: 1280, height: 900 });

        // The same checks by the script the site serves, run as a player would: downloaded, then run by
        // Python without site-packages (-S: the standard library only).
        const script = await fetch(`${stack.baseUrl}/verify_challenge.py`);
        assert.equal(script.status, 200);
        assert.match(script.headers.get("content-disposition"), /attachment; filename="verify_challenge.py"/);
        const dir = mkdtempSync(path.join(tmpdir(), "geopoem-verify-"));
        const file = path.join(dir, "verify_challenge.py");
        writeFileSync(file, Buffer.from(await script.arrayBuffer()));
        const run = spawnSync(
          PYTHON,
          ["-S", file, "--site", stack.baseUrl, "--rpc", stack.rpcUrl, "--challenge", String(challenge.id)],
          { encoding: "utf8", timeout: 120000 },
        );
        rmSync(dir, { recursive: true, force: true });
        assert.equal(run.status, 0, run.stdout + run.stderr);
        assert.match(run.stdout, new RegExp(`${count} of ${count} outcomes reproduced\\n$`));
        await page.keyboard.press("Escape");
        await details.waitFor({ state: "hidden" });

        await openTab(page, "Winners' Circle");
        await page.getByRole("combobox").click();
        await page.getByRole("option", { name: `Challenge #${challenge.id}: The Torch on the Tide` }).click();
        const first = card(page, "Earliest Correct Response");
        const top = card(page, "Highest Staked Correct Response");
        await first.waitFor();
        await top.waitFor();
        // Distances are measurements (floats are fine there); the page shows 2 decimals.
        for (const [shown, row] of [
          [first, earliest],
          [top, highest],
        ]) {
          assert.equal((await field(shown, "Submitter")).toLowerCase(), row.submitter_address.toLowerCase());
          assert.equal(await field(shown, "Coordinates"), row.submission_text);
          assert.equal(await field(shown, "Distance"), `${Number(distance[row.id]).toFixed(2)} m`);
          assert.equal(await field(shown, "Prize"), prize);
        }
        await screenshot(page, "winners-resolved-1280");
      });
    },
  );
}

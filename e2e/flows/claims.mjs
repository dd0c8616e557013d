import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { openBrowser } from "../lib/browser.mjs";
import { query } from "../lib/db.mjs";
import {
  activeOrPublished,
  expectToast,
  openGame,
  responseByHash,
  settledResponse,
  SPEC,
  staffClose,
  staffResolve,
  submitGuess,
  waitForGame,
} from "../lib/game.mjs";
import { rpc } from "../lib/rpc.mjs";
import { describeOnOwnStack, screenshot, state, withPlayer } from "../lib/suite.mjs";

// A paid claim is never dropped (docs/chain.md, "A paid claim the page keeps"): a stake the
// wallet replaces is followed to its new hash, a cancelled one says nothing was paid, and a claim
// posted after staff closed the challenge (its payment mined before) still counts, on the page and
// in the outcome.

const mySubmissions = (page) => page.getByRole("region", { name: "My submissions" });
const entryOf = (page, hash) => mySubmissions(page).getByRole("listitem").filter({ hasText: hash });

/** Holds block production, lets `during` run while the stake waits in the pool, then mines. */
async function withMiningHeld(during) {
  const { rpcUrl } = state.stack;
  await rpc(rpcUrl, "evm_setIntervalMining", [0]);
  try {
    await during();
  } finally {
    await rpc(rpcUrl, "evm_mine");
    await rpc(rpcUrl, "evm_setIntervalMining", [1]);
  }
}

/** The page is waiting for the receipt of the wallet's first transaction: its hash. */
async function stakeInPool(page, wallet) {
  await page.getByText("Waiting for transaction confirmation...").first().waitFor();
  assert.equal(wallet.sentTransactions.length, 1);
  const { hash } = wallet.sentTransactions[0];
  assert.equal((await rpc(state.stack.rpcUrl, "eth_getTransactionByHash", [hash])).blockNumber, null);
  return hash;
}

/** Both widths the page is played at; the entry scrolled into view. */
async function screenshots(page, entry, name) {
  await entry.scrollIntoViewIfNeeded();
  await screenshot(page, `${name}-1280`, { fullPage: false });
  await page.setViewportSize({ width: 390, height: 844 });
  await entry.scrollIntoViewIfNeeded();
  await screenshot(page, `${name}-390`, { fullPage: false });
  await page.setViewportSize({ width: 1280, height: 900 });
}

export function registerReplaced() {
  test(
    "a stake the wallet speeds up is followed to its new hash: the claim counts under it",
    { timeout: 120000 },
    async () => {
      const { stack } = state;
      await withPlayer({ account: stack.accounts.players[6] }, async ({ page, wallet, errors }) => {
        await waitForGame(page);
        let original;
        let faster;
        await withMiningHeld(async () => {
          await submitGuess(page, "51.5007, -0.1246", "2");
          original = await stakeInPool(page, wallet);
          faster = await wallet.speedUp(original);
        });
        await expectToast(page, SPEC.submitted);
        assert.equal(await rpc(stack.rpcUrl, "eth_getTransactionReceipt", [original]), null, "the first never mined");
        const row = await settledResponse(faster);
        assert.equal(row.status, "confirmed", `claim ${row.status}: ${row.rejection_code} ${row.rejection_reason}`);
        assert.equal(await responseByHash(original), null, "no claim names the replaced hash");
        const entry = entryOf(page, faster);
        await entry.getByText("Confirmed", { exact: true }).waitFor({ timeout: 30000 });
        await entry.getByText("Your wallet replaced the first transaction with this one: the same payment").waitFor();
        await screenshots(page, entry, "claims-sped-up");
        assert.deepEqual(errors, []);
      });
    },
  );

  test(
    "a stake the wallet cancels: the player is told nothing was paid, and no claim is posted",
    { timeout: 120000 },
    async () => {
      const { stack } = state;
      const player = stack.accounts.players[6];
      await withPlayer({ account: player }, async ({ page, wallet, errors }) => {
        await waitForGame(page);
        const before = await query(
          stack.dbUrl,
          `SELECT count(*)::int AS count FROM responses_response WHERE lower(submitter_address) = lower('${player}')`,
        );
        let original;
        await withMiningHeld(async () => {
          await submitGuess(page, "51.5008, -0.1247", "3");
          original = await stakeInPool(page, wallet);
          await wallet.cancel(original);
        });
        await expectToast(page, ["Transaction Failed", "Transaction cancelled in your wallet - nothing was paid"]);
        const entry = entryOf(page, original);
        await entry.getByText("Cancelled in your wallet: no payment was made", { exact: true }).waitFor();
        await screenshots(page, entry, "claims-cancelled");
        const after = await query(
          stack.dbUrl,
          `SELECT count(*)::int AS count FROM responses_response WHERE lower(submitter_address) = lower('${player}')`,
        );
        assert.equal(after[0].count, before[0].count, "no claim was posted for a cancelled stake");
        assert.deepEqual(errors, []);
      });
    },
  );
}

export function registerCloseBeforePost() {
  test(
    "staff close the challenge after the stake is mined but before the page posts the claim: it still counts",
    { timeout: 240000 },
    async () => {
      const { stack } = state;
      // Staff in a browser of their own: logging in to the admin in the player's would give the
      // player's page a new CSRF cookie under its held POST.
      const staffBrowser = await openBrowser();
      try {
        await withPlayer({ account: stack.accounts.players[6] }, async ({ page, wallet, errors }) => {
          const staff = await staffBrowser.context.newPage();
          const challenge = await activeOrPublished(staff);
          assert.ok(challenge, "an active challenge to close");
          const [{ solution }] = await query(
            stack.dbUrl,
            `SELECT solution FROM challenges_challenge WHERE id = ${challenge.id}`,
          );
          await waitForGame(page);
          await page.getByText(challenge.poem_title).first().waitFor();
          // The one fault made with a mock: the network holds the claim's POST back (a slow page or
          // wallet), so staff can close between the mined payment and the claim.
          let release;
          const held = new Promise((resolve) => {
            release = resolve;
          });
          const posted = [];
          await page.route("**/api/responses", async (route) => {
            if (route.request().method() !== "POST") return route.continue();
            posted.push(Date.now());
            if (posted.length === 1) await held;
            return route.continue();
          });
          await submitGuess(page, solution, "4");
          await page.getByText("Submitting solution...").first().waitFor({ timeout: 30000 });
          const { hash } = wallet.sentTransactions[0];
          assert.equal((await rpc(stack.rpcUrl, "eth_getTransactionReceipt", [hash])).status, "0x1", "mined in time");
          assert.equal(await responseByHash(hash), null, "the claim is not posted yet");

          await staffClose(staff, challenge.id);
          release();

          const entry = entryOf(page, hash);
          try {
            await expectToast(page, SPEC.submitted);
          } catch (error) {
            // What the player sees instead (a server that still turns claims away after close).
            await screenshots(page, entry, "claims-closed-before-post-turned-away");
            throw error;
          }
          await entry.getByText("Confirmed", { exact: true }).waitFor({ timeout: 60000 });
          const row = await settledResponse(hash);
          assert.equal(row.status, "confirmed", `claim ${row.status}: ${row.rejection_code} ${row.rejection_reason}`);
          await screenshots(page, entry, "claims-closed-before-post");

          await staffResolve(staff, challenge.id);
          await openGame(page);
          const resolved = entryOf(page, hash);
          await resolved.getByText(/^Correct: [\d.]+ m from the solution$/).waitFor({ timeout: 30000 });
          await screenshots(page, resolved, "claims-closed-before-post-outcome");
          const outcome = await query(
            stack.dbUrl,
            `SELECT is_correct FROM responses_response WHERE transaction_hash = lower('${hash}')`,
          );
          assert.equal(outcome[0].is_correct, true, "scored in the resolution");
          assert.deepEqual(errors, []);
        });
      } finally {
        await staffBrowser.close();
      }
    },
  );
}

export function register() {
  registerReplaced();
  registerCloseBeforePost();
}

// Run on its own: `node --test e2e/flows/claims.mjs` starts (and stops) a stack of its own.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.env.E2E_DB_NAME ??= "geopoem_claims";
  process.env.E2E_REDIS_DB ??= "11";
  process.env.E2E_LOG_DIR ??= path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "artifacts", "logs-claims");
  describeOnOwnStack("claims that are never dropped, on their own stack", register);
}

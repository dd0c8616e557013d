// How a player meets the page: by role and by the spec's texts, as a person reads them.
import assert from "node:assert/strict";

import { query, sqlString } from "./db.mjs";
import { rpc } from "./rpc.mjs";
import { STAFF } from "./stack.mjs";
import { state } from "./suite.mjs";

export const SPEC = {
  connect: "Connect MetaMask",
  submit: "Submit Your Solution & Pay Your Bid",
  confirmTitle: "Confirm Solution Submission",
  progress: [
    "Connecting to wallet...",
    "Please select your MetaMask account...",
    "Sending transaction...",
    "Waiting for transaction confirmation...",
    "Transaction confirmed successfully!",
    "Submitting solution...",
  ],
  badCoordinates: ["Incorrect Coordinates", "Please enter valid coordinates in the format: latitude, longitude"],
  badStake: ["Invalid Stake Amount", "Minimum stake amount is 1.00 USDC"],
  submitted: ["Solution Submitted", "Your solution has been submitted successfully!"],
  connected: ["Wallet Connected", "Successfully connected to MetaMask"],
  insufficient: "Transaction failed - insufficient balance or other error",
  timeout: "Transaction confirmation timeout - please check your wallet",
  rejected: "Transaction rejected by user",
};

export const shortAddress = (address) =>
  new RegExp(`${address.slice(0, 6)}\\s*(\\.\\.\\.|…)\\s*${address.slice(-4)}`, "i");

export async function openGame(page) {
  await page.goto(`${state.stack.baseUrl}/`);
  await page.getByRole("tablist").waitFor();
}

export async function openTab(page, name) {
  await page.getByRole("tab", { name }).click();
  await page.getByRole("tabpanel").waitFor();
}

/** The toast region holds at most one toast (spec): its title and description. */
export function toast(page, text) {
  // .first(): Radix also renders a visually hidden copy for screen readers.
  return page
    .getByRole("region", { name: /notifications/i })
    .getByText(text, { exact: true })
    .first();
}

export async function expectToast(page, [title, description]) {
  await toast(page, title).waitFor();
  if (description) await toast(page, description).waitFor();
}

export function coordinatesField(page) {
  return page.getByLabel(/coordinates/i).first();
}

export function stakeField(page) {
  return page.getByLabel(/bid|stake/i).first();
}

export async function fillGuess(page, coordinates, stake) {
  await coordinatesField(page).fill(coordinates);
  await stakeField(page).fill(stake);
  await page.getByRole("button", { name: SPEC.submit }).click();
}

export function confirmDialog(page) {
  return page.getByRole("dialog", { name: SPEC.confirmTitle });
}

export async function seenTexts(page) {
  return page.evaluate(() => window.__e2eTexts ?? []);
}

/** Asserts that `expected` appear in this order among the texts the page showed. */
export function assertInOrder(seen, expected) {
  let at = 0;
  for (const text of expected) {
    const found = seen.indexOf(text, at);
    assert.ok(
      found >= 0,
      `"${text}" was not shown after "${expected[expected.indexOf(text) - 1] ?? "(start)"}"; seen: ${JSON.stringify(seen.filter((t) => t.length < 80).slice(-60))}`,
    );
    at = found + 1;
  }
}

// --- What the database holds ------------------------------------------------------------------

export async function activeChallenge() {
  const rows = await query(
    state.stack.dbUrl,
    "SELECT id, poem_title, staked_sum::text AS staked_sum, response_count FROM challenges_challenge WHERE status = 'active'",
  );
  return rows[0] ?? null;
}

export async function responsesOf(address) {
  return query(
    state.stack.dbUrl,
    `SELECT id, challenge_id, transaction_hash, submitter_address, submission_text, submission_stake::text AS stake, status, rejection_code FROM responses_response WHERE lower(submitter_address) = lower(${sqlString(address)}) ORDER BY id`,
  );
}

export async function responseByHash(hash) {
  const rows = await query(
    state.stack.dbUrl,
    `SELECT id, challenge_id, transaction_hash, submitter_address, submission_text, submission_stake::text AS stake, status, rejection_code, rejection_reason FROM responses_response WHERE transaction_hash = lower(${sqlString(hash)})`,
  );
  return rows[0] ?? null;
}

/** Waits for the worker to move the claim out of `pending`; returns the row. */
export async function settledResponse(hash, timeoutMs = 45000) {
  const end = Date.now() + timeoutMs;
  let row = null;
  while (Date.now() < end) {
    row = await responseByHash(hash);
    if (row && row.status !== "pending") return row;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  assert.fail(`claim ${hash} still ${row ? row.status : "missing"} after ${timeoutMs} ms`);
}

/** The dialog's other way to pay: where the relay sends signed payments the dialog offers the
 * signature first (docs/protocol.md 2a); a flow that pays by transaction picks it. A dialog without
 * the choice pays by transaction already. */
export async function chooseTransfer(dialog) {
  const transfer = dialog.getByRole("radio", { name: "Send the transaction yourself (needs ETH for gas)" });
  if ((await transfer.count()) > 0) await transfer.check();
}

/** Fill the form, open the confirm dialog and confirm: the player's whole click path, paying by
 * transaction (e2e/flows/relayed.mjs pays by signature). */
export async function submitGuess(page, coordinates, stake) {
  await fillGuess(page, coordinates, stake);
  const dialog = confirmDialog(page);
  await dialog.waitFor();
  await chooseTransfer(dialog);
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await dialog.waitFor({ state: "hidden" });
}

/** A refusal in the wallet leaves nothing in this browser: My submissions shows no entry of its own
 * (the wallet's account, picked before the refusal, may list the claims Geopoem holds for it, each
 * "No record: listed by Geopoem for your wallet"), and the browser's records are empty. */
export async function assertNothingRecordedHere(page) {
  const mine = page.getByRole("region", { name: "My submissions" });
  await mine
    .getByText(/^(No submissions from this browser yet\.|No record: listed by Geopoem for your wallet)$/)
    .first()
    .waitFor();
  const states = await mine
    .locator("dt", { hasText: "In this browser" })
    .evaluateAll((terms) => terms.map((term) => term.nextElementSibling?.textContent ?? ""));
  assert.deepEqual(
    states.filter((text) => text !== "No record: listed by Geopoem for your wallet"),
    [],
    "an entry of this browser's own",
  );
  const stored = await page.evaluate(() => localStorage.getItem("geopoem:submissions:v1"));
  assert.ok(!stored || JSON.parse(stored).length === 0, `records kept: ${stored}`);
}

export async function waitForGame(page) {
  await openGame(page);
  await page.getByRole("button", { name: SPEC.submit }).waitFor();
}

// --- Staff, in the Django admin ----------------------------------------------------------------

export async function staffLogin(page) {
  await page.goto(`${state.stack.baseUrl}/admin/login/?next=/admin/`);
  await page.getByLabel("Username").fill(STAFF.username);
  await page.getByLabel("Password").fill(STAFF.password);
  await page.getByRole("button", { name: "Log in" }).click();
}

/** Close, then "Resolve and reveal…", from the challenge's admin page: the request only starts
 * the resolution; the worker scores while the page refreshes itself until `resolved` shows. */
export async function closeAndResolve(page, resolved) {
  await page.getByRole("link", { name: "Close…" }).click();
  await page.getByRole("button", { name: "Yes, close" }).click();
  await page.getByText("Closed: payments mined from now on are rejected as late", { exact: false }).waitFor();
  // Resolution waits for the grace period after the close (the suite's is 1 s) and for the ledger
  // indexer to read a block mined after it (docs/protocol.md section 4): anvil mines only on a
  // transaction, and its block times are whole seconds. Until then staff are told why, and retry.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await rpc(state.stack.rpcUrl, "evm_mine", []);
  const deadline = Date.now() + 60000;
  for (;;) {
    await page.getByRole("link", { name: "Resolve and reveal…" }).click();
    await page.getByRole("button", { name: "Yes, resolve and reveal" }).click();
    const started = page.getByText("Resolution started: the worker scores", { exact: false });
    const refused = page.getByText("Resolve and reveal refused:", { exact: false });
    await started.or(refused).first().waitFor();
    if ((await started.count()) > 0) break;
    assert.ok(Date.now() < deadline, await refused.first().innerText());
    await page.waitForTimeout(1000);
  }
  await page.getByText(resolved).waitFor({ timeout: 60000 });
}

/** Logs staff in unless this browser already is. */
export async function asStaff(page) {
  await page.goto(`${state.stack.baseUrl}/admin/`);
  if ((await page.getByLabel("Username").count()) > 0) await staffLogin(page);
}

/** Staff, in the admin, on the challenge's page: Close. */
export async function staffClose(page, challengeId) {
  await asStaff(page);
  await page.goto(`${state.stack.baseUrl}/admin/challenges/challenge/${challengeId}/change/`);
  await page.getByRole("link", { name: "Close…" }).click();
  await page.getByRole("button", { name: "Yes, close" }).click();
  await page
    .getByText(/^Closed/)
    .first()
    .waitFor();
}

/** Then Resolve (retried while the admin says the grace period after close has not passed), until
 * the worker has scored it. */
export async function staffResolve(page, challengeId, timeoutMs = 90000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    await page.goto(`${state.stack.baseUrl}/admin/challenges/challenge/${challengeId}/change/`);
    const resolve = page.getByRole("link", { name: "Resolve and reveal…" });
    if (await resolve.count()) {
      await resolve.click();
      await page.getByRole("button", { name: "Yes, resolve and reveal" }).click();
      const answer = page.getByText(/Resolution started: the worker scores|refused: /).first();
      await answer.waitFor();
      if (/Resolution started/.test(await answer.textContent())) break;
    }
    assert.ok(Date.now() < end, "staff could not start the resolution in time");
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  await page
    .getByText(/^Resolved: /)
    .first()
    .waitFor({ timeout: 60000 });
}

/** The active challenge; when there is none (the suite's earlier flows resolved them), staff write
 * and publish one in the admin (`poem`: its title, solution and threshold) and the worker anchors it. */
export async function activeOrPublished(
  page,
  {
    title = "The Quiet Harbour",
    text = "<p>Grey stones hold the tide,<br>a light turns for the late boats.</p>",
    solution = "60.1699, 24.9384",
    threshold = "100",
  } = {},
) {
  const { stack } = state;
  const active = await activeChallenge();
  if (active) return active;
  await asStaff(page);
  await page.goto(`${stack.baseUrl}/admin/challenges/challenge/add/`);
  await page.getByLabel("Poem title").fill(title);
  await page.getByLabel("Poem text").fill(text);
  await page.getByLabel("Instructions text").fill("<p>Give the place as latitude, longitude.</p>");
  await page.getByLabel("Proximity threshold m").fill(threshold);
  await page.getByLabel("Solution").fill(solution);
  await page.getByRole("button", { name: "Save and continue editing" }).click();
  await page.getByText("was added successfully").waitFor();
  const id = Number(page.url().match(/challenge\/(\d+)\/change/)[1]);
  await page.getByRole("link", { name: "Publish…" }).click();
  await page.getByRole("button", { name: /^Yes, publish/ }).click();
  await page.getByText("Published: it is now the active challenge.", { exact: false }).waitFor();
  const deadline = Date.now() + 60000;
  for (;;) {
    const [anchor] = await query(
      stack.dbUrl,
      `SELECT status FROM challenges_challengeanchor WHERE challenge_id = ${id}`,
    );
    if (anchor?.status === "confirmed") break;
    assert.ok(Date.now() < deadline, `anchor still ${anchor?.status} after 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  return activeChallenge();
}

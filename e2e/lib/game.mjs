// How a player and staff meet the game: the page by role and by the words it shows, the admin by its
// links and buttons, the chain's clock moved as `scripts/devchain.py warp` moves it, and what the
// database holds (the suite asserts on rows and on the chain, not only on the page's word).
import assert from "node:assert/strict";

import { query, sqlString } from "./db.mjs";
import { rpc } from "./rpc.mjs";
import { STAFF } from "./stack.mjs";
import { screenshot, state } from "./suite.mjs";

export const SPEC = {
  connect: "Connect MetaMask",
  submit: "Submit Your Solution & Pay Your Bid",
  confirmTitle: "Confirm Solution Submission",
  submitted: ["Solution Submitted", "Your solution has been submitted successfully!"],
  connected: ["Wallet Connected", "Successfully connected to MetaMask"],
  badStake: ["Invalid Stake Amount", "Minimum stake amount is 1.00 USDC"],
};

/** The ways into the pot the confirm dialog offers (frontend/src/tabs/active/pay-ways.ts). */
export const WAY = {
  relay: "Sign the stake (no ETH needed)",
  self: "Sign it and send it yourself (needs ETH for gas)",
  approval: "Approve and stake from your wallet (needs ETH for gas)",
};

/** The progress the form shows on each way (frontend/src/wallet/connect.ts, signed.ts). */
export const PROGRESS = {
  connecting: "Connecting to wallet...",
  selectAccount: "Please select your MetaMask account...",
  sign: "Please sign the stake in your wallet...",
  relay: "Sending your signed stake to Geopoem...",
  sending: "Sending transaction...",
  waiting: "Waiting for transaction confirmation...",
  confirmed: "Transaction confirmed successfully!",
  fallback: "Your wallet cannot sign this stake: paying by approval instead...",
};

export const TABS = [
  ["Active Challenge", "active"],
  ["Resolved Challenges", "resolved"],
  ["Winners' Circle", "winners"],
  ["Getting Started", "getting-started"],
  ["Sepolia Testnet", "chain-guide"],
  ["FAQ", "faq"],
  ["Legal & Terms", "legal"],
];

export const shortAddress = (address) =>
  new RegExp(`${address.slice(0, 6)}\\s*(\\.\\.\\.|…)\\s*${address.slice(-4)}`, "i");

export const units = (decimal) => {
  const [whole, fraction = ""] = decimal.split(".");
  return BigInt(whole + fraction.padEnd(6, "0").slice(0, 6));
};

export async function openGame(page) {
  await page.goto(`${state.stack.baseUrl}/`);
  await page.getByRole("tablist").waitFor();
}

export async function openTab(page, name) {
  await page.getByRole("tab", { name }).click();
  await page.getByRole("tabpanel").waitFor();
  await settle(page);
}

/** Loading states end: no spinner left in the open panel. */
export async function settle(page) {
  await page.waitForFunction(
    () => !document.querySelector('[role="tabpanel"] [aria-busy="true"], [role="tabpanel"] .spinner'),
    null,
    { timeout: 15000 },
  );
}

/** The toast region: a toast's title or description. */
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

/** Closes the toasts on screen (asserted before): a toast sits over the bottom of a phone's screen. */
export async function closeToasts(page) {
  const close = page.getByRole("region", { name: /notifications/i }).getByRole("button", { name: "Close" });
  for (const button of await close.all()) await button.click({ timeout: 2000 }).catch(() => {});
}

export const coordinatesField = (page) => page.getByLabel("Coordinates (latitude, longitude)");
export const stakeField = (page) => page.getByLabel("USDC bid amount");
export const confirmDialog = (page) => page.getByRole("dialog", { name: SPEC.confirmTitle });
export const mySubmissions = (page) => page.getByRole("region", { name: "My submissions" });
/** A row of My submissions, by a text it shows (its coordinates, its stake). */
export const rowOf = (page, text) => mySubmissions(page).getByRole("listitem").filter({ hasText: text });

/** The form filled and submitted. */
export async function fillAndSubmit(page, coordinates, stake) {
  await page.getByRole("button", { name: SPEC.submit }).waitFor();
  await coordinatesField(page).fill(coordinates);
  await stakeField(page).fill(stake);
  await page.getByRole("button", { name: SPEC.submit }).click();
}

/** The form filled and the confirm dialog open, the way chosen when given (else the one offered first). */
export async function openConfirm(page, coordinates, stake, way) {
  await fillAndSubmit(page, coordinates, stake);
  const dialog = confirmDialog(page);
  await dialog.waitFor();
  if (way) {
    const radio = dialog.getByRole("radio", { name: WAY[way] });
    await radio.check();
  }
  return dialog;
}

/** The player's whole click path: the form, the dialog, Confirm; resolves once the dialog is gone. */
export async function stakeOnPage(page, coordinates, stake, way) {
  const dialog = await openConfirm(page, coordinates, stake, way);
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await dialog.waitFor({ state: "hidden", timeout: 30000 });
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

/** Nothing of a stake kept in this browser, and no row of its own in My submissions. */
export async function assertNothingKeptHere(page) {
  await mySubmissions(page).waitFor();
  const stored = await page.evaluate(() => localStorage.getItem("geopoem:stakes:v2"));
  assert.ok(!stored || JSON.parse(stored).length === 0, `records kept: ${stored}`);
  assert.equal(
    await mySubmissions(page).getByRole("button", { name: "Download record" }).count(),
    0,
    "a row of this browser's own",
  );
}

/** What the player signed or sent through the wallet, by method. */
export const walletAsked = (wallet, method) => wallet.methods().includes(method);

// --- Screenshots --------------------------------------------------------------------------------

/** `shoot(width)` with the toasts closed, at 1280 px and at a phone's 390 px; the viewport back as it was. */
async function atBothWidths(page, shoot) {
  await closeToasts(page);
  const before = page.viewportSize();
  for (const [width, height] of [
    [1280, 900],
    [390, 844],
  ]) {
    await page.setViewportSize({ width, height });
    await shoot(width);
  }
  await page.setViewportSize(before);
}

/** `target` scrolled into view and what the screen shows, at 1280 and at a phone's 390 px. */
export async function screenshotsOf(page, target, name) {
  await atBothWidths(page, async (width) => {
    await target.scrollIntoViewIfNeeded();
    await screenshot(page, `${name}-${width}`, { fullPage: false });
  });
}

/** Every tab named (all by default) at 1280 and 390 px, whole pages: `tab-<slug>-<phase>-<width>`. */
export async function screenshotTabs(page, phase, slugs = TABS.map(([, slug]) => slug)) {
  await atBothWidths(page, async (width) => {
    for (const [name, slug] of TABS.filter(([, s]) => slugs.includes(s))) {
      await openTab(page, name);
      await screenshot(page, `tab-${slug}-${phase}-${width}`);
    }
  });
}

// --- The chain ----------------------------------------------------------------------------------

export async function blockTime() {
  const block = await rpc(state.stack.rpcUrl, "eth_getBlockByNumber", ["latest", false]);
  return Number(BigInt(block.timestamp));
}

/** The chain's clock moved to `timestamp` (at least one second on) and a block mined there, as
 * `scripts/devchain.py warp` does: the site judges by block time. */
export async function warpTo(timestamp) {
  const { rpcUrl } = state.stack;
  const now = await blockTime();
  await rpc(rpcUrl, "evm_increaseTime", [Math.max(1, timestamp - now)]);
  await rpc(rpcUrl, "evm_mine", []);
}

/** No block is mined while `during` runs (transactions wait in the pool); then mining goes on. */
export async function withMiningHeld(during) {
  const { rpcUrl } = state.stack;
  await rpc(rpcUrl, "evm_setIntervalMining", [0]);
  try {
    return await during();
  } finally {
    await rpc(rpcUrl, "evm_setIntervalMining", [1]);
  }
}

export async function ethOf(address) {
  return BigInt(await rpc(state.stack.rpcUrl, "eth_getBalance", [address, "latest"]));
}

// --- What the site serves and holds -------------------------------------------------------------

export async function api(path) {
  const answer = await fetch(`${state.stack.baseUrl}${path}`);
  return { status: answer.status, body: answer.status === 200 ? await answer.json() : null };
}

/** Polls `check` until it returns something truthy. */
export async function until(check, what, timeoutMs = 60000) {
  const end = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await check();
    if (last) return last;
    assert.ok(Date.now() < end, `${what}: not within ${timeoutMs / 1000} s (last: ${JSON.stringify(last)})`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

/** The challenge as GET /api/challenges/{id} shows it, once `phase` is its phase. */
export async function challengeIn(id, phase, timeoutMs = 60000) {
  return until(
    async () => {
      const { body } = await api(`/api/challenges/${id}`);
      return body?.phase === phase ? body : null;
    },
    `challenge #${id} in phase ${phase}`,
    timeoutMs,
  );
}

/** The stakes the follower projected from the pot for a challenge, in sequence order. */
export async function stakesOf(challengeId) {
  return query(
    state.stack.dbUrl,
    `SELECT seq, payer, amount_units::text AS amount, commitment, transaction_hash, revealed_correct
       FROM responses_stake WHERE challenge_id = ${Number(challengeId)} ORDER BY seq`,
  );
}

export async function guessesOf(challengeId) {
  return query(
    state.stack.dbUrl,
    `SELECT payer, commitment, text, is_correct FROM responses_guess WHERE challenge_id = ${Number(challengeId)} ORDER BY id`,
  );
}

export async function signedStakesOf(payer) {
  return query(
    state.stack.dbUrl,
    `SELECT challenge_id, commitment, relay_status, relay_code, relay_transaction_hash
       FROM responses_signedstake WHERE lower(payer) = lower(${sqlString(payer)}) ORDER BY id`,
  );
}

export async function paymentsOf(challengeId) {
  return query(
    state.stack.dbUrl,
    `SELECT kind, seq, "to", amount_units::text AS amount FROM responses_potpayment
      WHERE challenge_id = ${Number(challengeId)} ORDER BY id`,
  );
}

// --- Staff, in the Django admin ----------------------------------------------------------------

export async function staffLogin(page) {
  await page.goto(`${state.stack.baseUrl}/admin/login/?next=/admin/`);
  await page.getByLabel("Username").fill(STAFF.username);
  await page.getByLabel("Password").fill(STAFF.password);
  await page.getByRole("button", { name: "Log in" }).click();
  await page
    .getByRole("link", { name: "Log out" })
    .or(page.getByRole("button", { name: "Log out" }))
    .waitFor();
}

/** Staff write a challenge (the close left to its default) and publish it: Publish…, "Yes, publish";
 * then the admin page is read again until the opening is confirmed on chain. Returns its id. */
export async function staffPublish(page, { title, poem, solution, threshold, minStake = "1" }) {
  const { baseUrl } = state.stack;
  await page.goto(`${baseUrl}/admin/challenges/challenge/add/`);
  await page.getByLabel("Poem title").fill(title);
  await page.getByLabel("Poem text").fill(poem);
  await page.getByLabel("Instructions text").fill("<p>Give the place as latitude, longitude.</p>");
  await page.getByLabel("Proximity threshold m").fill(threshold);
  await page.getByLabel("Solution").fill(solution);
  await page.getByLabel("Min stake").fill(minStake);
  await page.getByRole("button", { name: "Save and continue editing" }).click();
  await page.getByText("was added successfully").waitFor();
  const id = Number(page.url().match(/challenge\/(\d+)\/change/)[1]);
  // What players will see, before anything is fixed on chain.
  await page.frameLocator("iframe.geopoem-preview").getByRole("heading", { name: title }).waitFor();
  await page.getByRole("link", { name: "Publish…" }).click();
  await page.getByRole("button", { name: "Yes, publish" }).click();
  await page.getByText("Published: the worker opens it in the pot", { exact: false }).waitFor();
  await until(async () => {
    await page.reload();
    return (await page.locator('[data-opening-status="confirmed"]').count()) > 0;
  }, `the opening of challenge #${id}`);
  await page.getByText(/^Open: Players stake until the close/).waitFor();
  await screenshot(page, "admin-challenge-opened-1280");
  return id;
}

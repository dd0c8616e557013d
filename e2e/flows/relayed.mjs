import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { assertNoViolations } from "../lib/axe.mjs";
import { openBrowser } from "../lib/browser.mjs";
import { query, sqlString } from "../lib/db.mjs";
import {
  activeOrPublished,
  assertInOrder,
  assertNothingRecordedHere,
  confirmDialog,
  expectToast,
  fillGuess,
  openGame,
  openTab,
  seenTexts,
  shortAddress,
  SPEC,
  staffClose,
  staffResolve,
  waitForGame,
} from "../lib/game.mjs";
import { rpc, usdcBalance } from "../lib/rpc.mjs";
import { describeOnOwnStack, screenshot, state, withPlayer } from "../lib/suite.mjs";

// A stake paid with one signature and no ETH (docs/protocol.md 2a, 3.3a): the player's wallet
// signs an EIP-3009 transfer authorization whose nonce is the guess commitment, Geopoem's relayer
// puts it on chain, and My submissions follows it to Confirmed, then to the outcome once staff
// resolve. Also: a signature refused in the wallet, a wallet that cannot sign typed data, and (on a
// stack whose relay refuses every stake) "Send it yourself" from the player's own wallet.

export const SIGNED = {
  sign: "Sign the payment (no ETH needed)",
  send: "Send the transaction yourself (needs ETH for gas)",
  signing: "Please sign the payment in your wallet...",
  progress: [
    "Connecting to wallet...",
    "Please select your MetaMask account...",
    "Please sign the payment in your wallet...",
    "Submitting solution...",
  ],
  refused: ["Signature Failed", "Signature rejected by user"],
  // Every item of a stake paid by signature says so ("Signed payment: ..." or "Signed payment, ...").
  payment: "Signed payment",
};

const SOLUTION = "59.9139, 10.7522";
const units = (decimal) => {
  const [whole, fraction = ""] = decimal.split(".");
  return BigInt(whole + fraction.padEnd(6, "0").slice(0, 6));
};

const mySubmissions = (page) => page.getByRole("region", { name: "My submissions" });
const entryOf = (page, text) => mySubmissions(page).getByRole("listitem").filter({ hasText: text });

/** Closes the toasts on screen (asserted before): a toast sits over the bottom of a phone's screen. */
async function closeToasts(page) {
  const close = page.getByRole("region", { name: /notifications/i }).getByRole("button", { name: "Close" });
  for (const button of await close.all()) await button.click().catch(() => {});
}

/** Both widths the page is played at, `target` scrolled into view; only what the screen shows. */
async function screenshots(page, target, name) {
  await closeToasts(page);
  await target.scrollIntoViewIfNeeded();
  await screenshot(page, `${name}-1280`, { fullPage: false });
  await page.setViewportSize({ width: 390, height: 844 });
  await target.scrollIntoViewIfNeeded();
  await screenshot(page, `${name}-390`, { fullPage: false });
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** The claim (and its authorization) a player made on a challenge, from the database. */
async function signedClaimsOf(player, challengeId) {
  return query(
    state.stack.dbUrl,
    `SELECT r.id, r.status, r.payment_method, r.transaction_hash, r.rejection_code, r.submission_stake::text AS stake,
            a.relay_status, a.relay_reason, a.relay_transaction_hash
       FROM responses_response r LEFT JOIN responses_stakeauthorization a ON a.response_id = r.id
      WHERE lower(r.submitter_address) = lower(${sqlString(player)}) AND r.challenge_id = ${challengeId}
      ORDER BY r.id`,
  );
}

async function ethOf(address) {
  return BigInt(await rpc(state.stack.rpcUrl, "eth_getBalance", [address, "latest"]));
}

/** Holds block production while `during` runs (the relay's transaction waits in the pool), then mines. */
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

/** The form filled with a guess and the dialog open on the choice; the signature is offered first. */
async function openChoice(page, coordinates, stake) {
  await fillGuess(page, coordinates, stake);
  const dialog = confirmDialog(page);
  await dialog.waitFor();
  const sign = dialog.getByRole("radio", { name: SIGNED.sign });
  await sign.waitFor();
  assert.ok(await sign.isChecked(), "the signature is offered first");
  assert.ok(!(await dialog.getByRole("radio", { name: SIGNED.send }).isChecked()));
  return dialog;
}

export function register() {
  test(
    "a player holding USDC and no ETH at all stakes by signature: relayed, Confirmed, and after staff resolve the outcome",
    { timeout: 300000 },
    async () => {
      const { stack } = state;
      // Run after every flow that pays into the seeded challenge (suite.e2e.mjs): this one takes the
      // player's ETH away and resolves a challenge of its own.
      const player = stack.accounts.players[1];
      const staffBrowser = await openBrowser();
      try {
        const staff = await staffBrowser.context.newPage();
        const challenge = await activeOrPublished(staff, {
          title: "The Signed Harbour",
          text: "<p>A fjord's last bend, a city of wood and glass.</p>",
          solution: SOLUTION,
        });
        const [{ solution }] = await query(
          stack.dbUrl,
          `SELECT solution FROM challenges_challenge WHERE id = ${challenge.id}`,
        );
        await rpc(stack.rpcUrl, "anvil_setBalance", [player, "0x0"]);
        assert.equal(await ethOf(player), 0n, "the player holds no ETH at all");
        const treasuryBefore = await usdcBalance(stack.rpcUrl, stack.usdc, stack.treasury);
        const playerBefore = await usdcBalance(stack.rpcUrl, stack.usdc, player);
        assert.ok(playerBefore >= units("3"), "the player holds the USDC");

        await withPlayer({ account: player }, async ({ page, wallet, errors }) => {
          await waitForGame(page);
          // What a player needs, before playing: the local chain's guide and Getting Started say
          // that the test USDC is enough when paying by signature.
          await openTab(page, "Sepolia Testnet");
          const need = page.getByText("Paying by signature needs only the test USDC: Geopoem pays the gas.");
          await need.waitFor();
          await screenshots(page, need, "relayed-guide");
          await openTab(page, "Getting Started");
          await page.getByText(/Paying by signature needs nothing else: Geopoem pays the gas\./).waitFor();
          await openTab(page, "Active Challenge");
          await page.getByText(challenge.poem_title).first().waitFor();

          const dialog = await openChoice(page, solution, "3");
          await dialog.getByText("sign a payment of 3.00 USDC to the Geopoem treasury", { exact: false }).waitFor();
          await assertNoViolations(page, "the confirm dialog with the choice of payment");
          await screenshots(page, dialog, "relayed-confirm-choice");

          // The wallet shows its request and waits: the page says what to do meanwhile.
          const release = wallet.holdSignatures();
          await dialog.getByRole("button", { name: "Confirm" }).click();
          const signing = page.getByRole("button", { name: SIGNED.signing });
          await signing.waitFor({ timeout: 30000 });
          assert.equal(await confirmDialog(page).count(), 0, "the dialog is closed while the wallet asks");
          await screenshots(page, signing, "relayed-signing");

          let entry;
          await withMiningHeld(async () => {
            release();
            await expectToast(page, SPEC.submitted);
            assertInOrder(await seenTexts(page), SIGNED.progress);
            assert.equal(wallet.sentTransactions.length, 0, "no transaction from the player");
            assert.equal(wallet.signatures.length, 1);
            entry = entryOf(page, SIGNED.payment);
            // The relayer sends it while no block is mined: My submissions says so, with its transaction.
            await entry
              .getByText("Sent by Geopoem, waiting for the chain", { exact: false })
              .waitFor({ timeout: 30000 });
            await entry
              .getByRole("link", { name: /View Geopoem's transaction/ })
              .or(entry.getByText(/^0x[0-9a-f]{64}$/))
              .first()
              .waitFor();
            await screenshots(page, entry, "relayed-sent");
          });
          await entry.getByText("Confirmed", { exact: true }).waitFor({ timeout: 60000 });
          await screenshots(page, entry, "relayed-confirmed");

          const [row] = await signedClaimsOf(player, challenge.id);
          assert.equal(row.status, "confirmed", `claim ${row.status}: ${row.rejection_code}`);
          assert.equal(row.payment_method, "authorization");
          assert.equal(row.relay_status, "sent");
          assert.equal(row.transaction_hash, row.relay_transaction_hash.toLowerCase());
          const tx = await rpc(stack.rpcUrl, "eth_getTransactionByHash", [row.transaction_hash]);
          assert.notEqual(tx.from.toLowerCase(), player.toLowerCase(), "the relayer sent it, not the player");
          assert.equal((tx.input.length - 2) / 2, 324, "the relayed call: nine words and the challenge id");
          assert.equal(await usdcBalance(stack.rpcUrl, stack.usdc, stack.treasury), treasuryBefore + units("3"));
          assert.equal(await usdcBalance(stack.rpcUrl, stack.usdc, player), playerBefore - units("3"));
          assert.equal(await ethOf(player), 0n, "staking cost the player no ETH");

          // Two more players meanwhile: one refuses the signature in the wallet, one wallet cannot sign.
          await refusedSignature(challenge);
          await walletWithoutTypedData(challenge);

          // Staff close and resolve; the player sees the outcome in the same browser.
          await staffClose(staff, challenge.id);
          await staffResolve(staff, challenge.id);
          await openGame(page);
          const resolved = entryOf(page, SIGNED.payment);
          await resolved.getByText(/^Correct: [\d.]+ m from the solution$/).waitFor({ timeout: 30000 });
          await resolved.locator("dt", { hasText: /^Prize$/ }).waitFor();
          await screenshots(page, resolved, "relayed-outcome");
          assert.deepEqual(errors, []);
        });
      } finally {
        await staffBrowser.close();
      }
    },
  );
}

/** A signature refused in the wallet: the toast, nothing recorded, nothing paid. */
async function refusedSignature(challenge) {
  const { stack } = state;
  const player = stack.accounts.players[3];
  const before = await signedClaimsOf(player, challenge.id);
  const usdcBefore = await usdcBalance(stack.rpcUrl, stack.usdc, player);
  await withPlayer({ account: player, script: { signTypedData: true } }, async ({ page, wallet, errors }) => {
    await waitForGame(page);
    const dialog = await openChoice(page, "59.9, 10.7", "2");
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await expectToast(page, SIGNED.refused);
    assert.ok(wallet.methods().includes("eth_signTypedData_v4"));
    assert.equal(wallet.sentTransactions.length, 0);
    await assertNothingRecordedHere(page);
    // The player picked their account before refusing to sign: the header shows it, not "Connect".
    await page.getByRole("banner").getByText(shortAddress(player)).waitFor({ timeout: 5000 });
    await screenshot(page, "relayed-refused-signature-1280", { fullPage: false });
    assert.deepEqual(errors, []);
  });
  assert.deepEqual(await signedClaimsOf(player, challenge.id), before, "nothing recorded");
  assert.equal(await usdcBalance(stack.rpcUrl, stack.usdc, player), usdcBefore, "nothing paid");
}

/** A wallet without eth_signTypedData_v4: the page says so and pays by transaction instead. */
async function walletWithoutTypedData(challenge) {
  const { stack } = state;
  const player = stack.accounts.players[3];
  await withPlayer({ account: player, script: { signTypedData: "unsupported" } }, async ({ page, wallet, errors }) => {
    await waitForGame(page);
    const dialog = await openChoice(page, "59.91, 10.75", "2");
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await expectToast(page, SPEC.submitted);
    const seen = await seenTexts(page);
    assertInOrder(seen, [
      SIGNED.signing,
      "Your wallet cannot sign this payment: sending a transaction instead...",
      "Sending transaction...",
      "Submitting solution...",
    ]);
    // And the toast that says why, which stays until the spec's success replaces it.
    assert.ok(seen.includes("Paying by Transaction"), "the fallback's toast");
    assert.equal(wallet.sentTransactions.length, 1);
    const { hash } = wallet.sentTransactions[0];
    await mySubmissions(page)
      .getByRole("listitem")
      .filter({ hasText: hash })
      .getByText("Confirmed", { exact: true })
      .waitFor({ timeout: 60000 });
    assert.deepEqual(errors, []);
  });
  const rows = await signedClaimsOf(player, challenge.id);
  assert.deepEqual(
    rows.map((r) => [r.payment_method, r.status]),
    [["transfer", "confirmed"]],
  );
}

export function registerSelfSend() {
  test(
    'the relay refuses the stake: the page says why and the player "Sends it yourself"; the site finds it on chain',
    { timeout: 180000 },
    async () => {
      const { stack } = state;
      const player = stack.accounts.players[2];
      const challenge = (
        await query(stack.dbUrl, "SELECT id, poem_title FROM challenges_challenge WHERE status = 'active'")
      )[0];
      assert.ok(challenge, "the seeded challenge is active");
      const treasuryBefore = await usdcBalance(stack.rpcUrl, stack.usdc, stack.treasury);
      await withPlayer({ account: player }, async ({ page, wallet, errors }) => {
        await waitForGame(page);
        const dialog = await openChoice(page, "40.6892, -74.0445", "2.5");
        await dialog.getByRole("button", { name: "Confirm" }).click();
        await expectToast(page, SPEC.submitted);
        const entry = entryOf(page, SIGNED.payment);
        // The relay's own sentence (chain/relay_reasons.py): a limit of 0 per wallet, and what the
        // player can do.
        await entry
          .getByText(/^Geopoem's relay is not sending stakes for any wallet right now; send this payment yourself/)
          .waitFor({ timeout: 60000 });
        const offer = entry.getByRole("button", { name: "Send it yourself" });
        await offer.waitFor();
        // What it costs is said before the wallet is asked.
        await entry.getByText(/This needs a little ETH for gas\./).waitFor();
        assert.equal(wallet.sentTransactions.length, 0);
        await assertNoViolations(page, "My submissions offering Send it yourself");
        await screenshots(page, entry, "relayed-send-it-yourself");

        await offer.click();
        await entry.getByText(/^(Sent, waiting for the chain|On the chain: Geopoem finds it there by itself)/).waitFor({
          timeout: 30000,
        });
        assert.equal(wallet.sentTransactions.length, 1);
        const { hash, tx } = wallet.sentTransactions[0];
        assert.equal(tx.to.toLowerCase(), stack.usdc.toLowerCase());
        assert.equal((tx.data.length - 2) / 2, 324);
        await entry.getByText("Confirmed", { exact: true }).waitFor({ timeout: 60000 });
        await entry.getByText(/^On the chain: Geopoem finds it there by itself/).waitFor();
        // Nothing on the page says Geopoem sent it: the player did.
        await entry.getByText("Signed payment, sent to the chain from your wallet", { exact: true }).waitFor();
        await screenshots(page, entry, "relayed-sent-yourself-confirmed");

        const [row] = await signedClaimsOf(player, challenge.id);
        assert.equal(row.status, "confirmed", `claim ${row.status}: ${row.rejection_code}`);
        assert.equal(row.payment_method, "authorization");
        assert.equal(row.relay_status, "refused");
        assert.equal(row.transaction_hash, hash.toLowerCase(), "counted on the player's own transaction");
        assert.equal(await usdcBalance(stack.rpcUrl, stack.usdc, stack.treasury), treasuryBefore + units("2.5"));
        assert.deepEqual(errors, []);
      });
    },
  );
}

/** The stack settings of registerSelfSend: a relay that refuses every stake (a limit of 0 a day). */
export const RELAY_REFUSES = { RELAY_MAX_PER_ADDRESS_PER_DAY: "0" };

// Run on its own: `node --test e2e/flows/relayed.mjs` starts (and stops) stacks of its own.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.env.E2E_DB_NAME ??= "geopoem_relayed";
  process.env.E2E_REDIS_DB ??= "11";
  process.env.E2E_LOG_DIR ??= path.join(
    path.dirname(fileURLToPath(import.meta.url)),
    "..",
    "artifacts",
    "logs-relayed",
  );
  describeOnOwnStack("stakes paid by signature, on their own stack", register);
  describeOnOwnStack("a relay that refuses, on its own stack", registerSelfSend, { env: RELAY_REFUSES });
}

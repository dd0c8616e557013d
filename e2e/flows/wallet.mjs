// The wallet as a player meets it, on the challenge `make run` seeds (open in the pot): connecting,
// changing accounts and networks; the wallet refusing an account, a signature or a transaction
// (4001) with nothing kept and nothing paid; what the page refuses before the wallet is asked to
// sign or send (more USDC than the wallet holds, no ETH for the approval's gas), in a sentence with
// no HTTP status; and a wallet that cannot sign typed data, which pays by approval instead.
import assert from "node:assert/strict";
import { test } from "node:test";

import { assertNoViolations } from "../lib/axe.mjs";
import { query } from "../lib/db.mjs";
import {
  assertInOrder,
  assertNothingKeptHere,
  closeToasts,
  ethOf,
  expectToast,
  fillAndSubmit,
  openGame,
  PROGRESS,
  rowOf,
  screenshotsOf,
  seenTexts,
  shortAddress,
  signedStakesOf,
  SPEC,
  stakeOnPage,
  walletAsked,
} from "../lib/game.mjs";
import { rpc, usdcBalance } from "../lib/rpc.mjs";
import { CHAIN_ID } from "../lib/stack.mjs";
import { state, withPlayer } from "../lib/suite.mjs";

const NODE_CHAIN = `0x${CHAIN_ID.toString(16)}`;
// The seeded challenge's solution (responses/management/commands/seed_demo.py).
const LIBERTY = "40.689247, -74.044502";

/** What the chain and the site hold for a player: compared before and after a refusal. */
async function ledgerOf(player) {
  const { stack } = state;
  return {
    signed: await signedStakesOf(player),
    balance: await usdcBalance(stack.rpcUrl, stack.usdc, player),
    pot: await usdcBalance(stack.rpcUrl, stack.usdc, stack.pot),
    nonce: await rpc(stack.rpcUrl, "eth_getTransactionCount", [player, "latest"]),
  };
}

/** The sentence beside the form's button (kept there, not only in a toast that goes away). */
const refusalNote = (page) => page.locator("form").getByRole("alert");

export function register() {
  test("connect shows the shortened address, follows an account change, and a network change reloads the page", async () => {
    const [first, second] = state.stack.accounts.players;
    await withPlayer({ accounts: [first, second] }, async ({ page, wallet, errors }) => {
      await openGame(page);
      await page.getByRole("button", { name: SPEC.connect }).click();
      await expectToast(page, SPEC.connected);
      const header = page.getByRole("banner");
      assert.equal(
        await header.getByText(shortAddress(first)).textContent(),
        `${first.slice(0, 6)}...${first.slice(-4)}`,
      );
      assert.ok(walletAsked(wallet, "eth_requestAccounts"));

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
      assert.deepEqual(errors, []);
    });
  });

  test("the wallet refuses (4001) an account, a signature, a transaction: the toast, nothing kept, nothing paid", async () => {
    const player = state.stack.accounts.players[6];
    const before = await ledgerOf(player);
    // A wallet on Ethereum mainnet that does not know this chain: the page adds it (4902) first.
    await withPlayer(
      { account: player, chainId: "0x1", knownChains: ["0x1"], script: { permissions: true } },
      async ({ page, wallet, errors }) => {
        await openGame(page);
        await stakeOnPage(page, "40.6892, -74.0445", "3");
        await expectToast(page, ["Account Selection Required", "Please select an account in MetaMask to continue"]);
        assert.ok(walletAsked(wallet, "wallet_requestPermissions"));
        await assertNothingKeptHere(page);
        await closeToasts(page);

        wallet.script = { signTypedData: true };
        await stakeOnPage(page, "40.6892, -74.0445", "3");
        await expectToast(page, ["Signature Failed", "Signature rejected by user"]);
        assert.equal(wallet.addedChains.length, 1, "the network added once it was unknown");
        const added = wallet.addedChains[0];
        assert.equal(added.chainId, NODE_CHAIN);
        assert.equal(added.chainName, "Anvil (e2e)");
        assert.deepEqual(added.rpcUrls, [state.stack.rpcUrl]);
        assert.equal(added.nativeCurrency.symbol, "ETH");
        assert.ok(walletAsked(wallet, "eth_signTypedData_v4"), "the wallet was asked, and refused");
        await assertNothingKeptHere(page);
        // The player picked an account before refusing: the header shows it, not "Connect".
        await page.getByRole("banner").getByText(shortAddress(player)).waitFor();
        await closeToasts(page);

        wallet.script = { transaction: true };
        await stakeOnPage(page, "40.6892, -74.0445", "3", "approval");
        await expectToast(page, ["Transaction Failed", "Transaction rejected by user"]);
        assert.ok(walletAsked(wallet, "eth_sendTransaction"), "the wallet was asked, and refused");
        assert.equal(wallet.sentTransactions.length, 0);
        assert.ok(await page.locator(".toast.toast-destructive").filter({ hasText: "Transaction Failed" }).count());
        await assertNothingKeptHere(page);
        assert.deepEqual(errors, []);
      },
    );
    assert.deepEqual(await ledgerOf(player), before, "nothing recorded, nothing paid, no transaction");
  });

  test("what the page refuses before the wallet is asked to sign or send: a sentence, no HTTP status", async () => {
    const player = state.stack.accounts.players[6];
    await withPlayer({ account: player, width: 390, height: 844 }, async ({ page, wallet, errors }) => {
      await openGame(page);
      // Below the minimum: the form's own check.
      await fillAndSubmit(page, "40.6892, -74.0445", "0.5");
      await expectToast(page, SPEC.badStake);
      await closeToasts(page);

      // More USDC than the wallet holds (10,000): refused before the wallet is asked to sign.
      await stakeOnPage(page, "40.6892, -74.0445", "20000");
      const note = refusalNote(page);
      await note.getByText(/^This wallet does not hold enough USDC for the stake: it holds 10000\.00 USDC\./).waitFor();
      const said = await note.textContent();
      assert.doesNotMatch(said, /\b(4\d\d|5\d\d)\b/, `no HTTP status in "${said}"`);
      await expectToast(page, ["Stake Not Sent", said]);
      assert.ok(!walletAsked(wallet, "eth_signTypedData_v4"), "the wallet was never asked to sign");
      await screenshotsOf(page, note, "refused-no-usdc");
      await assertNothingKeptHere(page);

      // No ETH for the approval's gas: said before the wallet is asked, with the way that needs none.
      await rpc(state.stack.rpcUrl, "anvil_setBalance", [player, "0x0"]);
      await stakeOnPage(page, "40.6892, -74.0445", "2", "approval");
      await note
        .getByText(/does not hold enough ETH to pay for the gas .* Pay by signature instead: it needs no ETH\./)
        .waitFor();
      assert.doesNotMatch(await note.textContent(), /\b(4\d\d|5\d\d)\b/);
      assert.ok(!walletAsked(wallet, "eth_sendTransaction"), "the wallet was never asked to send");
      await assertNoViolations(page, "the form with a refusal beside its button");
      await screenshotsOf(page, note, "refused-no-eth");
      await assertNothingKeptHere(page);
      assert.equal(await ethOf(player), 0n);
      assert.deepEqual(errors, []);
    });
  });

  test("a wallet that cannot sign typed data (4200) pays by approval instead, after switching networks", async () => {
    const { stack } = state;
    const player = stack.accounts.players[2];
    const challengeId = (await query(stack.dbUrl, "SELECT min(id) AS id FROM challenges_challenge"))[0].id;
    await withPlayer(
      { account: player, chainId: "0x1", knownChains: ["0x1", NODE_CHAIN], script: { signTypedData: "unsupported" } },
      async ({ page, wallet, errors }) => {
        await openGame(page);
        await stakeOnPage(page, LIBERTY, "2");
        await expectToast(page, SPEC.submitted);
        const switches = wallet.calls.filter((call) => call.method === "wallet_switchEthereumChain");
        assert.deepEqual(switches.at(-1).params, [{ chainId: NODE_CHAIN }]);
        assert.equal(wallet.addedChains.length, 0, "a known network is switched to, not added");
        const seen = await seenTexts(page);
        assertInOrder(seen, [PROGRESS.sign, PROGRESS.fallback, PROGRESS.sending, PROGRESS.waiting]);
        assert.ok(seen.includes("Paying by Approval"), "the toast that says why");
        assert.deepEqual(
          wallet.sentTransactions.map(({ tx }) => tx.to.toLowerCase()),
          [stack.usdc.toLowerCase(), stack.pot.toLowerCase()],
          "approve, then stake",
        );
        const row = rowOf(page, LIBERTY);
        await row.getByText(/^Confirmed in the pot \(stake #\d+\)$/).waitFor({ timeout: 60000 });
        await row.getByText("Approved and staked from your wallet").waitFor();
        await row.getByText("Guess received by Geopoem").waitFor({ timeout: 30000 });
        const [guess] = await query(
          stack.dbUrl,
          `SELECT text FROM responses_guess WHERE challenge_id = ${challengeId} AND payer = lower('${player}')`,
        );
        assert.equal(guess?.text, LIBERTY);
        assert.deepEqual(errors, []);
      },
    );
  });
}

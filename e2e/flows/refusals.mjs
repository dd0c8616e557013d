import assert from "node:assert/strict";
import { test } from "node:test";

import {
  assertNothingRecordedHere,
  expectToast,
  responsesOf,
  shortAddress,
  submitGuess,
  waitForGame,
} from "../lib/game.mjs";
import { rpc, usdcBalance } from "../lib/rpc.mjs";
import { state, withPlayer } from "../lib/suite.mjs";

/** What the database and the chain hold for a player: compared before and after a refusal. */
async function ledgerOf(player) {
  const { stack } = state;
  return {
    claims: await responsesOf(player),
    treasury: await usdcBalance(stack.rpcUrl, stack.usdc, stack.treasury),
    balance: await usdcBalance(stack.rpcUrl, stack.usdc, player),
    nonce: await rpc(stack.rpcUrl, "eth_getTransactionCount", [player, "latest"]),
  };
}

/** Nothing recorded, no payment made: the database and the chain say so. */
async function assertNothingHappened(player, before) {
  const after = await ledgerOf(player);
  assert.deepEqual(after.claims, before.claims, "no claim recorded");
  assert.equal(after.treasury, before.treasury, "the treasury received nothing");
  assert.equal(after.balance, before.balance, "the player paid nothing");
  assert.equal(after.nonce, before.nonce, "no transaction from the player");
}

export function register() {
  test("refusal at the account permission: the toast, nothing recorded, no payment", async () => {
    const { stack } = state;
    const player = stack.accounts.players[1];
    const before = await ledgerOf(player);
    await withPlayer({ account: player, script: { permissions: true } }, async ({ page, wallet }) => {
      await waitForGame(page);
      await submitGuess(page, "40.6892, -74.0445", "3");
      await expectToast(page, ["Account Selection Required", "Please select an account in MetaMask to continue"]);
      assert.ok(wallet.methods().includes("wallet_requestPermissions"));
      assert.ok(!wallet.methods().includes("eth_sendTransaction"));
    });
    await assertNothingHappened(player, before);
  });

  test("refusal at the transaction: the toast, nothing recorded, no payment", async () => {
    const { stack } = state;
    const player = stack.accounts.players[1];
    const before = await ledgerOf(player);
    await withPlayer({ account: player, script: { transaction: true } }, async ({ page, wallet }) => {
      await waitForGame(page);
      await submitGuess(page, "40.6892, -74.0445", "3");
      await expectToast(page, ["Transaction Failed", "Transaction rejected by user"]);
      assert.ok(wallet.methods().includes("eth_sendTransaction"), "the wallet was asked, and refused");
      assert.equal(wallet.sentTransactions.length, 0);
      // Red like every other failure, and no "Not paid" entry for what never happened.
      assert.ok(await page.locator(".toast.toast-destructive").filter({ hasText: "Transaction Failed" }).count());
      await assertNothingRecordedHere(page);
      // The account was picked before the refusal: the header shows it.
      await page.getByRole("banner").getByText(shortAddress(player)).waitFor({ timeout: 5000 });
    });
    await assertNothingHappened(player, before);
  });
}

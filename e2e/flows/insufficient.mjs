import assert from "node:assert/strict";
import { test } from "node:test";

import { expectToast, responsesOf, SPEC, submitGuess, waitForGame } from "../lib/game.mjs";
import { rpc, usdcBalance } from "../lib/rpc.mjs";
import { state, withPlayer } from "../lib/suite.mjs";

export function register() {
  test('a transfer that reverts for lack of balance: "Transaction failed - insufficient balance or other error"', async () => {
    const { stack } = state;
    const player = stack.accounts.broke; // unlocked, with ETH for gas and no USDC
    assert.equal(await usdcBalance(stack.rpcUrl, stack.usdc, player), 0n);
    const treasuryBefore = await usdcBalance(stack.rpcUrl, stack.usdc, stack.treasury);
    await withPlayer({ account: player }, async ({ page, wallet }) => {
      await waitForGame(page);
      await submitGuess(page, "40.6892, -74.0445", "5");
      await expectToast(page, ["Transaction Failed", SPEC.insufficient]);
      // The transaction was really sent and mined, and reverted on chain.
      assert.equal(wallet.sentTransactions.length, 1);
      const receipt = await rpc(stack.rpcUrl, "eth_getTransactionReceipt", [wallet.sentTransactions[0].hash]);
      assert.equal(receipt.status, "0x0");
    });
    assert.deepEqual(await responsesOf(player), [], "a reverted payment claims nothing");
    assert.equal(await usdcBalance(stack.rpcUrl, stack.usdc, stack.treasury), treasuryBefore);
  });
}

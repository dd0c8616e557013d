import assert from "node:assert/strict";
import { test } from "node:test";

import { responsesOf, SPEC, submitGuess, toast, waitForGame } from "../lib/game.mjs";
import { rpc } from "../lib/rpc.mjs";
import { state, withPlayer } from "../lib/suite.mjs";

export function register() {
  test("no receipt within 60 s (mining paused on anvil): the timeout message", { timeout: 120000 }, async () => {
    const { stack } = state;
    const player = stack.accounts.players[4];
    await withPlayer({ account: player }, async ({ page, wallet }) => {
      await waitForGame(page);
      await rpc(stack.rpcUrl, "evm_setIntervalMining", [0]); // no block until the end of the test
      try {
        const started = Date.now();
        await submitGuess(page, "40.6892, -74.0445", "1");
        await toast(page, SPEC.timeout).waitFor({ timeout: 80000 });
        await toast(page, "Transaction Failed").waitFor();
        const waited = Date.now() - started;
        assert.ok(waited >= 58000, `the page gave up after ${waited} ms, before the spec's 60 s`);
        assert.equal(wallet.sentTransactions.length, 1);
        assert.equal(await rpc(stack.rpcUrl, "eth_getTransactionReceipt", [wallet.sentTransactions[0].hash]), null);
        assert.deepEqual(await responsesOf(player), [], "an unconfirmed payment is not claimed");
      } finally {
        await rpc(stack.rpcUrl, "evm_setIntervalMining", [1]);
      }
    });
  });
}

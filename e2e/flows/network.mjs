import assert from "node:assert/strict";
import { test } from "node:test";

import { expectToast, settledResponse, SPEC, submitGuess, waitForGame } from "../lib/game.mjs";
import { CHAIN_ID } from "../lib/stack.mjs";
import { state, withPlayer } from "../lib/suite.mjs";

const NODE_CHAIN = `0x${CHAIN_ID.toString(16)}`;

export function register() {
  test(
    "the network switch: a wallet on another chain is switched to the configured one, and the payment goes through",
    { timeout: 90000 },
    async () => {
      const player = state.stack.accounts.players[2];
      await withPlayer(
        { account: player, chainId: "0x1", knownChains: ["0x1", NODE_CHAIN] },
        async ({ page, wallet }) => {
          await waitForGame(page);
          await submitGuess(page, "40.6891, -74.0444", "1.25");
          await expectToast(page, SPEC.submitted);
          const switches = wallet.calls.filter((c) => c.method === "wallet_switchEthereumChain");
          assert.deepEqual(switches.at(-1).params, [{ chainId: NODE_CHAIN }]);
          assert.equal(wallet.chainId, NODE_CHAIN);
          assert.equal(wallet.addedChains.length, 0, "a known network is switched to, not added");
          const row = await settledResponse(wallet.sentTransactions.at(-1).hash);
          assert.equal(row.status, "confirmed");
        },
      );
    },
  );

  test(
    "the network added when unknown (4902): wallet_addEthereumChain with the configured chain",
    { timeout: 90000 },
    async () => {
      const { stack } = state;
      const player = stack.accounts.players[3];
      await withPlayer({ account: player, chainId: "0x1", knownChains: ["0x1"] }, async ({ page, wallet }) => {
        await waitForGame(page);
        await submitGuess(page, "40.6893, -74.0446", "1.75");
        await expectToast(page, SPEC.submitted);
        assert.equal(wallet.addedChains.length, 1);
        const added = wallet.addedChains[0];
        assert.equal(added.chainId, NODE_CHAIN);
        assert.equal(added.chainName, "Anvil (e2e)");
        assert.deepEqual(added.rpcUrls, [stack.rpcUrl]);
        assert.equal(added.nativeCurrency.symbol, "ETH");
        assert.equal(added.nativeCurrency.decimals, 18);
        const row = await settledResponse(wallet.sentTransactions.at(-1).hash);
        assert.equal(row.status, "confirmed");
      });
    },
  );
}

// On a stack whose relay refuses every stake (RELAY_MAX_PER_ADDRESS_PER_DAY=0): a player signs a
// stake, Geopoem stores it but its relay will not send it; My submissions says why and offers
// "Send it yourself" (it needs a little ETH, said before the wallet is asked); the player's wallet
// sends the same signed call to the pot, and the stake is confirmed and its guess handed over.
import assert from "node:assert/strict";
import { test } from "node:test";

import { assertNoViolations } from "../lib/axe.mjs";
import {
  expectToast,
  openGame,
  rowOf,
  screenshotsOf,
  signedStakesOf,
  SPEC,
  stakeOnPage,
  stakesOf,
  until,
} from "../lib/game.mjs";
import { rpc } from "../lib/rpc.mjs";
import { state, withPlayer } from "../lib/suite.mjs";

/** The stack settings of this flow: a relay that refuses every stake (a limit of 0 a day). */
export const RELAY_REFUSES = { RELAY_MAX_PER_ADDRESS_PER_DAY: "0" };

const GUESS = "40.6892, -74.0445";

export function register() {
  test('the relay refuses the stake: the page says why, and the player "Sends it yourself"', async () => {
    const { stack } = state;
    const player = stack.accounts.players[2];
    await withPlayer({ account: player, width: 390, height: 844 }, async ({ page, wallet, errors }) => {
      await openGame(page);
      await stakeOnPage(page, GUESS, "2.5");
      await expectToast(page, SPEC.submitted);
      const row = rowOf(page, GUESS);
      await row
        .getByText(
          "Geopoem's relayer will not send it: Geopoem's relay is not sending stakes for any wallet right now; send this stake yourself from your wallet (it needs a little ETH for gas).",
        )
        .waitFor({ timeout: 30000 });
      await row.getByText("Signed; Geopoem's relayer did not send it", { exact: true }).waitFor();
      const offer = row.getByRole("button", { name: "Send it yourself" });
      await offer.waitFor();
      await row.getByText(/This needs a little ETH for gas\./).waitFor();
      assert.equal(wallet.sentTransactions.length, 0);
      const [signed] = await signedStakesOf(player);
      assert.equal(signed.relay_status, "refused");
      await assertNoViolations(page, "My submissions offering Send it yourself");
      await screenshotsOf(page, row, "row-relay-refused");

      await offer.click();
      await row.getByText(/^Confirmed in the pot \(stake #\d+\)$/).waitFor({ timeout: 60000 });
      assert.equal(wallet.sentTransactions.length, 1);
      const { hash, tx } = wallet.sentTransactions[0];
      assert.equal(tx.to.toLowerCase(), stack.pot.toLowerCase(), "the signed stake, sent to the pot");
      await row.getByText("Signed, sent to the pot from your wallet").waitFor();
      await row.getByText("On the chain", { exact: true }).waitFor();
      await row.getByText("Guess received by Geopoem").waitFor({ timeout: 30000 });
      assert.equal(await row.getByRole("button", { name: "Send it yourself" }).count(), 0);
      await screenshotsOf(page, row, "row-sent-yourself");
      const stake = await until(async () => (await stakesOf(1))[0], "the stake in the pot");
      assert.equal(stake.transaction_hash, hash.toLowerCase(), "counted on the player's own transaction");
      assert.equal(stake.payer, player.toLowerCase());
      const receipt = await rpc(stack.rpcUrl, "eth_getTransactionReceipt", [hash]);
      assert.equal(receipt.status, "0x1");
      assert.deepEqual(errors, []);
    });
  });
}

// A whole challenge through the pot, from staff's Publish to the winners paid by the pot itself:
//   A, on a phone and holding no ETH, stakes by signature (Geopoem relays it);
//   B stakes by approval (two transactions from the wallet);
//   C signs and sends the stake from the wallet;
//   D stakes the most, but the page's guess POST never reaches the site (blocked in the browser),
//     so after the solution's reveal D is offered "Reveal my guess" and reveals it from the wallet.
// Then the close (the chain's clock moved), the closed and revealing phases as players see them,
// the guess window passing, the pot's payments, My submissions and the Winners' Circle saying which
// prize each won and that it is paid, and "Verify every outcome". Screenshots of every tab in each
// phase, at 390 and 1280 px.
import assert from "node:assert/strict";
import { test } from "node:test";

import { assertNoViolations } from "../lib/axe.mjs";
import {
  api,
  assertInOrder,
  challengeIn,
  confirmDialog,
  ethOf,
  expectToast,
  guessesOf,
  openConfirm,
  openGame,
  openTab,
  paymentsOf,
  PROGRESS,
  rowOf,
  screenshotsOf,
  screenshotTabs,
  seenTexts,
  SPEC,
  stakeOnPage,
  stakesOf,
  staffLogin,
  staffPublish,
  until,
  units,
  walletAsked,
  warpTo,
  withMiningHeld,
  WAY,
} from "../lib/game.mjs";
import { assertRevealMap } from "../lib/maps.mjs";
import { rpc, usdcBalance } from "../lib/rpc.mjs";
import { openPlayer, screenshot, state } from "../lib/suite.mjs";

const CHALLENGE = {
  title: "The Quiet Harbour",
  poem: "<p>Grey stones hold the tide,<br>a light turns for the late boats.</p>",
  solution: "60.1699, 24.9384",
  threshold: "100",
};
// Each guess and stake, and what the pot makes of them (a pot of 11.50 USDC: two prizes of 4.60).
const A = { guess: "60.16992, 24.93838", stake: "2" }; // correct, the earliest: wins the earliest prize
const B = { guess: "60.16995, 24.93845", stake: "3" }; // correct, but D stakes more
const C = { guess: "60.2, 24.9", stake: "1.5" }; // about 4.8 km off: not correct
const D = { guess: "60.1698, 24.9383", stake: "5" }; // correct, the highest: wins once revealed
const PRIZE = "4.60";

const CONFIRMED = /^Confirmed in the pot \(stake #\d+\)$/;

/** The distance shown beside a verdict: the haversine on a sphere of 6,371,000 m (challenges/scoring.py). */
function haversine(from, to) {
  const [a, b] = [from, to].map((text) => text.split(",").map((n) => (Number(n) * Math.PI) / 180));
  const h = Math.sin((b[0] - a[0]) / 2) ** 2 + Math.cos(a[0]) * Math.cos(b[0]) * Math.sin((b[1] - a[1]) / 2) ** 2;
  return 2 * 6371000 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** A row's field (a <dt>) and its value (the <dd> after it). */
const field = (row, name) =>
  row.locator("dt", { hasText: new RegExp(`^${name}$`) }).locator("xpath=following-sibling::dd[1]");

async function confirmedWithGuess(row) {
  await row.getByText(CONFIRMED).waitFor({ timeout: 60000 });
  await field(row, "Guess").getByText("Guess received by Geopoem").waitFor({ timeout: 30000 });
}

export function register() {
  test(
    "a whole challenge through the pot: publish, four stakes, the close, Reveal my guess, paid winners",
    {
      timeout: 420000,
    },
    async (t) => {
      const { stack } = state;
      const [a, b, , , c, d] = stack.accounts.players;
      const players = [];
      const open = async (options) => {
        const player = await openPlayer(options);
        players.push(player);
        return player;
      };
      let id;
      let pageA;
      let pageD;
      const walletBefore = {};
      try {
        await t.test("staff publish the challenge in the admin; the worker opens it in the pot", async () => {
          const staff = await open({});
          await staffLogin(staff.page);
          id = await staffPublish(staff.page, CHALLENGE);
          const { body } = await api("/api/challenges/active");
          assert.equal(body.id, id, "the new challenge is the active one");
          assert.equal(body.phase, "open");
          assert.ok(body.openBlockNumber > 0, "its terms are on chain");
          await staff.close();
        });

        await t.test("A, on a phone with 0 ETH, stakes by signature: relayed, Confirmed, guess received", async () => {
          await rpc(stack.rpcUrl, "anvil_setBalance", [a, "0x0"]);
          walletBefore.a = await usdcBalance(stack.rpcUrl, stack.usdc, a);
          const player = await open({ account: a, width: 390, height: 844 });
          pageA = player.page;
          await openGame(pageA);
          await pageA.getByRole("heading", { name: CHALLENGE.title }).waitFor();
          const dialog = await openConfirm(pageA, A.guess, A.stake);
          assert.ok(await dialog.getByRole("radio", { name: WAY.relay }).isChecked(), "the signature is offered first");
          await assertNoViolations(pageA, "the confirm dialog with the ways to pay");
          await screenshotsOf(pageA, dialog.getByRole("button", { name: "Confirm" }), "confirm-dialog-ways");
          await pageA.setViewportSize({ width: 390, height: 844 });
          await dialog.getByRole("button", { name: "Confirm" }).click();
          await expectToast(pageA, SPEC.submitted);
          assertInOrder(await seenTexts(pageA), [
            PROGRESS.connecting,
            PROGRESS.selectAccount,
            PROGRESS.sign,
            PROGRESS.relay,
          ]);
          assert.equal(player.wallet.sentTransactions.length, 0, "A sent no transaction");
          const row = rowOf(pageA, A.guess);
          await confirmedWithGuess(row);
          await screenshotsOf(pageA, row, "row-relayed-confirmed");
          assert.equal(await ethOf(a), 0n, "staking cost A no ETH");
          assert.equal(await usdcBalance(stack.rpcUrl, stack.usdc, a), walletBefore.a - units(A.stake));
          const [stake] = await stakesOf(id);
          assert.equal(stake.payer, a.toLowerCase());
          const tx = await rpc(stack.rpcUrl, "eth_getTransactionByHash", [stake.transaction_hash]);
          assert.equal(tx.to.toLowerCase(), stack.pot.toLowerCase(), "the relayer called the pot");
          assert.notEqual(tx.from.toLowerCase(), a.toLowerCase());
          assert.deepEqual(player.errors, []);
        });

        await t.test("B stakes by approval: approve, then stake, from the wallet", async () => {
          const player = await open({ account: b });
          await openGame(player.page);
          await stakeOnPage(player.page, B.guess, B.stake, "approval");
          await expectToast(player.page, SPEC.submitted);
          const sent = player.wallet.sentTransactions.map(({ tx }) => tx.to.toLowerCase());
          assert.deepEqual(sent, [stack.usdc.toLowerCase(), stack.pot.toLowerCase()], "approve, then stake");
          assert.ok(!walletAsked(player.wallet, "eth_signTypedData_v4"));
          await confirmedWithGuess(rowOf(player.page, B.guess));
          await player.close();
        });

        await t.test('C chooses "Sign it and send it yourself": one transaction from the wallet', async () => {
          const player = await open({ account: c });
          await openGame(player.page);
          await stakeOnPage(player.page, C.guess, C.stake, "self");
          await expectToast(player.page, SPEC.submitted);
          assert.equal(player.wallet.signatures.length, 1);
          assert.equal(player.wallet.sentTransactions.length, 1);
          assert.equal(player.wallet.sentTransactions[0].tx.to.toLowerCase(), stack.pot.toLowerCase());
          const row = rowOf(player.page, C.guess);
          await confirmedWithGuess(row);
          await field(row, "Payment").getByText("Signed, sent to the pot from your wallet").waitFor();
          await field(row, "From your wallet").getByText("On the chain").waitFor();
          await screenshotsOf(player.page, row, "row-sent-yourself-confirmed");
          await player.close();
        });

        await t.test("D stakes the most; the guess's POST never reaches Geopoem", async () => {
          const player = await open({ account: d });
          pageD = player.page;
          let blocked = 0;
          await pageD.route("**/api/responses/guess", (route) => {
            blocked += 1;
            return route.abort("connectionreset");
          });
          await openGame(pageD);
          await stakeOnPage(pageD, D.guess, D.stake);
          await expectToast(pageD, SPEC.submitted);
          const row = rowOf(pageD, D.guess);
          await row.getByText(CONFIRMED).waitFor({ timeout: 60000 });
          await field(row, "Guess")
            .getByText("Being sent to Geopoem (again automatically while this page is open)")
            .waitFor({ timeout: 30000 });
          await until(() => blocked >= 2, "the page posting the guess again");
          const stakes = await stakesOf(id);
          assert.deepEqual(
            stakes.map((s) => [s.seq, s.payer, s.amount]),
            [
              [1, a.toLowerCase(), String(units(A.stake))],
              [2, b.toLowerCase(), String(units(B.stake))],
              [3, c.toLowerCase(), String(units(C.stake))],
              [4, d.toLowerCase(), String(units(D.stake))],
            ],
          );
          const held = await guessesOf(id);
          assert.deepEqual(
            held.map((g) => g.payer).sort(),
            [a, b, c].map((x) => x.toLowerCase()).sort(),
            "Geopoem holds every guess but D's",
          );
          await screenshotsOf(pageD, row, "row-guess-not-received");
          await screenshotTabs(pageA, "open-staked", ["active"]);
        });

        await t.test("the close passes: the Active tab says the challenge is closed and what comes next", async () => {
          const { body: before } = await api(`/api/challenges/${id}`);
          await withMiningHeld(async () => {
            // One block at the close; the solution's reveal the worker then sends waits in the pool.
            await warpTo(before.closesTimestamp);
            await challengeIn(id, "closed");
            await openGame(pageA);
            const card = pageA.getByRole("region", { name: `Challenge #${id}: ${CHALLENGE.title}` });
            await card.getByText("No challenge takes stakes right now. This one is closed.").waitFor();
            // At the latest by the solution deadline; then the guess window staff's settings gave it.
            await card
              .getByText(
                /The solution is revealed on chain by .* at the latest; guesses can then be revealed for 1 hour,/,
              )
              .waitFor();
            assert.equal(await pageA.getByText("No active challenge available at the moment.").count(), 0);
            assert.equal(await pageA.getByRole("button", { name: SPEC.submit }).count(), 0, "no form to stake with");
            await rowOf(pageA, A.guess).getByText(CONFIRMED).waitFor();
            await assertNoViolations(pageA, "the Active tab of a closed challenge");
            await screenshotTabs(pageA, "closed", ["active", "resolved", "winners"]);
          });
        });

        await t.test(
          "the solution is revealed: the Resolved tab shows it; the worker reveals the winners it holds",
          async () => {
            const revealing = await challengeIn(id, "revealing");
            assert.equal(revealing.solutionReveal, CHALLENGE.solution);
            // The earliest correct (A) and the highest correct Geopoem holds (B); not C (wrong), not D (unknown).
            await until(async () => {
              const stakes = await stakesOf(id);
              return stakes[0].revealed_correct === true && stakes[1].revealed_correct === true;
            }, "the worker's reveals of A's and B's guesses");
            await openGame(pageA);
            const card = pageA.getByRole("region", { name: `Challenge #${id}: ${CHALLENGE.title}` });
            await card.getByText(`The solution is revealed: ${CHALLENGE.solution}.`, { exact: false }).waitFor();
            assert.equal(await pageA.getByText("No active challenge available at the moment.").count(), 0);
            const row = rowOf(pageA, A.guess);
            await field(row, "Result")
              .getByText(/^Correct: \d\.\d\d m from the solution$/)
              .waitFor({ timeout: 30000 });
            await field(row, "Winners")
              .getByText(/^Not fixed yet: a better correct guess may still be revealed/)
              .waitFor();
            await openTab(pageA, "Resolved Challenges");
            const listed = pageA.getByRole("button", { name: new RegExp(CHALLENGE.title) });
            await listed.getByText(CHALLENGE.solution).waitFor();
            // Its guess window is open: not called resolved, nor completed on a date still to come.
            await listed.getByText("Revealing", { exact: true }).waitFor();
            assert.equal(await listed.getByText(/Completed/).count(), 0);
            await screenshotTabs(pageA, "revealing", ["active", "resolved", "winners"]);
          },
        );

        await t.test('D is offered "Reveal my guess" and reveals it from the wallet: it wins on chain', async () => {
          await openGame(pageD);
          const row = rowOf(pageD, D.guess);
          const offer = row.getByText(
            /^Your correct guess would beat a winner on chain, but it is not revealed there yet/,
          );
          await offer.waitFor({ timeout: 30000 });
          await assertNoViolations(pageD, "My submissions offering Reveal my guess");
          await screenshotsOf(pageD, row.locator(".reveal-guess"), "row-reveal-my-guess");
          const sentBefore = players.find((p) => p.page === pageD).wallet.sentTransactions.length;
          await row.getByRole("button", { name: "Reveal from my wallet" }).click();
          // Read from the pot as soon as the reveal is mined, not on the pot view's next 30 s round.
          await field(row, "Revealed on chain").getByText("Yes, from your wallet").waitFor({ timeout: 15000 });
          assert.equal(await offer.count(), 0, "no more offer once it is revealed");
          const wallet = players.find((p) => p.page === pageD).wallet;
          assert.equal(wallet.sentTransactions.length, sentBefore + 1);
          assert.equal(wallet.sentTransactions.at(-1).tx.to.toLowerCase(), stack.pot.toLowerCase());
          await until(async () => (await stakesOf(id))[3].revealed_correct === true, "D's reveal in the pot");
          const { body: winners } = await api(`/api/challenges/${id}/winners`);
          assert.equal(winners.earliest.id, 1, "A stays the earliest correct");
          assert.equal(winners.highest.id, 4, "D is now the highest staked correct");
          await screenshotsOf(pageD, row, "row-revealed-from-wallet");
        });

        await t.test(
          "the Resolved Challenge Details: the solution, its check, the winners on the map, every stake",
          async () => {
            const { body: winners } = await api(`/api/challenges/${id}/winners`);
            await openGame(pageA);
            await openTab(pageA, "Resolved Challenges");
            await pageA.getByRole("button", { name: new RegExp(CHALLENGE.title) }).click();
            const details = pageA.getByRole("dialog", { name: "Resolved Challenge Details" });
            await details.waitFor();
            // On a phone the focus goes to the close "×", not to a field far down (no keyboard pops up).
            await pageA.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Close");
            await details.getByText(CHALLENGE.solution, { exact: true }).first().waitFor();
            await details.getByRole("button", { name: "Recompute SHA-256 in this browser" }).click();
            await details.getByText("Match: the computed hash equals the published solution SHA-256.").waitFor();
            const { body: listed } = await api(`/api/responses?challengeId=${id}`);
            assert.deepEqual(
              listed.map((stake) => stake.submissionText),
              [A.guess, B.guess, C.guess, null],
              "Geopoem publishes the guesses it holds, and holds none for D",
            );
            assert.equal(winners.highest.id, 4);
            await assertRevealMap(pageA, details, {
              threshold: Number(CHALLENGE.threshold),
              latitude: 60.1699,
              earliest: Number(winners.earliest.distanceMeters),
              // D's guess as the pot recorded it at D's reveal: the page measures it as the site would.
              highest: haversine(D.guess, CHALLENGE.solution),
              guesses: 4,
            });
            await assertNoViolations(pageA, "the Resolved Challenge Details of a revealing challenge");
            await screenshotsOf(pageA, details.getByRole("heading", { name: "Winners" }), "resolved-details-revealing");
            await pageA.keyboard.press("Escape");
          },
        );

        await t.test(
          "the guess window passes: the pot pays the winners; My submissions and the Winners' Circle say so",
          async () => {
            const { body: revealing } = await api(`/api/challenges/${id}`);
            await warpTo(revealing.guessDeadline);
            await challengeIn(id, "paid", 90000);
            const payments = await paymentsOf(id);
            const paid = (kind) => payments.find((p) => p.kind === kind);
            assert.equal(paid("earliest").to.toLowerCase(), a.toLowerCase());
            assert.equal(paid("highest").to.toLowerCase(), d.toLowerCase());
            assert.equal(paid("earliest").amount, String(units(PRIZE)));
            assert.equal(paid("highest").amount, String(units(PRIZE)));
            assert.equal(
              await usdcBalance(stack.rpcUrl, stack.usdc, a),
              walletBefore.a - units(A.stake) + units(PRIZE),
              "the pot paid A, who still holds no ETH",
            );
            assert.equal(await ethOf(a), 0n);

            await openGame(pageA);
            const rowA = rowOf(pageA, A.guess);
            await field(rowA, "Prize")
              .getByText(`Earliest correct response: ${PRIZE} USDC, paid by the pot:`, { exact: false })
              .waitFor({ timeout: 40000 });
            await screenshotsOf(pageA, rowA, "row-prize-paid");
            await openGame(pageD);
            await field(rowOf(pageD, D.guess), "Prize")
              .getByText(`Highest staked correct response: ${PRIZE} USDC, paid by the pot:`, { exact: false })
              .waitFor({ timeout: 40000 });

            await openTab(pageA, "Winners' Circle");
            await pageA.getByRole("combobox").getByText(`Challenge #${id}: ${CHALLENGE.title}`).waitFor();
            const earliest = pageA.getByRole("article", { name: /Earliest Correct Response/ });
            await earliest.getByText("You", { exact: true }).waitFor();
            await earliest.getByText(`${PRIZE} USDC`).waitFor();
            await earliest.getByText("Paid by the pot:", { exact: false }).waitFor({ timeout: 40000 });
            const highest = pageA.getByRole("article", { name: /Highest Staked Correct Response/ });
            await highest.getByText("Paid by the pot:", { exact: false }).waitFor();
            // D's guess never reached Geopoem: the card shows the one the pot recorded at D's reveal.
            await field(highest, "Coordinates").getByText(D.guess, { exact: true }).waitFor();
            await field(highest, "Distance")
              .getByText(/^\d+\.\d\d m$/)
              .waitFor();
            assert.equal(await highest.getByText("You", { exact: true }).count(), 0, "D's prize, not A's");
            await assertNoViolations(pageA, "the Winners' Circle of a paid challenge");
            await screenshotTabs(pageA, "paid", ["active", "resolved", "winners"]);
          },
        );

        await t.test('"Verify every outcome" in the Resolved details: 4 of 4 outcomes reproduced', async () => {
          await openTab(pageA, "Resolved Challenges");
          await pageA.getByRole("button", { name: new RegExp(CHALLENGE.title) }).click();
          const details = pageA.getByRole("dialog", { name: "Resolved Challenge Details" });
          await details.getByRole("button", { name: "Verify every outcome" }).click();
          const verdict = details.getByText("4 of 4 outcomes reproduced", { exact: true });
          await verdict.waitFor({ timeout: 60000 });
          // Far down a dialog taller than the phone's screen, its close "×" is still in view at the top.
          await verdict.scrollIntoViewIfNeeded();
          const close = details.getByRole("button", { name: "Close" });
          const [closeBox, dialogBox] = [await close.boundingBox(), await details.boundingBox()];
          assert.ok(closeBox.y >= dialogBox.y && closeBox.y < dialogBox.y + 20, "the close button at the top");
          assert.ok(
            await close.evaluate((el) => {
              const box = el.getBoundingClientRect();
              return el.contains(document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2));
            }),
            "nothing covers the close button",
          );
          await screenshotsOf(pageA, verdict, "resolved-details-verified");
          await assertNoViolations(pageA, "the Resolved Challenge Details after the verification");
          assert.equal(await confirmDialog(pageA).count(), 0);
          await screenshot(pageA, "resolved-details-verified-full-390");
        });
        for (const player of players) assert.deepEqual(player.errors, [], "no uncaught error on any page");
      } finally {
        for (const player of players) await player.close();
      }
    },
  );
}

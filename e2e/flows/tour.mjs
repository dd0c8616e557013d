// Every tab and dialog: an axe-core scan with zero violations, and a screenshot of every tab at
// 1280 and 390 px wide (e2e/artifacts/screenshots/).
import { test } from "node:test";

import { assertNoViolations } from "../lib/axe.mjs";
import { confirmDialog, expectToast, fillGuess, openGame, openTab, SPEC } from "../lib/game.mjs";
import { screenshot, withPlayer } from "../lib/suite.mjs";

export const TABS = [
  ["Active Challenge", "active"],
  ["Resolved Challenges", "resolved"],
  ["Winners' Circle", "winners"],
  ["Getting Started", "getting-started"],
  ["Sepolia Testnet", "sepolia"],
  ["FAQ", "faq"],
  ["Legal & Terms", "legal"],
];

// A second EIP-6963 wallet: announced only, never used.
const SECOND_WALLET = `(() => {
  const provider = { request: async () => { throw Object.assign(new Error('User rejected the request.'), { code: 4001 }); }, on() {}, removeListener() {} };
  const info = Object.freeze({ uuid: '0b6c2f7e-1d5a-4c1e-8f3b-6a2d9e4c7b10', name: 'Other Wallet', icon: 'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22 viewBox=%220 0 1 1%22/%3E', rdns: 'org.geopoem.e2e.other' });
  const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail: Object.freeze({ info, provider }) }));
  window.addEventListener('eip6963:requestProvider', announce);
  announce();
})();`;

async function settle(page) {
  // Loading states end: no spinner left in the open panel.
  await page.getByRole("tabpanel").waitFor();
  await page.waitForFunction(
    () => !document.querySelector('[role="tabpanel"] [aria-busy="true"], [role="tabpanel"] .spinner'),
    null,
    { timeout: 15000 },
  );
}

export function register() {
  test("axe-core finds no violation on any tab or dialog", { timeout: 120000 }, async () => {
    await withPlayer({}, async ({ context, page }) => {
      await openGame(page);
      for (const [name] of TABS) {
        await openTab(page, name);
        await settle(page);
        await assertNoViolations(page, `the ${name} tab`);
      }

      await openTab(page, "Active Challenge");
      await fillGuess(page, "40.6892, -74.0445", "2");
      await confirmDialog(page).waitFor();
      await assertNoViolations(page, "the confirm dialog");
      await confirmDialog(page).getByRole("button", { name: "Cancel" }).click();

      await page
        .getByRole("button", { name: /account/i })
        .or(page.getByRole("link", { name: /account/i }))
        .first()
        .click();
      const help = page.getByRole("dialog");
      await help.getByRole("img").first().waitFor();
      await assertNoViolations(page, "the account-selection help dialog");
      await screenshot(page, "account-help-dialog-1280");
      await help.getByRole("button", { name: "OK" }).click();

      await openTab(page, "Resolved Challenges");
      await page.getByRole("button", { name: /Four Thousand Summers/ }).click();
      await page.getByRole("dialog", { name: "Resolved Challenge Details" }).waitFor();
      await assertNoViolations(page, "the Resolved Challenge Details dialog");
      await page.keyboard.press("Escape");

      await openTab(page, "Winners' Circle");
      await page.getByRole("combobox").click();
      await page.getByRole("option", { name: /Four Thousand Summers/ }).click();
      await page.getByRole("heading", { name: "Earliest Correct Response" }).waitFor();
      await assertNoViolations(page, "the Winners' Circle with a challenge chosen");

      // The wallet chooser: it opens when a second wallet announces itself (EIP-6963). The second
      // one is a bare announcement the player does not pick.
      await context.addInitScript({ content: SECOND_WALLET });
      await page.reload();
      await page.getByRole("button", { name: SPEC.connect }).click();
      const chooser = page.getByRole("dialog", { name: "Choose a wallet" });
      await chooser.getByRole("button", { name: "Other Wallet" }).waitFor();
      await assertNoViolations(page, "the wallet chooser dialog");
      await screenshot(page, "wallet-chooser-1280");
      await chooser.getByRole("button", { name: "E2E Wallet" }).click();
      await expectToast(page, SPEC.connected);
    });
  });

  for (const width of [1280, 390]) {
    test(`a screenshot of every tab at ${width} px`, { timeout: 90000 }, async () => {
      await withPlayer({ width, height: width === 390 ? 844 : 900 }, async ({ page }) => {
        await openGame(page);
        for (const [name, slug] of TABS) {
          await openTab(page, name);
          await settle(page);
          await screenshot(page, `tab-${slug}-${width}`);
        }
      });
    });
  }
}

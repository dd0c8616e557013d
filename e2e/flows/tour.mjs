// Every tab and dialog: an axe-core scan with zero violations, and a screenshot of every tab at
// 1280 and 390 px wide (e2e/artifacts/screenshots/).
import { test } from 'node:test';

import { assertNoViolations } from '../lib/axe.mjs';
import { confirmDialog, fillGuess, openGame, openTab, SPEC } from '../lib/game.mjs';
import { screenshot, withPlayer } from '../lib/suite.mjs';

export const TABS = [
  ['Active Challenge', 'active'],
  ['Resolved Challenges', 'resolved'],
  ["Winners' Circle", 'winners'],
  ['Getting Started', 'getting-started'],
  ['Sepolia Testnet', 'sepolia'],
  ['FAQ', 'faq'],
  ['Legal & Terms', 'legal'],
];

async function settle(page) {
  // Loading states end: no spinner left in the open panel.
  await page.getByRole('tabpanel').waitFor();
  await page.waitForFunction(() => !document.querySelector('[role="tabpanel"] [aria-busy="true"], [role="tabpanel"] .spinner'), null, { timeout: 15000 });
}

export function register() {
  test('axe-core finds no violation on any tab or dialog', { timeout: 120000 }, async () => {
    await withPlayer({}, async ({ page }) => {
      await openGame(page);
      for (const [name] of TABS) {
        await openTab(page, name);
        await settle(page);
        await assertNoViolations(page, `the ${name} tab`);
      }

      await openTab(page, 'Active Challenge');
      await fillGuess(page, '40.6892, -74.0445', '2');
      await confirmDialog(page).waitFor();
      await assertNoViolations(page, 'the confirm dialog');
      await confirmDialog(page).getByRole('button', { name: 'Cancel' }).click();

      await page.getByRole('button', { name: /account/i }).or(page.getByRole('link', { name: /account/i })).first().click();
      const help = page.getByRole('dialog');
      await help.getByRole('img').first().waitFor();
      await assertNoViolations(page, 'the account-selection help dialog');
      await screenshot(page, 'account-help-dialog-1280');
      await help.getByRole('button', { name: 'OK' }).click();

      await openTab(page, 'Resolved Challenges');
      await page.getByRole('button', { name: /Four Thousand Summers/ }).click();
      await page.getByRole('dialog', { name: 'Resolved Challenge Details' }).waitFor();
      await assertNoViolations(page, 'the Resolved Challenge Details dialog');
      await page.keyboard.press('Escape');

      await openTab(page, "Winners' Circle");
      await page.getByRole('combobox').click();
      await page.getByRole('option', { name: /Four Thousand Summers/ }).click();
      await page.getByRole('heading', { name: 'Earliest Correct Response' }).waitFor();
      await assertNoViolations(page, "the Winners' Circle with a challenge chosen");
      await page.getByRole('button', { name: SPEC.connect }).waitFor();
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

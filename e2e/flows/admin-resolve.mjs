import assert from 'node:assert/strict';
import { test } from 'node:test';

import { query } from '../lib/db.mjs';
import { openGame, openTab } from '../lib/game.mjs';
import { STAFF } from '../lib/stack.mjs';
import { screenshot, state, withPlayer } from '../lib/suite.mjs';

const SOLUTION = '40.689247, -74.044502';

/** A winners card (an article named by its heading). */
const card = (page, heading) => page.getByRole('article', { name: heading });

/** The value a card shows for a field (its <dd> after the <dt>). */
async function field(scope, name) {
  return (await scope.locator('dt', { hasText: new RegExp(`^${name}$`) }).locator('xpath=following-sibling::dd[1]').textContent()).trim();
}

/** Decimal strings to token units (6 decimals) and back to the 2-decimal cut the page shows. */
const units = (decimal) => {
  const [whole, fraction = ''] = decimal.split('.');
  return BigInt(whole + fraction.padEnd(6, '0').slice(0, 6));
};
const cut2 = (u) => `${u / 1000000n}.${String((u % 1000000n) / 10000n).padStart(2, '0')}`;

export function register() {
  test('staff resolve the challenge in the admin; the Resolved tab, its details and commitment check, the Winners\' Circle', { timeout: 120000 }, async () => {
    const { stack } = state;
    const [challenge] = await query(stack.dbUrl, "SELECT id, poem_title FROM challenges_challenge WHERE status = 'active'");
    assert.equal(challenge.poem_title, 'The Torch on the Tide');
    const pending = await query(stack.dbUrl, `SELECT id FROM responses_response WHERE challenge_id = ${challenge.id} AND status = 'pending'`);
    assert.deepEqual(pending, [], 'every claim is settled before staff resolve');

    await withPlayer({}, async ({ page }) => {
      // Staff, in the Django admin.
      await page.goto(`${stack.baseUrl}/admin/login/?next=/admin/`);
      await page.getByLabel('Username').fill(STAFF.username);
      await page.getByLabel('Password').fill(STAFF.password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.goto(`${stack.baseUrl}/admin/challenges/challenge/`);
      await page.getByRole('link', { name: /The Torch on the Tide/ }).first().click();
      await page.getByRole('link', { name: 'Close…' }).click();
      await page.getByRole('button', { name: 'Yes, close' }).click();
      await page.getByText('Closed: no new claims are accepted.').waitFor();
      await page.getByRole('link', { name: 'Resolve and reveal…' }).click();
      await page.getByRole('button', { name: 'Yes, resolve and reveal' }).click();
      await page.getByText(`Resolved and revealed: ${SOLUTION}.`, { exact: false }).waitFor();
      await screenshot(page, 'admin-resolved-1280');

      const [resolved] = await query(stack.dbUrl, `SELECT status, staked_sum::text AS staked_sum FROM challenges_challenge WHERE id = ${challenge.id}`);
      assert.equal(resolved.status, 'resolved');
      const payouts = await query(stack.dbUrl, `SELECT kind, address, amount::text AS amount FROM challenges_payout WHERE challenge_id = ${challenge.id} ORDER BY kind`);
      const byKind = Object.fromEntries(payouts.map((p) => [p.kind, p]));
      const [earliest] = await query(stack.dbUrl, `SELECT submitter_address, distance_m, submission_text FROM responses_response WHERE challenge_id = ${challenge.id} AND status = 'confirmed' AND is_correct ORDER BY block_number, transaction_index, log_index LIMIT 1`);
      const [highest] = await query(stack.dbUrl, `SELECT submitter_address, distance_m, submission_text, submission_stake::text AS stake FROM responses_response WHERE challenge_id = ${challenge.id} AND status = 'confirmed' AND is_correct ORDER BY submission_stake DESC, block_number, transaction_index, log_index LIMIT 1`);
      assert.equal(earliest.submitter_address.toLowerCase(), stack.accounts.players[0].toLowerCase(), 'the earliest correct claim is the first flow\'s');
      assert.equal(highest.submitter_address.toLowerCase(), stack.accounts.players[5].toLowerCase(), 'the highest stake is the recovered 7 USDC claim');
      // 40% of the confirmed stakes to each winner (token units, no floats).
      const prizeUnits = (units(resolved.staked_sum) * 40n) / 100n;
      assert.equal(units(byKind.earliest.amount), prizeUnits);
      assert.equal(units(byKind.highest.amount), prizeUnits);
      assert.equal(byKind.earliest.address.toLowerCase(), earliest.submitter_address.toLowerCase());
      assert.equal(byKind.highest.address.toLowerCase(), highest.submitter_address.toLowerCase());
      const prize = `${cut2(prizeUnits)} USDC`;

      // The player's view.
      await openGame(page);
      await page.getByText('No active challenge available at the moment.').waitFor();
      await openTab(page, 'Resolved Challenges');
      const row = page.getByRole('button', { name: /The Torch on the Tide/ });
      await row.getByText('Resolved').waitFor();
      await row.getByText(SOLUTION).waitFor();
      await row.click();
      const details = page.getByRole('dialog', { name: 'Resolved Challenge Details' });
      await details.waitFor();
      await details.getByText(SOLUTION).first().waitFor();
      await details.getByRole('button', { name: 'Recompute SHA-256 in this browser' }).click();
      await details.getByText('Match: the computed hash equals the published solution SHA-256.').waitFor();
      await screenshot(page, 'resolved-details-1280');
      await page.keyboard.press('Escape');
      await details.waitFor({ state: 'hidden' });

      await openTab(page, "Winners' Circle");
      await page.getByRole('combobox').click();
      await page.getByRole('option', { name: `Challenge #${challenge.id}: The Torch on the Tide` }).click();
      const first = card(page, 'Earliest Correct Response');
      const top = card(page, 'Highest Staked Correct Response');
      await first.waitFor();
      await top.waitFor();
      // Distances are measurements (floats are fine there); the page shows 2 decimals.
      for (const [shown, row] of [[first, earliest], [top, highest]]) {
        assert.equal((await field(shown, 'Submitter')).toLowerCase(), row.submitter_address.toLowerCase());
        assert.equal(await field(shown, 'Coordinates'), row.submission_text);
        assert.equal(await field(shown, 'Distance'), `${Number(row.distance_m).toFixed(2)} m`);
        assert.equal(await field(shown, 'Prize'), prize);
      }
      await screenshot(page, 'winners-resolved-1280');
    });
  });
}

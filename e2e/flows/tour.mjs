// Every tab and dialog a visitor opens while a challenge is open: axe-core finds no violation, and
// each tab is photographed at 1280 and 390 px (e2e/artifacts/screenshots/tab-*-open-*). On a phone:
// the confirm dialog clear of a toast and of its close button, focus rings for the keyboard only, a
// local chain that does not pretend to be Sepolia (no explorer links, its own guide), no CSP error,
// fallbacks for YouTube and the map tiles (this machine has no internet), and on a phone without a
// wallet the way into MetaMask's in-app browser.
import assert from "node:assert/strict";
import { test } from "node:test";

import { assertNoViolations } from "../lib/axe.mjs";
import { openBrowser } from "../lib/browser.mjs";
import {
  confirmDialog,
  expectToast,
  fillAndSubmit,
  openConfirm,
  openGame,
  openTab,
  screenshotTabs,
  SPEC,
  TABS,
} from "../lib/game.mjs";
import { screenshot, state, withPlayer } from "../lib/suite.mjs";

// Every Content-Security-Policy violation the page meets, kept for the flow to read.
const CSP_RECORDER = `(() => {
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__cspViolations.push(e.violatedDirective + ' ' + (e.blockedURI || '') + ' ' + (e.sample || ''));
  });
})();`;

// A second EIP-6963 wallet: announced only, never used.
const SECOND_WALLET = `(() => {
  const provider = { request: async () => { throw Object.assign(new Error('User rejected the request.'), { code: 4001 }); }, on() {}, removeListener() {} };
  const info = Object.freeze({ uuid: '0b6c2f7e-1d5a-4c1e-8f3b-6a2d9e4c7b10', name: 'Other Wallet', icon: 'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22 viewBox=%220 0 1 1%22/%3E', rdns: 'org.geopoem.e2e.other' });
  const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail: Object.freeze({ info, provider }) }));
  window.addEventListener('eip6963:requestProvider', announce);
  announce();
})();`;

const PHONE_UA =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

const overlaps = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** The boxes of a dialog title's text (its lines), not of the title element with its padding. */
async function titleTextBoxes(dialog) {
  return dialog.locator(".dialog-title").evaluate((title) => {
    const range = document.createRange();
    range.selectNodeContents(title);
    return [...range.getClientRects()].map((r) => ({ x: r.x, y: r.y, width: r.width, height: r.height }));
  });
}

/** True when the element's centre is really the element (nothing covers it). */
async function isUncovered(locator) {
  return locator.evaluate((element) => {
    const box = element.getBoundingClientRect();
    const top = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
    return top === element || element.contains(top);
  });
}

const outlineOfFocused = (page) => page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);

export function register() {
  test("every tab and dialog of an open challenge: no axe violation, screenshots at 1280 and 390 px", async () => {
    await withPlayer({}, async ({ context, page, errors }) => {
      await openGame(page);
      for (const [name] of TABS) {
        await openTab(page, name);
        await assertNoViolations(page, `the ${name} tab`);
      }
      await screenshotTabs(page, "open");

      await openTab(page, "Active Challenge");
      const help = page.getByRole("dialog", { name: /account/i });
      await page.getByRole("button", { name: "How do I select my account in MetaMask?" }).click();
      await help.getByRole("img").first().waitFor();
      await assertNoViolations(page, "the account-selection help dialog");
      await screenshot(page, "dialog-account-help-1280", { fullPage: false });
      await help.getByRole("button", { name: "OK" }).click();

      // The wallet chooser: it opens when a second wallet announces itself (EIP-6963).
      await context.addInitScript({ content: SECOND_WALLET });
      await page.reload();
      await page.getByRole("button", { name: SPEC.connect }).click();
      const chooser = page.getByRole("dialog", { name: "Choose a wallet" });
      await chooser.getByRole("button", { name: "Other Wallet" }).waitFor();
      await assertNoViolations(page, "the wallet chooser dialog");
      await screenshot(page, "dialog-wallet-chooser-1280", { fullPage: false });
      await page.setViewportSize({ width: 390, height: 844 });
      await screenshot(page, "dialog-wallet-chooser-390", { fullPage: false });
      await chooser.getByRole("button", { name: "E2E Wallet" }).click();
      await expectToast(page, SPEC.connected);
      assert.deepEqual(errors, []);
    });
  });

  test("on a phone (390 px): dialogs clear of toasts, keyboard-only focus rings, a local chain's own guide, offline fallbacks", async () => {
    const { stack } = state;
    await withPlayer({ width: 390, height: 844 }, async ({ context, page, errors }) => {
      await context.addInitScript({ content: CSP_RECORDER });
      await openGame(page);

      // A validation toast first, then the confirm dialog while the toast is still up.
      await fillAndSubmit(page, "40.6892, -74.0445", "0.5");
      await expectToast(page, SPEC.badStake);
      const dialog = await openConfirm(page, "40.6892, -74.0445", "2");
      await page.waitForTimeout(300); // the dialog's move above the toast is a re-layout, not an animation
      const toastBox = await page.locator(".toast").first().boundingBox();
      assert.ok(toastBox, "the toast is still shown");
      assert.ok(!overlaps(toastBox, await dialog.boundingBox()), "the toast covers the dialog");
      for (const name of ["Cancel", "Confirm"])
        assert.ok(await isUncovered(dialog.getByRole("button", { name })), `the ${name} button is covered`);
      const close = await dialog.getByRole("button", { name: "Close" }).boundingBox();
      for (const line of await titleTextBoxes(dialog))
        assert.ok(!overlaps(line, close), "the close button overlaps the title");
      await screenshot(page, "dialog-confirm-with-toast-390", { fullPage: false });
      await assertNoViolations(page, "the confirm dialog with a toast on a phone");
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await confirmDialog(page).waitFor({ state: "hidden" });

      await page.getByRole("button", { name: "How do I select my account in MetaMask?" }).click();
      await page
        .getByRole("dialog", { name: /account/i })
        .getByRole("img")
        .first()
        .waitFor();
      await screenshot(page, "dialog-account-help-390", { fullPage: false });
      await page.getByRole("button", { name: "OK" }).click();

      // Focus rings: none after a click on a tab, one for keyboard focus (lib/input-modality.ts).
      await page.getByRole("tab", { name: "FAQ" }).click();
      assert.equal(await outlineOfFocused(page), "none", "no ring around a tab after a mouse click");
      await page.keyboard.press("ArrowRight");
      await page.waitForFunction(() => document.activeElement?.textContent === "Legal & Terms");
      assert.equal(await outlineOfFocused(page), "solid", "a ring for keyboard focus");
      await page.getByRole("tab", { name: "Getting Started" }).click();
      assert.equal(await outlineOfFocused(page), "none", "no ring after a click that follows keyboard use");

      for (const [name] of TABS) {
        await openTab(page, name);
        const dead = await page.locator('a[href*="etherscan"], a[href^="/tx/"], a[href^="/address/"]').count();
        assert.equal(dead, 0, `the ${name} tab links to an explorer that never saw this local chain`);
      }

      await openTab(page, "Sepolia Testnet");
      const panel = page.getByRole("tabpanel");
      await panel.getByRole("heading", { level: 2, name: /a development chain on this computer/ }).waitFor();
      const text = await panel.textContent();
      assert.ok(text.includes(stack.rpcUrl), "the guide gives the page's RPC URL");
      assert.ok(text.includes("31337"), "and its chain id");
      assert.ok(text.includes(stack.usdc), "and its token");
      assert.ok(!/faucet\.circle|cloud\.google/.test(await panel.innerHTML()), "no Sepolia faucet link");

      // No internet here: the videos' host cannot be reached.
      await openTab(page, "Getting Started");
      await page.getByText("The video cannot be loaded here.").first().waitFor({ timeout: 20000 });
      assert.equal(await page.locator(".video-frame iframe").count(), 0, "no dead player left");
      await screenshot(page, "videos-unreachable-390");

      assert.deepEqual(await page.evaluate(() => window.__cspViolations ?? []), [], "no CSP violation");
      assert.deepEqual(errors, []);
    });
  });

  test("a phone without a wallet is offered the game in MetaMask's in-app browser", async () => {
    const { context, close } = await openBrowser({ width: 390, height: 844 });
    try {
      // A phone browser: its user agent, and no injected wallet at all.
      await context.addInitScript({
        content: `Object.defineProperty(Navigator.prototype, 'userAgent', { get: () => ${JSON.stringify(PHONE_UA)} });`,
      });
      const page = await context.newPage();
      await openGame(page);
      const url = new URL(state.stack.baseUrl);
      const link = page.getByRole("banner").getByRole("link", { name: "Open in MetaMask" });
      assert.equal(await link.getAttribute("href"), `https://metamask.app.link/dapp/${url.host}/`);
      await page.getByRole("link", { name: "open Geopoem in MetaMask" }).waitFor();
      await screenshot(page, "phone-without-wallet-390");
      await assertNoViolations(page, "the page on a phone without a wallet");
    } finally {
      await close();
    }
  });
}

// What a first-time player trips over, in the real browser at 1280 and 390 px:
// mobile dialogs (the close "×" clear of the title, no toast over a dialog, a stakes table that says
// it scrolls), focus rings for keyboard focus only, a local chain that does not pretend to be
// Sepolia (no explorer links, the local MetaMask guide), no Content-Security-Policy error when a
// dialog opens, fallbacks when YouTube and the map tiles cannot be reached (this machine has no
// internet), and the MetaMask deep link on a phone without a wallet. Screenshots of every dialog
// and state at both widths go to e2e/artifacts/screenshots (ux-*).
import assert from "node:assert/strict";
import { test } from "node:test";

import { assertNoViolations } from "../lib/axe.mjs";
import { openBrowser } from "../lib/browser.mjs";
import { confirmDialog, coordinatesField, expectToast, openGame, openTab, SPEC, stakeField } from "../lib/game.mjs";
import { screenshot, state, withPlayer } from "../lib/suite.mjs";
import { TABS } from "./tour.mjs";

// Every Content-Security-Policy violation the page meets, kept for the flow to read.
const CSP_RECORDER = `(() => {
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__cspViolations.push(e.violatedDirective + ' ' + (e.blockedURI || '') + ' ' + (e.sample || ''));
  });
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

async function cspViolations(page) {
  return page.evaluate(() => window.__cspViolations ?? []);
}

async function outlineOfFocused(page) {
  return page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
}

export function register() {
  for (const width of [1280, 390]) {
    const height = width === 390 ? 844 : 900;

    test(
      `dialogs at ${width} px: the close button clear of the title, no toast over a dialog, a stakes table that says it scrolls, no CSP error`,
      { timeout: 120000 },
      async () => {
        await withPlayer({ width, height }, async ({ context, page }) => {
          await context.addInitScript({ content: CSP_RECORDER });
          await openGame(page);
          await page.getByRole("button", { name: SPEC.submit }).waitFor();

          // A validation toast first, then the confirm dialog while the toast is still up.
          await coordinatesField(page).fill("40.6892, -74.0445");
          await stakeField(page).fill("0.5");
          await page.getByRole("button", { name: SPEC.submit }).click();
          await expectToast(page, SPEC.badStake);
          await stakeField(page).fill("2");
          await page.getByRole("button", { name: SPEC.submit }).click();
          const dialog = confirmDialog(page);
          await dialog.waitFor();
          await page.waitForTimeout(300); // the dialog's move above the toast is a re-layout, not an animation
          const toastBox = await page.locator(".toast").first().boundingBox();
          assert.ok(toastBox, "the toast is still shown");
          const dialogBox = await dialog.boundingBox();
          assert.ok(
            !overlaps(toastBox, dialogBox),
            `the toast ${JSON.stringify(toastBox)} covers the dialog ${JSON.stringify(dialogBox)}`,
          );
          for (const name of ["Cancel", "Confirm"]) {
            assert.ok(await isUncovered(dialog.getByRole("button", { name })), `the ${name} button is covered`);
          }
          const close = await dialog.getByRole("button", { name: "Close" }).boundingBox();
          for (const line of await titleTextBoxes(dialog)) {
            assert.ok(
              !overlaps(line, close),
              `the close button ${JSON.stringify(close)} overlaps the title ${JSON.stringify(line)}`,
            );
          }
          await screenshot(page, `ux-confirm-dialog-with-toast-${width}`, { fullPage: false });
          await assertNoViolations(page, `the confirm dialog with a toast at ${width} px`);
          await dialog.getByRole("button", { name: "Cancel" }).click();

          await page
            .getByRole("button", { name: /account/i })
            .first()
            .click();
          const help = page.getByRole("dialog");
          await help.getByRole("img").first().waitFor();
          await screenshot(page, `ux-account-help-dialog-${width}`, { fullPage: false });
          await help.getByRole("button", { name: "OK" }).click();

          // The Resolved details: every title line clear of the close button, the stakes table.
          await openTab(page, "Resolved Challenges");
          await page.getByRole("button", { name: /Four Thousand Summers/ }).click();
          const details = page.getByRole("dialog", { name: "Resolved Challenge Details" });
          await details.waitFor();
          const detailsClose = await details.getByRole("button", { name: "Close" }).boundingBox();
          for (const line of await titleTextBoxes(details))
            assert.ok(!overlaps(line, detailsClose), "the close button overlaps the details title");
          await screenshot(page, `ux-resolved-details-${width}`, { fullPage: false });
          const table = details.getByRole("region", { name: "Stakes" });
          await table.locator("table").waitFor();
          await table.scrollIntoViewIfNeeded();
          const { overflows } = await table.evaluate((el) => ({ overflows: el.scrollWidth > el.clientWidth + 1 }));
          const hint = details.getByText("Scroll the table sideways to see every column →");
          if (width === 390) assert.ok(overflows, "at 390 px the stakes table is wider than its box");
          if (overflows) assert.ok(await hint.isVisible(), "a table cut off at the right says that it scrolls");
          // The region scrolls from the keyboard too.
          if (overflows) {
            await table.focus();
            await page.keyboard.press("ArrowRight");
            await page.keyboard.press("ArrowRight");
            await page.waitForFunction((el) => el.scrollLeft > 0, await table.elementHandle());
          }
          await screenshot(page, `ux-resolved-stakes-${width}`, { fullPage: false });
          await assertNoViolations(page, `the Resolved details at ${width} px`);
          await page.keyboard.press("Escape");

          // Winners' Circle: choosing with the mouse leaves no ring on the select.
          await openTab(page, "Winners' Circle");
          await page.getByRole("combobox").click();
          await page.getByRole("option", { name: /Sails That Never Leave/ }).click();
          await page.getByRole("heading", { name: "Earliest Correct Response" }).waitFor();
          await page.waitForFunction(() => document.activeElement?.getAttribute("role") === "combobox");
          // Radix focuses the trigger from script after the choice (the dialog before was closed with
          // Escape, a key): only the page's rule keeps the ring away after a mouse choice.
          assert.equal(await outlineOfFocused(page), "none", "no focus ring on the select after a mouse choice");
          // "Not specified" says what it means: a 1.82 m guess is wrong on this challenge.
          await page.getByText("Not specified (scored as 0 m: only an exact hit is correct)").first().waitFor();
          await screenshot(page, `ux-winners-${width}`);

          assert.deepEqual(
            await cspViolations(page),
            [],
            "no Content-Security-Policy violation while dialogs and the select opened",
          );
        });
      },
    );

    test(
      `a local chain at ${width} px: no explorer links anywhere, the local MetaMask guide, fallbacks for YouTube and the tiles`,
      { timeout: 120000 },
      async () => {
        const { stack } = state;
        await withPlayer({ width, height }, async ({ context, page }) => {
          await context.addInitScript({ content: CSP_RECORDER });
          await openGame(page);

          // Focus rings: the first click of a visit on a tab. Radix focuses the tab from script on
          // mousedown, and Chromium calls script focus :focus-visible when nothing (or a keyboard-
          // focused element) had focus before: the thick ring stayed. The page's own rule
          // (lib/input-modality.ts, main.css) keeps rings for keyboard focus only.
          await page.getByRole("tab", { name: "FAQ" }).click();
          assert.ok(
            await page.evaluate(() => document.activeElement.matches(":focus-visible")),
            "Chromium calls the clicked tab focus-visible",
          );
          assert.equal(await outlineOfFocused(page), "none", "no ring around a tab after a mouse click");
          await page.keyboard.press("ArrowRight");
          // Radix's roving focus moves focus in a timeout after the key.
          await page.waitForFunction(() => document.activeElement?.textContent === "Legal & Terms");
          assert.equal(await outlineOfFocused(page), "solid", "a ring for keyboard focus");
          await screenshot(page, `ux-keyboard-focus-${width}`, { fullPage: false });
          // A key, then a click: the ring goes again.
          await page.getByRole("tab", { name: "Getting Started" }).click();
          assert.equal(await outlineOfFocused(page), "none", "no ring after a click that follows keyboard use");

          for (const [name] of TABS) {
            await openTab(page, name);
            await page.getByRole("tabpanel").waitFor();
            await page.waitForFunction(() => !document.querySelector('[role="tabpanel"] .spinner'), null, {
              timeout: 15000,
            });
            const dead = await page.locator('a[href*="etherscan"], a[href^="/tx/"], a[href^="/address/"]').count();
            assert.equal(dead, 0, `the ${name} tab links to an explorer that never saw this local chain`);
          }

          await openTab(page, "Sepolia Testnet");
          const panel = page.getByRole("tabpanel");
          await panel.getByRole("heading", { level: 2, name: "Playing on a local test chain" }).waitFor();
          const text = await panel.textContent();
          assert.ok(text.includes(`RPC URL${stack.rpcUrl}`), "the guide gives the page's RPC URL");
          assert.ok(text.includes("Chain ID31337"), "and its chain id");
          assert.ok(text.includes(`Token contract address${stack.usdc}`), "and its token");
          assert.ok(!/faucet\.circle|cloud\.google/.test(await panel.innerHTML()), "no Sepolia faucet link");
          await screenshot(page, `ux-local-chain-guide-${width}`);

          await openTab(page, "Active Challenge");
          await page.getByText(`Geopoem treasury at ${stack.treasury}`).waitFor();

          // No internet here: the videos' host cannot be reached.
          await openTab(page, "Getting Started");
          await page.getByText("The video cannot be loaded here.").first().waitFor({ timeout: 20000 });
          assert.equal(await page.locator(".video-frame iframe").count(), 0, "no dead player left");
          await page.getByRole("link", { name: "Watch video 1 of 2 on YouTube" }).waitFor();
          await screenshot(page, `ux-videos-unreachable-${width}`);

          // Nor the map tiles: the map says so, and a click still drops a pin.
          await openTab(page, "Active Challenge");
          await page.getByRole("button", { name: "Show map" }).click();
          const map = page.getByRole("application", { name: "Map for your guess" });
          await map.waitFor();
          await page.getByText("Map tiles unavailable — markers and clicks still work").waitFor({ timeout: 20000 });
          const box = await map.boundingBox();
          await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
          await page.waitForFunction(() => /^-?\d/.test(document.querySelector('input[name="coordinates"]').value));
          await screenshot(page, `ux-map-tiles-unavailable-${width}`);

          assert.deepEqual(await cspViolations(page), []);
        });
      },
    );
  }

  test("a phone without a wallet is offered the game in MetaMask's in-app browser", { timeout: 60000 }, async () => {
    const { context, close } = await openBrowser({ width: 390, height: 844 });
    try {
      // A phone browser: its user agent, and no injected wallet at all.
      await context.addInitScript({
        content: `Object.defineProperty(Navigator.prototype, 'userAgent', { get: () => ${JSON.stringify(PHONE_UA)} });`,
      });
      const page = context.pages()[0] ?? (await context.newPage());
      await openGame(page);
      const url = new URL(state.stack.baseUrl);
      const header = page.getByRole("banner");
      const link = header.getByRole("link", { name: "Open in MetaMask" });
      assert.equal(await link.getAttribute("href"), `https://metamask.app.link/dapp/${url.host}/`);
      await page.getByRole("link", { name: "open Geopoem in MetaMask" }).waitFor();
      await screenshot(page, "ux-phone-without-wallet-390");
      await assertNoViolations(page, "the page on a phone without a wallet");
    } finally {
      await close();
    }
  });
}

// Shared state and helpers of the flows: the stack (started once for the whole suite), a player
// (a fresh browser with a wallet), screenshots, and what the page shows in its toast region.
import { mkdirSync, rmSync } from "node:fs";
import { after, before, describe } from "node:test";
import path from "node:path";

import { closeBrowsers, openBrowser } from "./browser.mjs";
import { TEXT_RECORDER } from "./recorder.mjs";
import { ARTIFACTS, CHAIN_ID, startStack, stopStack } from "./stack.mjs";
import { Wallet } from "./wallet.mjs";

export const SCREENSHOTS = path.join(ARTIFACTS, "screenshots");
export const state = { stack: null };
let screenshotsCleared = false;

/** The flows `register` adds, run one at a time on one stack of their own: started in `before`, and
 * stopped by PID in `after`, also when a flow fails. The stack reads its E2E_* settings when it
 * starts, so a caller may set them before. `env`: settings these flows need in the servers'
 * environment (startStack's `env`), e.g. a relay limit of 0 for e2e/flows/self-send.mjs; `logs`: its
 * log folder under e2e/artifacts. */
export function describeOnOwnStack(title, register, { env = {}, logs } = {}) {
  // Each run's own screenshots: none left over from an earlier run's flows. Cleared when the suite
  // declares its flows, not when this module is imported (bench/live.mjs uses the helpers alone).
  if (!screenshotsCleared) {
    rmSync(SCREENSHOTS, { recursive: true, force: true });
    screenshotsCleared = true;
  }
  describe(title, { concurrency: 1 }, () => {
    before(
      async () => {
        state.stack = await startStack({ env, logs });
      },
      { timeout: 180000 },
    );
    after(
      async () => {
        await closeBrowsers();
        await stopStack(state.stack);
      },
      { timeout: 60000 },
    );
    register();
  });
}

/** A player: a fresh Chromium profile, a page, and the wallet options of the flow. */
export async function openPlayer({ width = 1280, height = 900, account, accounts, chainId, knownChains, script } = {}) {
  const { stack } = state;
  const { context, close } = await openBrowser({ width, height });
  const holder = accounts ?? [account ?? stack.accounts.players[0]];
  const wallet = new Wallet({
    rpcUrl: stack.rpcUrl,
    nodeChainId: CHAIN_ID,
    accounts: holder,
    chainId,
    knownChains,
    script,
  });
  await wallet.attach(context);
  await context.addInitScript({ content: TEXT_RECORDER });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors = [];
  page.on("pageerror", (error) => errors.push(error));
  return { context, page, wallet, errors, close };
}

/** The whole page by default; `{ fullPage: false }` for what the screen shows (a dialog is fixed to
 * the viewport: on a full-page capture it lands wherever the stretched viewport puts it). */
export async function screenshot(page, name, { fullPage = true } = {}) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage });
}

/** Runs fn with a player and closes the browser whatever happens. */
export async function withPlayer(options, fn) {
  const player = await openPlayer(options);
  try {
    return await fn(player);
  } finally {
    await player.close();
  }
}

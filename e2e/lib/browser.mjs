// Debian's Chromium driven by playwright-core (Playwright's own browser download cannot work here).
// One Chromium for the whole run, started on first use; each player gets a context of their own
// (its own storage, cookies and wallet), so no player sees another's records.
import { existsSync } from "node:fs";

import { chromium } from "playwright-core";

export const CHROMIUM = process.env.E2E_CHROMIUM ?? "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

let launched = null;

async function browser() {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  launched ??= chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  return launched;
}

export async function openBrowser({ width = 1280, height = 900 } = {}) {
  const context = await (
    await browser()
  ).newContext({
    viewport: { width, height },
    locale: "en-US",
    timezoneId: "UTC",
  });
  context.setDefaultTimeout(15000);
  const close = async () => {
    await context.close().catch(() => {});
  };
  return { context, close };
}

/** Stops the run's Chromium (playwright stops the process it started); the next player starts another. */
export async function closeBrowsers() {
  const running = launched;
  launched = null;
  if (running) await (await running).close().catch(() => {});
}

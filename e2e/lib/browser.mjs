// Debian's Chromium driven by playwright-core (Playwright's own browser download cannot work here).
// One persistent context per flow, in a fresh --user-data-dir, so no flow sees another's storage.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { chromium } from "playwright-core";

export const CHROMIUM = process.env.E2E_CHROMIUM ?? "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function openBrowser({ width = 1280, height = 900 } = {}) {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), "geopoem-e2e-chromium-"));
  // launchPersistentContext passes userDataDir to Chromium as --user-data-dir.
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width, height },
    locale: "en-US",
    timezoneId: "UTC",
  });
  context.setDefaultTimeout(15000);
  const close = async () => {
    await context.close().catch(() => {});
    rmSync(userDataDir, { recursive: true, force: true });
  };
  return { context, close };
}

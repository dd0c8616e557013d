// docs/performance.md section 4: players stake by signature through the real page in Chromium and
// wait for "Confirmed in the pot". Run by bench/live.py, which starts the site and the chain, gives
// this driver a spec (node bench/live.mjs SPEC.json) and turns what it records into figures.
//
// The e2e suite's own parts: Debian's Chromium with its flags (e2e/lib/browser.mjs), the injected
// EIP-1193 wallet bridged to anvil (e2e/lib/wallet.mjs) and the player's click path
// (e2e/lib/game.mjs). Each player is a context of its own at a phone's 390 px; its stakes are made
// one after another: the pause the spec gives, the form, Confirm with the way offered first (the
// signature, relayed by Geopoem), then the wait until its row says Confirmed.
//
// Recorded, every time in milliseconds since the epoch on this machine's clock: when the wallet gave
// each signature and every wallet call (Date.now() here); every request of the page (the browser's
// network events); when each POST /api/responses was answered; and, in the page, when each row of
// My submissions first showed each stage (a MutationObserver, performance.timeOrigin + now()).
import { readFileSync, writeFileSync } from "node:fs";

import { closeBrowsers, openBrowser } from "../e2e/lib/browser.mjs";
import { closeToasts, openConfirm, WAY } from "../e2e/lib/game.mjs";
import { Wallet } from "../e2e/lib/wallet.mjs";

const log = (message) => console.error(`[live ${new Date().toISOString().slice(11, 19)}] ${message}`);

// Each row of My submissions by its coordinates: when each stage (its status span's class,
// frontend/src/tabs/my-submissions/StakeItem.tsx) was first in the DOM, and its text then.
const RECORDER = `(() => {
  const rows = {};
  window.__live = rows;
  const now = () => performance.timeOrigin + performance.now();
  const scan = () => {
    const at = now();
    for (const item of document.querySelectorAll('li.submission')) {
      const label = [...item.querySelectorAll('dt')].find((dt) => dt.textContent === 'Coordinates');
      const coordinates = label && label.nextElementSibling ? label.nextElementSibling.textContent : null;
      const status = item.querySelector('[class^="status-"]');
      if (!coordinates || !status) continue;
      const stage = status.className.split(' ')[0].replace(/^status-/, '');
      const row = (rows[coordinates] ??= { stages: {}, texts: {} });
      if (!(stage in row.stages)) {
        row.stages[stage] = at;
        row.texts[stage] = status.textContent;
      }
    }
  };
  const observer = new MutationObserver(scan);
  const start = () => observer.observe(document.documentElement, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['class'] });
  if (document.documentElement) start(); else document.addEventListener('DOMContentLoaded', start);
})();`;

/** The e2e wallet, recording when it answered each call (the signature's instant among them). */
class TimedWallet extends Wallet {
  constructor(options) {
    super(options);
    this.answered = [];
  }

  async handle(method, params) {
    const result = await super.handle(method, params);
    const entry = { method, at: Date.now() };
    if (method === "eth_signTypedData_v4") entry.signature = String(result).toLowerCase();
    this.answered.push(entry);
    return result;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const bare = (hex) =>
  String(hex ?? "")
    .toLowerCase()
    .replace(/^0x/, "");

async function play(spec, player, index) {
  const { context, close } = await openBrowser({ width: 390, height: 844 });
  const wallet = new TimedWallet({ rpcUrl: spec.rpcUrl, nodeChainId: spec.chainId, accounts: [player.account] });
  const requests = [];
  const posts = [];
  const errors = [];
  try {
    await wallet.attach(context);
    await context.addInitScript({ content: RECORDER });
    context.on("request", (request) => {
      if (request.url().startsWith(spec.baseUrl))
        requests.push({ at: Date.now(), method: request.method(), url: request.url() });
    });
    context.on("response", (response) => {
      const request = response.request();
      if (request.method() !== "POST" || new URL(request.url()).pathname !== "/api/responses") return;
      const body = request.postDataJSON();
      posts.push({
        at: Date.now(),
        status: response.status(),
        commitment: bare(body?.commitment),
        signature: bare(body?.authorization?.signature),
      });
    });
    const page = await context.newPage();
    page.on("pageerror", (error) => errors.push(String(error)));
    await page.goto(`${spec.baseUrl}/`);
    await page.getByRole("tablist").waitFor();
    const stakes = [];
    for (const stake of player.stakes) {
      await sleep(stake.pauseMs);
      await closeToasts(page);
      const clickedAt = Date.now();
      const dialog = await openConfirm(page, stake.coordinates, stake.stake);
      if (!(await dialog.getByRole("radio", { name: WAY.relay }).isChecked()))
        throw new Error(`player ${index}: the signature is not the way offered first`);
      const postsBefore = posts.length;
      await dialog.getByRole("button", { name: "Confirm" }).click();
      await dialog.waitFor({ state: "hidden", timeout: 60000 });
      await page.waitForFunction((c) => window.__live[c]?.stages.confirmed, stake.coordinates, {
        timeout: spec.stakeTimeoutMs,
        polling: 100,
      });
      const post = posts.slice(postsBefore).find((p) => p.status === 201 || p.status === 200);
      if (!post) throw new Error(`player ${index}: no POST /api/responses answered for ${stake.coordinates}`);
      const signed = wallet.answered.find((a) => a.signature && bare(a.signature) === post.signature);
      stakes.push({ ...stake, clickedAt, commitment: post.commitment, postAnsweredAt: post.at, signedAt: signed?.at });
      log(`player ${index}: stake ${stakes.length} of ${player.stakes.length} confirmed in the page`);
    }
    const rows = await page.evaluate(() => window.__live);
    for (const stake of stakes) {
      const row = rows[stake.coordinates] ?? { stages: {}, texts: {} };
      stake.shown = row;
      stake.confirmedShownAt = row.stages.confirmed ?? null;
    }
    return {
      account: player.account,
      stakes,
      requests,
      walletCalls: wallet.answered.map(({ method, at }) => ({ method, at })),
      errors,
    };
  } finally {
    await close();
  }
}

async function main() {
  const spec = JSON.parse(readFileSync(process.argv[2], "utf8"));
  const startedAt = Date.now();
  try {
    const players = await Promise.all(spec.players.map((player, i) => play(spec, player, i)));
    writeFileSync(spec.out, JSON.stringify({ startedAt, endedAt: Date.now(), players }));
  } finally {
    await closeBrowsers();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);

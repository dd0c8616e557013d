// docs/performance.md section 5: click to "Confirmed" on the page, live, in a real browser. Run by bench/live.py
// (which computes the figures); on its own: BENCH_LIVE_OUT=/tmp/live.json node bench/live.mjs.
//
// The e2e suite's stack (e2e/lib/stack.mjs: PostgreSQL, Redis, anvil with the test USDC, gunicorn,
// a Celery worker with its embedded beat, whose head watcher re-checks pending claims at each
// block) with CHAIN_CONFIRMATIONS=2, and Debian's Chromium driven by playwright-core with the
// suite's fake wallet (e2e/lib/wallet.mjs): real transactions on anvil, claims made by clicking
// through the real page. Phases (BENCH_LIVE_PHASES, "blockSeconds:claims,..."): anvil's interval
// mining set to blockSeconds (evm_setIntervalMining, what `anvil --block-time` sets at start),
// then `claims` claims by BENCH_LIVE_PLAYERS players at once, each in its own browser context
// (its own localStorage, so its own "My submissions"), each sending its next claim as soon as the
// page has POSTed the last: claims overlap in time and every page follows several pending claims.
// A phase "blockSeconds:claims:signed" pays by signature instead (docs/protocol.md 2a): its players
// hold the test USDC and no ETH at all (anvil_setBalance 0), pick "Sign the payment" in the confirm
// dialog, the wallet signs through anvil's eth_signTypedData_v4 (its answer timed here), the page
// POSTs the claim with the authorization and Geopoem's relayer puts it on chain.
//
// Clocks: every time is Date.now() on this machine. The page records (an init script, no app code):
// the POST /api/responses (wrapped fetch) and, from a MutationObserver, the first moment its
// "My submissions" entry shows "Confirmed" and every change of the card's "Total bids". The head
// is polled by a worker thread (its own event loop, away from the browser traffic) every
// HEAD_POLL_MS; the time a block is first seen is taken as the time the node produced it (anvil's
// block timestamps are whole seconds, too coarse). Each follow-up request the page makes (status
// look-ups, the active challenge) is counted with its exact bytes (playwright's request sizes).
import { writeFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

import { chromium } from 'playwright-core';

import { CHROMIUM, CHROMIUM_ARGS } from '../e2e/lib/browser.mjs';
import { query, sqlString } from '../e2e/lib/db.mjs';
import { activeChallenge, confirmDialog, fillGuess, submitGuess, SPEC } from '../e2e/lib/game.mjs';
import { rpc } from '../e2e/lib/rpc.mjs';
import { CHAIN_ID, startStack, stopStack } from '../e2e/lib/stack.mjs';
import { state } from '../e2e/lib/suite.mjs';
import { Wallet } from '../e2e/lib/wallet.mjs';

const CONFIRMATIONS = 2;
const PLAYERS = Number(process.env.BENCH_LIVE_PLAYERS ?? 2);
const PHASES = (process.env.BENCH_LIVE_PHASES ?? '12:20,12:20:signed,1:10,1:10:signed').split(',').map((part) => {
  const [blockSeconds, claims, kind = 'transfer'] = part.split(':');
  return { blockSeconds: Number(blockSeconds), claims: Number(claims), signed: kind === 'signed' };
});
// The confirm dialog's choice of payment (frontend/src/tabs/active/ConfirmDialog.tsx, PAY_CHOICE).
const SIGN_CHOICE = 'Sign the payment (no ETH needed)';
const HEAD_POLL_MS = 20;
// The ledger indexer's interval: production's default (config/settings/chain.py), not the e2e
// suite's 1 s (its staff resolve within seconds of a close). Every run re-reads the last
// CHAIN_REORG_DEPTH_BLOCKS blocks of transfers and queues a verification for each pending claim
// among them: at 1 s, with the relayed stakes of a run in that window, it kept both worker processes
// busy and the head watcher's messages expired (docs/performance.md section 5b).
const INDEX_SECONDS = process.env.BENCH_LIVE_INDEX_SECONDS ?? '15';
const OUT = process.env.BENCH_LIVE_OUT;

const log = (message) => console.error(`[live ${new Date().toISOString().slice(11, 19)}] ${message}`);

const RECORDER = `(() => {
  const live = { posts: [], firstSeen: {}, pending: {}, confirmed: {}, confirmedText: {}, bids: [] };
  window.__live = live;
  const realFetch = window.fetch;
  window.fetch = async function (input, init) {
    const url = new URL(typeof input === 'string' ? input : input.url, location.href);
    const method = String(init?.method ?? (typeof input === 'string' ? 'GET' : input.method)).toUpperCase();
    if (method !== 'POST' || !/^\\/api\\/responses\\/?$/.test(url.pathname)) return realFetch.apply(this, arguments);
    let hash = null, text = null, salt = null, signed = false;
    try {
      const body = JSON.parse(init.body);
      hash = body.transactionHash ? String(body.transactionHash).toLowerCase() : null;
      text = body.submissionText ?? null;
      salt = body.submissionSalt ?? null;
      signed = Boolean(body.authorization);
    } catch {}
    const post = { hash, text, salt, signed, at: Date.now(), answeredAt: null, status: null };
    live.posts.push(post);
    try {
      const answer = await realFetch.apply(this, arguments);
      post.status = answer.status;
      return answer;
    } catch (error) {
      post.status = 'network error';
      throw error;
    } finally {
      post.answeredAt = Date.now();
    }
  };
  const scan = () => {
    const now = Date.now();
    const mine = document.querySelector('section[aria-labelledby="my-submissions-heading"]');
    for (const item of mine ? mine.querySelectorAll('li') : []) {
      // A stake paid by signature names no transaction until one used it: its entry is known by its
      // coordinates (every claim of the benchmark has its own).
      const label = [...item.querySelectorAll('dt')].find((dt) => dt.textContent === 'Coordinates');
      const coordinates = label && label.nextElementSibling ? label.nextElementSibling.textContent : null;
      const shown = item.querySelector('[class^="status-"]');
      if (coordinates && shown && shown.textContent === 'Confirmed' && !(coordinates in live.confirmedText)) live.confirmedText[coordinates] = now;
      const found = /0x[0-9a-fA-F]{64}/.exec(item.textContent);
      if (!found) continue;
      const hash = found[0].toLowerCase();
      if (!(hash in live.firstSeen)) live.firstSeen[hash] = now;
      const status = item.querySelector('[class^="status-"]');
      const text = status ? status.textContent : '';
      if (text === 'Pending' && !(hash in live.pending)) live.pending[hash] = now;
      if (text === 'Confirmed' && !(hash in live.confirmed)) live.confirmed[hash] = now;
    }
    for (const dt of document.querySelectorAll('dt')) {
      if (dt.textContent !== 'Total bids') continue;
      const shown = dt.nextElementSibling ? dt.nextElementSibling.textContent : '';
      if (shown && (live.bids.length === 0 || live.bids[live.bids.length - 1].text !== shown)) live.bids.push({ at: now, text: shown });
    }
  };
  const observer = new MutationObserver(scan);
  const start = () => observer.observe(document.documentElement, { subtree: true, childList: true, characterData: true });
  if (document.documentElement) start(); else document.addEventListener('DOMContentLoaded', start);
})();`;

// The head poller: a worker thread posting each new block number with the time it was first seen
// and the gap since the previous answered poll (the resolution of that time).
const HEAD_WATCHER = `
const { parentPort, workerData } = require('node:worker_threads');
let last = -1, previousAt = Date.now(), maxGap = 0, polls = 0, id = 1;
const gaps = [];
(async () => {
  for (;;) {
    try {
      const answer = await fetch(workerData.rpcUrl, { method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'eth_blockNumber', params: [] }) });
      const head = parseInt((await answer.json()).result, 16);
      const at = Date.now();
      const gap = at - previousAt;
      previousAt = at;
      polls += 1;
      if (polls > 1) { maxGap = Math.max(maxGap, gap); gaps.push(gap); }
      if (head > last) {
        for (let n = last < 0 ? head : last + 1; n <= head; n += 1) parentPort.postMessage({ block: n, at, gapMs: gap });
        last = head;
      }
      if (polls % 100 === 0) {
        const sorted = [...gaps].sort((a, b) => a - b);
        parentPort.postMessage({ stats: { polls, maxGapMs: maxGap, p99GapMs: sorted[Math.floor(sorted.length * 0.99)] ?? 0, medianGapMs: sorted[Math.floor(sorted.length / 2)] ?? 0 } });
      }
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, workerData.intervalMs));
  }
})();`;

function watchHead(rpcUrl) {
  const blocks = new Map();
  const watcher = { blocks, stats: null };
  const worker = new Worker(HEAD_WATCHER, { eval: true, workerData: { rpcUrl, intervalMs: HEAD_POLL_MS } });
  worker.on('message', (message) => {
    if (message.stats) watcher.stats = message.stats;
    else if (!blocks.has(message.block)) blocks.set(message.block, { at: message.at, gapMs: message.gapMs });
  });
  watcher.stop = () => worker.terminate();
  return watcher;
}

/** What the card shows for a decimal sum: every significant decimal, at least 2 (as formatStake). */
const usdcShown = (decimal) => {
  const [whole, fraction = ''] = decimal.split('.');
  return `${whole}.${fraction.replace(/0+$/, '').padEnd(2, '0')}`;
};

const FOLLOW = [
  [/^\/api\/responses\/0x[0-9a-fA-F]{64}$/, 'status'],
  [/^\/api\/responses\/authorization\/[0-9a-fA-F]{64}$/, 'status'],
  [/^\/api\/challenges\/active$/, 'active'],
  [/^\/api\/responses$/, 'address'],
];

/** The e2e wallet, timing each typed-data signature it gives: the moment it answers the page (this
 * process's clock, as every other time here), with the authorization's nonce (the commitment). */
class TimedWallet extends Wallet {
  constructor(options) {
    super(options);
    this.signedAt = [];
  }

  async handle(method, params) {
    const result = await super.handle(method, params);
    if (method === 'eth_signTypedData_v4') {
      const typed = typeof params[1] === 'string' ? JSON.parse(params[1]) : params[1];
      this.signedAt.push({ at: Date.now(), nonce: String(typed.message.nonce).toLowerCase() });
    }
    return result;
  }
}

async function openPlayer(browser, stack, account) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US', timezoneId: 'UTC' });
  context.setDefaultTimeout(30000);
  const wallet = new TimedWallet({ rpcUrl: stack.rpcUrl, nodeChainId: CHAIN_ID, accounts: [account] });
  await wallet.attach(context);
  await context.addInitScript({ content: RECORDER });
  const page = await context.newPage();
  // The follow-up requests as the network saw them, through the DevTools protocol: a conditional
  // GET answered 304 is a 304 there (the page's fetch sees the cached 200), and encodedDataLength
  // is the answer's bytes on the wire, headers included.
  const requests = [];
  const seen = new Map();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  cdp.on('Network.requestWillBeSent', ({ requestId, request }) => {
    const kind = request.method === 'GET' ? FOLLOW.find(([pattern]) => pattern.test(new URL(request.url).pathname))?.[1] : undefined;
    if (kind) seen.set(requestId, { kind, at: Date.now() });
  });
  cdp.on('Network.requestWillBeSentExtraInfo', ({ requestId, headers }) => {
    const r = seen.get(requestId);
    if (r) r.requestHeaderBytes = Object.entries(headers).reduce((n, [k, v]) => n + k.length + String(v).length + 4, 0);
  });
  cdp.on('Network.responseReceived', ({ requestId, response }) => {
    const r = seen.get(requestId);
    if (r && r.wireStatus === undefined) r.status = response.status;
  });
  // The status line the server sent (304 for a revalidation the page reads as its cached 200).
  cdp.on('Network.responseReceivedExtraInfo', ({ requestId, statusCode, headersText }) => {
    const r = seen.get(requestId);
    if (!r) return;
    r.wireStatus = statusCode;
    r.status = statusCode;
    if (headersText) r.answerHeaderBytes = headersText.length;
  });
  cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => {
    const r = seen.get(requestId);
    if (!r) return;
    seen.delete(requestId);
    requests.push({ ...r, answeredAt: Date.now(), wireBytes: encodedDataLength });
  });
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(`${stack.baseUrl}/`);
  await page.getByRole('button', { name: SPEC.submit }).waitFor();
  return { context, page, wallet, requests, errors, account };
}

/** The player's click path paying by signature: the form, the confirm dialog with "Sign the
 * payment" chosen (offered first where the relay is on; waited for, as the dialog learns it from
 * GET /api/payments/authorization), Confirm. */
async function submitSigned(page, coordinates, stake) {
  await fillGuess(page, coordinates, stake);
  const dialog = confirmDialog(page);
  await dialog.waitFor();
  const sign = dialog.getByRole('radio', { name: SIGN_CHOICE });
  await sign.waitFor();
  await sign.check();
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await dialog.waitFor({ state: 'hidden' });
}

async function claimAll(player, numbers, phaseIndex, signed) {
  for (const n of numbers) {
    const before = (await player.page.evaluate(() => window.__live.posts.length));
    // Distinct, valid coordinates and stakes (1.01 to 1.99 USDC: every sum is a new card value).
    const coordinates = `${(40 + phaseIndex + n / 1000).toFixed(6)}, ${(-74 + n / 1000).toFixed(6)}`;
    const stake = `1.${String(1 + (n % 99)).padStart(2, '0')}`;
    await (signed ? submitSigned : submitGuess)(player.page, coordinates, stake);
    await player.page.waitForFunction(
      (count) => window.__live.posts.length > count && window.__live.posts.at(-1).answeredAt !== null,
      before,
      { timeout: 90000, polling: 100 },
    );
    const post = await player.page.evaluate(() => window.__live.posts.at(-1));
    if (post.status !== 201 && post.status !== 200) throw new Error(`claim ${n}: POST answered ${post.status}`);
  }
}

async function transferClaims(stack, head, final) {
  const hashes = final.flatMap((live) => live.posts.map((post) => post.hash));
  const rows = await query(
    stack.dbUrl,
    `SELECT transaction_hash AS hash, status, submission_stake::text AS stake, (extract(epoch FROM updated_at) * 1000)::float8 AS "updatedAt" FROM responses_response WHERE transaction_hash IN (${hashes.map(sqlString).join(',')})`,
  );
  const byHash = new Map(rows.map((row) => [row.hash.toLowerCase(), row]));
  const claimsOut = [];
  for (const [p, live] of final.entries()) {
    for (const post of live.posts) {
      const receipt = await rpc(stack.rpcUrl, 'eth_getTransactionReceipt', [post.hash]);
      const included = Number(BigInt(receipt.blockNumber));
      const deep = included + CONFIRMATIONS - 1;
      const row = byHash.get(post.hash) ?? {};
      claimsOut.push({
        player: p,
        hash: post.hash,
        stake: row.stake,
        status: row.status,
        postAt: post.at,
        postAnsweredAt: post.answeredAt,
        postStatus: post.status,
        includedBlock: included,
        deepBlock: deep,
        deepBlockAt: head.blocks.get(deep)?.at ?? null,
        deepBlockPollGapMs: head.blocks.get(deep)?.gapMs ?? null,
        serverConfirmedAt: row.updatedAt ?? null,
        pendingShownAt: live.pending[post.hash] ?? null,
        confirmedShownAt: live.confirmed[post.hash] ?? null,
      });
    }
  }
  return claimsOut;
}

/** A stake paid by signature, from the wallet's signature to "Confirmed" on the page: the claim row
 * (found by its salt), the relayer's first send of it (chain_relaytransaction.sent_at), the block
 * its transaction was mined in. */
async function signedClaims(stack, head, final, players) {
  const salts = final.flatMap((live) => live.posts.map((post) => post.salt));
  const rows = await query(
    stack.dbUrl,
    `SELECT r.submission_salt AS salt, r.commitment, r.transaction_hash AS hash, r.status, r.submission_stake::text AS stake,
            (extract(epoch FROM r.created_at) * 1000)::float8 AS "createdAt", (extract(epoch FROM r.updated_at) * 1000)::float8 AS "updatedAt",
            a.relay_status AS "relayStatus", a.relay_transaction_hash AS "relayHash",
            (SELECT (extract(epoch FROM min(t.sent_at)) * 1000)::float8 FROM chain_relaytransaction t WHERE t.response_id = r.id) AS "relaySentAt",
            (SELECT max(jsonb_array_length(t.attempts)) FROM chain_relaytransaction t WHERE t.response_id = r.id) AS "relayAttempts"
       FROM responses_response r JOIN responses_stakeauthorization a ON a.response_id = r.id
      WHERE r.submission_salt IN (${salts.map(sqlString).join(',')})`,
  );
  const bySalt = new Map(rows.map((row) => [row.salt, row]));
  const claimsOut = [];
  for (const [p, live] of final.entries()) {
    const signatures = new Map(players[p].wallet.signedAt.map((s) => [s.nonce.replace(/^0x/, ''), s.at]));
    for (const post of live.posts) {
      const row = bySalt.get(post.salt) ?? {};
      const receipt = row.hash ? await rpc(stack.rpcUrl, 'eth_getTransactionReceipt', [row.hash]) : null;
      const included = receipt ? Number(BigInt(receipt.blockNumber)) : null;
      const deep = included === null ? null : included + CONFIRMATIONS - 1;
      claimsOut.push({
        player: p,
        hash: row.commitment ?? post.salt,
        commitment: row.commitment ?? null,
        transactionHash: row.hash || null,
        relayHash: row.relayHash || null,
        relayStatus: row.relayStatus ?? null,
        relayAttempts: row.relayAttempts ?? null,
        stake: row.stake,
        status: row.status,
        signedAt: signatures.get(row.commitment) ?? null,
        postAt: post.at,
        postAnsweredAt: post.answeredAt,
        postStatus: post.status,
        storedAt: row.createdAt ?? null,
        relaySentAt: row.relaySentAt ?? null,
        includedBlock: included,
        includedBlockAt: included === null ? null : (head.blocks.get(included)?.at ?? null),
        deepBlock: deep,
        deepBlockAt: deep === null ? null : (head.blocks.get(deep)?.at ?? null),
        deepBlockPollGapMs: deep === null ? null : (head.blocks.get(deep)?.gapMs ?? null),
        serverConfirmedAt: row.status === 'confirmed' ? row.updatedAt : null,
        confirmedShownAt: live.confirmedText[post.text] ?? null,
      });
    }
  }
  return claimsOut;
}

async function runPhase(browser, stack, head, { blockSeconds, claims, signed }, phaseIndex) {
  log(`phase ${phaseIndex + 1}: ${blockSeconds}-second blocks, ${claims} claims by ${PLAYERS} players${signed ? ', paid by signature' : ''}`);
  await rpc(stack.rpcUrl, 'evm_setIntervalMining', [blockSeconds]);
  // Let the new interval take over: two blocks at the new pace before the first claim.
  const start = BigInt(await rpc(stack.rpcUrl, 'eth_blockNumber'));
  while (BigInt(await rpc(stack.rpcUrl, 'eth_blockNumber')) < start + 2n) await new Promise((r) => setTimeout(r, 100));
  const challenge = await activeChallenge();
  // Players paying by signature are others than those paying by transfer, with no ETH at all.
  const accounts = stack.accounts.players;
  const first = signed ? PLAYERS : 0;
  const chosen = Array.from({ length: PLAYERS }, (_, i) => accounts[(first + i) % accounts.length]);
  if (signed) {
    for (const account of chosen) {
      await rpc(stack.rpcUrl, 'anvil_setBalance', [account, '0x0']);
      if (BigInt(await rpc(stack.rpcUrl, 'eth_getBalance', [account, 'latest'])) !== 0n) throw new Error(`${account} still holds ETH`);
    }
  }
  const players = [];
  for (const account of chosen) players.push(await openPlayer(browser, stack, account));
  const started = Date.now();
  await Promise.all(players.map((player, i) => claimAll(player, Array.from({ length: claims }, (_, n) => n).filter((n) => n % PLAYERS === i), phaseIndex, signed)));
  log(`phase ${phaseIndex + 1}: every claim POSTed after ${((Date.now() - started) / 1000).toFixed(1)} s`);
  // Every claim shown Confirmed on its page, with no reload.
  const deadline = Date.now() + 120000;
  for (const player of players) {
    await player.page.waitForFunction(
      () => window.__live.posts.every((post) => (post.signed ? post.text in window.__live.confirmedText : post.hash in window.__live.confirmed)),
      null,
      { timeout: Math.max(1000, deadline - Date.now()), polling: 250 },
    );
  }
  // The card's total bids follow the confirmed sum: the page that showed the phase's last
  // "Confirmed" must show the final sum (the others stopped following once their claims settled).
  const lives = await Promise.all(players.map((player) => player.page.evaluate(() => window.__live)));
  const lastShown = lives.map((live) => Math.max(...Object.values(signed ? live.confirmedText : live.confirmed)));
  const lastPage = lastShown.indexOf(Math.max(...lastShown));
  const after = await activeChallenge();
  const finalText = `${usdcShown(after.staked_sum)} USDC`;
  let finalShownAt = null;
  try {
    await players[lastPage].page.waitForFunction(
      (want) => window.__live.bids.some((b) => b.text === want),
      finalText,
      { timeout: 15000, polling: 100 },
    );
    finalShownAt = (await players[lastPage].page.evaluate((want) => window.__live.bids.find((b) => b.text === want).at, finalText));
  } catch {
    /* recorded as null: the report says the card did not follow */
  }
  await new Promise((r) => setTimeout(r, 2500)); // the last re-reads of every page land
  const final = await Promise.all(players.map((player) => player.page.evaluate(() => window.__live)));
  const claimsOut = signed ? await signedClaims(stack, head, final, players) : await transferClaims(stack, head, final);
  const out = {
    blockSeconds,
    signed,
    confirmations: CONFIRMATIONS,
    players: PLAYERS,
    stakedSumBefore: challenge.staked_sum,
    stakedSumAfter: after.staked_sum,
    finalBidsText: finalText,
    lastPage,
    finalBidsShownAt: finalShownAt,
    startedAt: started,
    endedAt: Date.now(),
    wallSeconds: (Date.now() - started) / 1000,
    claims: claimsOut,
    pages: final.map((live, p) => ({
      bids: live.bids,
      requests: players[p].requests.filter((r) => r.at >= started),
      errors: players[p].errors,
      reloads: 0,
    })),
  };
  for (const player of players) await player.context.close().catch(() => {});
  return out;
}

async function main() {
  if (!OUT) throw new Error('BENCH_LIVE_OUT is not set');
  const startedAt = Date.now();
  const stack = await startStack({
    env: { CHAIN_CONFIRMATIONS: String(CONFIRMATIONS), CHAIN_INDEX_INTERVAL_SECONDS: INDEX_SECONDS, THROTTLE_RESPONSE_CREATE: '10000/min', LOG_LEVEL: 'WARNING' },
  });
  state.stack = stack;
  log(`stack up after ${((Date.now() - startedAt) / 1000).toFixed(0)} s at ${stack.baseUrl}`);
  const head = watchHead(stack.rpcUrl);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  try {
    const phases = [];
    for (const [i, phase] of PHASES.entries()) phases.push(await runPhase(browser, stack, head, phase, i));
    const blocks = Object.fromEntries([...head.blocks.entries()].map(([n, b]) => [n, b.at]));
    writeFileSync(OUT, JSON.stringify({ headPoll: { intervalMs: HEAD_POLL_MS, ...head.stats }, blocks, phases }, null, 1));
  } finally {
    await browser.close().catch(() => {});
    await head.stop();
    await stopStack(stack);
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);

/** "Verify every outcome": the checks of verify_challenge.py (docs/protocol.md section 5), run in
 * the visitor's browser against the site's public API and the configured public RPC node. Nothing
 * here trusts the server's scoring: each payment is read from the chain, each commitment, distance,
 * verdict, winner and prize recomputed. Both implementations are tested on tests/vectors.json. */

import type { Challenge, ScoredResponse, Winners } from "@/api";
import { canonicalCoordinates } from "./coordinates";
import { guessCommitment, solutionCommitment } from "./commitment";
import { decimalToUnits, unitsToDecimal } from "./stake";

/** More than this is for the script: a browser tab holding tens of thousands of rows and chain
 * records is slow and easily closed half-way. */
export const MAX_BROWSER_RESPONSES = 10_000;
/** keccak256("Transfer(address,address,uint256)"): a fixed constant of ERC-20. */
export const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const TRANSFER_SELECTOR = "a9059cbb";
const STAKE_CALLDATA_BYTES = 164;
const EARTH_RADIUS_M = 6_371_000;
/** The database and this code evaluate the same haversine in different floating-point libraries:
 * distances agree within a millimetre, and a guess that close to the threshold is a tie on which
 * the site's verdict stands (docs/protocol.md section 4). */
export const DISTANCE_TOLERANCE_M = 0.001;
const PAGE_SIZE = 1000;

export interface VerifierConfig {
  rpcUrl: string;
  chainId: number;
  usdcAddress: string;
  treasuryAddress: string;
  tokenDecimals: number;
  /** Blocks a payment must be deep, counting its own (the server's default, 2). */
  confirmations?: number;
  /** JSON-RPC calls per HTTP request. */
  batchSize?: number;
}

export type Phase = "responses" | "chain" | "checks";
export type Progress = (phase: Phase, done: number, total: number) => void;

export interface OutcomeCheck {
  response: ScoredResponse;
  problems: string[];
  distance: number | null;
  correct: boolean | null;
  /** Block, transaction index and log index as the chain shows them (unset without a chain). */
  chainPosition?: [number, number, number];
  /** A seeded claim of a demonstration challenge: its made-up hash is on no chain, nothing to pay. */
  unpaidDemo?: boolean;
}

export interface VerificationReport {
  outcomes: OutcomeCheck[];
  /** Differences of the challenge as a whole: the solution commitment, totals, winners, split. */
  differences: string[];
  demo: boolean;
  /** Demonstration claims checked off chain only. */
  unpaidDemo: number;
  reproduced: number;
  ok: boolean;
}

export class VerificationUnavailable extends Error {
  override name = "VerificationUnavailable";
}

// --- Pure rules -------------------------------------------------------------------------------

export function haversineM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const phi1 = lat1 * rad;
  const phi2 = lat2 * rad;
  const dphi = (lat2 - lat1) * rad;
  const dlambda = (lon2 - lon1) * rad;
  const a = Math.sin(dphi / 2) ** 2 + Math.cos(phi1) * Math.cos(phi2) * Math.sin(dlambda / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.sqrt(Math.min(1, a)));
}

/** Distance between two canonical "lat, lon" texts. */
export function distanceBetween(guess: string, solution: string): number {
  const [lat1, lon1] = guess.split(", ").map(Number) as [number, number];
  const [lat2, lon2] = solution.split(", ").map(Number) as [number, number];
  return haversineM(lat1, lon1, lat2, lon2);
}

export interface PrizeSplit {
  total: bigint;
  earliest: bigint;
  highest: bigint;
  operations: bigint;
}

/** 40 % / 40 % / 20 % of the pot in token units, each rounded down. */
export function prizeSplit(totalUnits: bigint): PrizeSplit {
  return {
    total: totalUnits,
    earliest: (totalUnits * 40n) / 100n,
    highest: (totalUnits * 40n) / 100n,
    operations: (totalUnits * 20n) / 100n,
  };
}

export interface StakeCalldata {
  recipient: string;
  amountUnits: bigint;
  commitment: string;
  challengeId: bigint;
  timestamp: bigint;
}

/** The 164-byte stake transfer, or null for anything else. */
export function decodeStakeCalldata(data: string): StakeCalldata | null {
  const raw = (data.startsWith("0x") ? data.slice(2) : data).toLowerCase();
  if (raw.length !== 2 * STAKE_CALLDATA_BYTES || !raw.startsWith(TRANSFER_SELECTOR) || !/^[0-9a-f]*$/.test(raw)) {
    return null;
  }
  const word = (i: number) => raw.slice(8 + 64 * i, 8 + 64 * (i + 1));
  if (/[^0]/.test(word(0).slice(0, 24))) return null;
  return {
    recipient: `0x${word(0).slice(24)}`,
    amountUnits: BigInt(`0x${word(1)}`),
    commitment: word(2),
    challengeId: BigInt(`0x${word(3)}`),
    timestamp: BigInt(`0x${word(4)}`),
  };
}

const position = (r: ScoredResponse): [number, number, number] => [
  r.blockNumber ?? 0,
  r.transactionIndex ?? 0,
  r.logIndex ?? 0,
];

function compareChainOrder(a: ScoredResponse, b: ScoredResponse): number {
  const [pa, pb] = [position(a), position(b)];
  for (let i = 0; i < 3; i++) {
    if (pa[i]! !== pb[i]!) return pa[i]! - pb[i]!;
  }
  return 0;
}

/** Earliest: the first correct response in chain order. Highest: the largest stake, equal stakes
 * going to the earliest in chain order. */
export function pickWinners(
  correct: ScoredResponse[],
  decimals = 6,
): { earliest: ScoredResponse | null; highest: ScoredResponse | null } {
  if (correct.length === 0) return { earliest: null, highest: null };
  const byOrder = [...correct].sort(compareChainOrder);
  const units = (r: ScoredResponse) => decimalToUnits(r.submissionStake, decimals) ?? 0n;
  const highest = byOrder.reduce((best, r) => (units(r) > units(best) ? r : best));
  return { earliest: byOrder[0]!, highest };
}

// --- Reading -----------------------------------------------------------------------------------

type Fetch = typeof fetch;

async function getJson<T>(fetchImpl: Fetch, url: string, signal?: AbortSignal): Promise<{ body: T; link: string }> {
  const res = await fetchImpl(url, { headers: { Accept: "application/json" }, credentials: "same-origin", signal });
  if (!res.ok) throw new VerificationUnavailable(`${url} answered ${res.status}`);
  return { body: (await res.json()) as T, link: res.headers.get("Link") ?? "" };
}

/** The next page's path from a Link header, kept on this page's origin. */
export function nextPath(link: string, base: string): string | null {
  const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(link);
  if (!match?.[1]) return null;
  const url = new URL(match[1], base);
  return url.pathname + url.search;
}

async function readResponses(
  fetchImpl: Fetch,
  challenge: Challenge,
  progress: Progress,
  signal?: AbortSignal,
): Promise<ScoredResponse[]> {
  const rows: ScoredResponse[] = [];
  const base = globalThis.location?.href ?? "http://localhost/";
  let url: string | null = `/api/responses?challengeId=${challenge.id}&limit=${PAGE_SIZE}`;
  while (url) {
    const page: { body: ScoredResponse[]; link: string } = await getJson<ScoredResponse[]>(fetchImpl, url, signal);
    rows.push(...page.body);
    progress("responses", rows.length, Math.max(challenge.responseCount, rows.length));
    url = nextPath(page.link, base);
  }
  return rows;
}

interface RpcCall {
  method: string;
  params: unknown[];
}

/** JSON-RPC batches: many calls per HTTP request, so 10,000 responses take a few hundred requests. */
export async function rpcBatch(
  fetchImpl: Fetch,
  url: string,
  calls: RpcCall[],
  {
    batchSize = 100,
    signal,
    onProgress,
  }: { batchSize?: number; signal?: AbortSignal; onProgress?: (done: number) => void },
): Promise<unknown[]> {
  const results: unknown[] = [];
  for (let start = 0; start < calls.length; start += batchSize) {
    const chunk = calls.slice(start, start + batchSize);
    const res = await fetchImpl(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(chunk.map((c, id) => ({ jsonrpc: "2.0", id, method: c.method, params: c.params }))),
      signal,
    });
    if (!res.ok) throw new VerificationUnavailable(`The RPC node answered ${res.status}.`);
    const answer: unknown = await res.json();
    if (!Array.isArray(answer) || answer.length !== chunk.length) {
      throw new VerificationUnavailable("The RPC node did not answer the batch.");
    }
    const byId = new Map<number, { result?: unknown; error?: { message?: string } }>(
      answer.map((item: { id: number; result?: unknown; error?: { message?: string } }) => [item.id, item]),
    );
    chunk.forEach((call, id) => {
      const item = byId.get(id);
      if (!item || item.error) {
        throw new VerificationUnavailable(
          `The RPC node refused ${call.method}: ${item?.error?.message ?? "no answer"}`,
        );
      }
      results.push(item.result ?? null);
    });
    onProgress?.(results.length);
  }
  return results;
}

// --- Checks ------------------------------------------------------------------------------------

const lower = (value: unknown) => String(value ?? "").toLowerCase();
const int = (value: unknown) => Number(BigInt(String(value ?? "0x0")));

interface RpcTransaction {
  from?: string;
  to?: string | null;
  value?: string;
  input?: string;
}

interface RpcLog {
  address?: string;
  topics?: string[];
  data?: string;
  logIndex?: string;
  removed?: boolean;
}

interface RpcReceipt {
  status?: string;
  blockNumber?: string;
  blockHash?: string;
  transactionIndex?: string;
  logs?: RpcLog[];
}

interface RpcBlock {
  hash?: string;
  timestamp?: string;
}

/** The response's own data: canonical text, distance and verdict. */
export function checkOffchain(check: OutcomeCheck, challenge: Challenge): void {
  const { response, problems } = check;
  const text = response.submissionText ?? "";
  if (canonicalCoordinates(text) !== text) {
    problems.push(`the guess "${text}" is not canonical coordinates`);
    return;
  }
  const distance = distanceBetween(text, challenge.solutionReveal ?? "");
  check.distance = distance;
  const shown = response.distanceMeters;
  if (shown === null || Math.abs(shown - distance) > DISTANCE_TOLERANCE_M) {
    problems.push(`the distance is ${distance.toFixed(3)} m, the site shows ${shown ?? "none"}`);
  }
  const threshold = challenge.proximityThreshold ?? 0;
  check.correct = distance <= threshold;
  if (response.isCorrect !== check.correct) {
    if (Math.abs(distance - threshold) <= DISTANCE_TOLERANCE_M) {
      check.correct = Boolean(response.isCorrect); // a floating-point tie: the site's verdict stands
    } else {
      problems.push(`correct is ${check.correct ? "yes" : "no"}, the site shows ${response.isCorrect ? "yes" : "no"}`);
    }
  }
  if (!response.submissionSalt) problems.push("the site gives no salt");
}

export interface ChainRecords {
  tx: RpcTransaction | null;
  receipt: RpcReceipt | null;
  block: RpcBlock | null;
  head: number;
}

/** The payment against the rules the site applied (docs/protocol.md section 2). */
export async function checkOnchain(
  check: OutcomeCheck,
  { tx, receipt, block, head }: ChainRecords,
  challenge: Challenge,
  config: VerifierConfig,
): Promise<void> {
  const { response, problems } = check;
  if (!tx || !receipt) {
    problems.push("the transaction is not on this chain");
    return;
  }
  if (int(receipt.status) !== 1) problems.push("the transaction failed (status 0)");
  const usdc = lower(config.usdcAddress);
  const treasury = lower(config.treasuryAddress);
  const sender = lower(tx.from);
  const blockNumber = int(receipt.blockNumber);
  const txIndex = int(receipt.transactionIndex);
  if (!block || lower(block.hash) !== lower(receipt.blockHash)) {
    problems.push(`block ${blockNumber} of the receipt is not on the canonical chain`);
  }
  const confirmations = config.confirmations ?? 2;
  if (head - blockNumber + 1 < confirmations) {
    problems.push(`only ${head - blockNumber + 1} confirmations, fewer than ${confirmations}`);
  }
  if (response.blockNumber !== blockNumber || response.transactionIndex !== txIndex) {
    problems.push(
      `the chain position is block ${blockNumber} index ${txIndex}, ` +
        `the site shows block ${response.blockNumber ?? "none"} index ${response.transactionIndex ?? "none"}`,
    );
  }
  if (lower(tx.to) !== usdc) problems.push(`paid to contract ${tx.to ?? "none"}, not the USDC contract`);
  if (int(tx.value) !== 0) problems.push("the transaction sent ether as well");
  if (sender !== lower(response.submitterAddress)) {
    problems.push(`sent from ${tx.from ?? "none"}, the site shows ${response.submitterAddress}`);
  }
  const decimals = config.tokenDecimals;
  const stakeUnits = decimalToUnits(response.submissionStake, decimals);
  const calldata = decodeStakeCalldata(tx.input ?? "");
  if (!calldata) {
    problems.push("the calldata is not a 164-byte Geopoem stake transfer");
  } else {
    if (calldata.recipient !== treasury) problems.push(`the calldata pays ${calldata.recipient}, not the treasury`);
    if (calldata.amountUnits !== stakeUnits) {
      problems.push(
        `the calldata pays ${unitsToDecimal(calldata.amountUnits, decimals)} USDC, ` +
          `the site shows a stake of ${response.submissionStake}`,
      );
    }
    const expected = await guessCommitment({
      chainId: config.chainId,
      challengeId: challenge.id,
      submitterAddress: response.submitterAddress,
      text: response.submissionText ?? "",
      salt: response.submissionSalt ?? "",
    });
    if (calldata.commitment !== expected) {
      problems.push("the calldata's commitment is not the commitment of this guess, address and salt");
    }
    if (calldata.challengeId !== BigInt(challenge.id)) {
      problems.push(`the calldata names challenge ${calldata.challengeId}`);
    }
  }
  // The money: the first Transfer(sender, treasury, stake) the USDC contract emitted.
  const log = (receipt.logs ?? []).find(
    (entry) =>
      lower(entry.address) === usdc &&
      !entry.removed &&
      entry.topics?.length === 3 &&
      lower(entry.topics[0]) === TRANSFER_TOPIC &&
      `0x${lower(entry.topics[1]).slice(-40)}` === sender &&
      `0x${lower(entry.topics[2]).slice(-40)}` === treasury &&
      BigInt(entry.data || "0x0") === stakeUnits,
  );
  check.chainPosition = [blockNumber, txIndex, log ? int(log.logIndex) : (response.logIndex ?? 0)];
  if (!log) {
    problems.push(`no USDC Transfer of ${response.submissionStake} from the sender to the treasury`);
  } else if (int(log.logIndex) !== response.logIndex) {
    problems.push(`the Transfer is log ${int(log.logIndex)}, the site shows log ${response.logIndex ?? "none"}`);
  }
  if (block) {
    const mined = int(block.timestamp);
    if (response.submissionTimestamp !== mined) {
      problems.push(`mined at ${mined}, the site shows ${response.submissionTimestamp ?? "none"}`);
    }
    const start = challenge.startTimestamp;
    const closed = challenge.closedTimestamp ?? null;
    if (start === null || mined < start || (closed !== null && mined > closed)) {
      problems.push(`mined at ${mined}, outside the open window ${start ?? "?"} to ${closed ?? "?"}`);
    }
  }
}

export function describe(response: ScoredResponse | null): string {
  return response ? `response ${response.id} (${response.transactionHash})` : "none";
}

/** Every check over a whole challenge. Throws VerificationUnavailable when the site or the node
 * cannot be read (nothing was decided then). */
export async function verifyChallenge({
  challenge,
  config,
  fetchImpl = fetch.bind(globalThis),
  progress = () => {},
  signal,
}: {
  challenge: Challenge;
  config: VerifierConfig;
  fetchImpl?: Fetch;
  progress?: Progress;
  signal?: AbortSignal;
}): Promise<VerificationReport> {
  const decimals = config.tokenDecimals;
  const differences: string[] = [];
  const solution = challenge.solutionReveal ?? "";
  const solutionHash = await solutionCommitment({
    challengeId: challenge.id,
    text: solution,
    salt: challenge.solutionSalt ?? "",
  });
  if (solutionHash !== challenge.solutionSha256.toLowerCase()) {
    differences.push("the revealed solution and salt do not hash to the published solution SHA-256");
  }
  if (canonicalCoordinates(solution) !== solution) {
    throw new VerificationUnavailable(`The revealed solution "${solution}" is not canonical coordinates.`);
  }

  const rows = await readResponses(fetchImpl, challenge, progress, signal);
  const outcomes: OutcomeCheck[] = rows.map((response) => ({ response, problems: [], distance: null, correct: null }));
  outcomes.forEach((check) => checkOffchain(check, challenge));

  // A demonstration challenge's seeded claims carry made-up hashes no chain holds: those are checked
  // off chain only. Any claim the chain does hold is checked in full, demo or not.
  const demo = challenge.isDemo;
  if (demo && !config.rpcUrl) outcomes.forEach((check) => (check.unpaidDemo = true));
  else if (outcomes.length > 0) {
    if (!config.rpcUrl) throw new VerificationUnavailable("This site has no public RPC node configured.");
    const batchSize = config.batchSize ?? 100;
    const [chainIdHex, headHex] = await rpcBatch(
      fetchImpl,
      config.rpcUrl,
      [
        { method: "eth_chainId", params: [] },
        { method: "eth_blockNumber", params: [] },
      ],
      { signal },
    );
    if (int(chainIdHex) !== config.chainId) {
      throw new VerificationUnavailable(`The RPC node is on chain ${int(chainIdHex)}, the site on ${config.chainId}.`);
    }
    const head = int(headHex);
    const calls: RpcCall[] = outcomes.flatMap((o) => [
      { method: "eth_getTransactionByHash", params: [o.response.transactionHash] },
      { method: "eth_getTransactionReceipt", params: [o.response.transactionHash] },
    ]);
    const answers = await rpcBatch(fetchImpl, config.rpcUrl, calls, {
      batchSize,
      signal,
      onProgress: (done) => progress("chain", done, calls.length),
    });
    const receipts = outcomes.map((_, i) => answers[2 * i + 1] as RpcReceipt | null);
    const numbers = [...new Set(receipts.filter((r): r is RpcReceipt => !!r).map((r) => int(r.blockNumber)))];
    const blockAnswers = await rpcBatch(
      fetchImpl,
      config.rpcUrl,
      numbers.map((n) => ({ method: "eth_getBlockByNumber", params: [`0x${n.toString(16)}`, false] })),
      { batchSize, signal },
    );
    const blocks = new Map(numbers.map((n, i) => [n, blockAnswers[i] as RpcBlock | null]));
    for (const [i, check] of outcomes.entries()) {
      const receipt = receipts[i] ?? null;
      if (demo && !receipt && !answers[2 * i]) {
        check.unpaidDemo = true;
        continue;
      }
      await checkOnchain(
        check,
        {
          tx: (answers[2 * i] as RpcTransaction | null) ?? null,
          receipt,
          block: receipt ? (blocks.get(int(receipt.blockNumber)) ?? null) : null,
          head,
        },
        challenge,
        config,
      );
      if (i % 500 === 499 || i === outcomes.length - 1) progress("checks", i + 1, outcomes.length);
    }
  }
  const seen = new Map<string, OutcomeCheck>();
  for (const check of outcomes) {
    const key = check.response.transactionHash.toLowerCase();
    const first = seen.get(key);
    if (first) check.problems.push(`its transaction also backs response ${first.response.id}`);
    else seen.set(key, check);
  }

  // The challenge as a whole.
  const total = rows.reduce((sum, r) => sum + (decimalToUnits(r.submissionStake, decimals) ?? 0n), 0n);
  if (total !== decimalToUnits(challenge.stakedSum, decimals) || rows.length !== challenge.responseCount) {
    differences.push(
      `${rows.length} responses stake ${unitsToDecimal(total, decimals)} USDC; the site shows ` +
        `${challenge.responseCount} staking ${challenge.stakedSum}`,
    );
  }
  const { body: winners } = await getJson<Winners>(fetchImpl, `/api/challenges/${challenge.id}/winners`, signal);
  // Ranked by the positions the chain shows, not the ones the site claims.
  const { earliest, highest } = pickWinners(
    outcomes
      .filter((o) => o.correct)
      .map((o) =>
        o.chainPosition
          ? {
              ...o.response,
              blockNumber: o.chainPosition[0],
              transactionIndex: o.chainPosition[1],
              logIndex: o.chainPosition[2],
            }
          : o.response,
      ),
    decimals,
  );
  const split = prizeSplit(total);
  const prizes: [string, ScoredResponse | null, bigint, Winners["earliest"]][] = [
    ["earliest", earliest, split.earliest, winners.earliest],
    ["highest", highest, split.highest, winners.highest],
  ];
  for (const [label, expected, prize, shown] of prizes) {
    if ((shown?.id ?? null) !== (expected?.id ?? null)) {
      differences.push(
        `the ${label} winner is ${describe(expected)} by the rules; the site shows ${shown ? `response ${shown.id}` : "none"}`,
      );
      const named = outcomes.find((o) => o.response.id === shown?.id);
      if (named && named.problems.length === 0) {
        named.problems.push(`the site names it the ${label} winner; the rules give ${describe(expected)}`);
      }
    } else if (shown && decimalToUnits(shown.prize, decimals) !== prize) {
      differences.push(`the ${label} prize is ${unitsToDecimal(prize, decimals)}, the site shows ${shown.prize}`);
    }
  }
  const operations = earliest ? split.operations : 0n;
  const unallocated = total - operations - (earliest ? split.earliest : 0n) - (highest ? split.highest : 0n);
  for (const [label, units, shown] of [
    ["operations", operations, winners.operations],
    ["unallocated", unallocated, winners.unallocated],
  ] as const) {
    if (decimalToUnits(shown, decimals) !== units) {
      differences.push(`${label} is ${unitsToDecimal(units, decimals)} USDC, the site shows ${shown}`);
    }
  }
  const reproduced = outcomes.filter((o) => o.problems.length === 0).length;
  const unpaidDemo = outcomes.filter((o) => o.unpaidDemo).length;
  return {
    outcomes,
    differences,
    demo,
    unpaidDemo,
    reproduced,
    ok: reproduced === outcomes.length && differences.length === 0,
  };
}

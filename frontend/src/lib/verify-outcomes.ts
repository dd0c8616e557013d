/** "Verify every outcome": the checks of verify_challenge.py (docs/protocol.md sections 5 and 6,
 * "What the verifiers check" 1 to 4 and 6), run in the visitor's browser against the site's public
 * API and the configured public RPC node. Nothing here trusts the server: the terms are read from
 * the registry's TermsAnchored log, each payment from the chain, every payment to the treasury that
 * names the challenge is accounted for, each commitment, distance, verdict, winner, prize and payout
 * recomputed. Both implementations are tested on tests/vectors.json. */

import type {
  Challenge,
  Payout,
  PayoutKind,
  RejectedClaim,
  ResolutionException,
  ScoredResponse,
  UnclaimedPayment,
  Winners,
} from "@/lib/verify-outcomes-types";
import { canonicalCoordinates } from "./coordinates";
import { guessCommitment, solutionCommitment, termsSha256 } from "./commitment";
import { formatDateTime } from "./format";
import { decimalToUnits, unitsToDecimal } from "./stake";

/** More than this is for the script: a browser tab holding tens of thousands of rows and chain
 * records is slow and easily closed half-way. */
export const MAX_BROWSER_RESPONSES = 10_000;
/** keccak256("Transfer(address,address,uint256)"): a fixed constant of ERC-20. */
export const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
/** keccak256("TermsAnchored(uint256,bytes32,bytes32,uint64,uint32)"): the registry's event
 * (docs/protocol.md section 6; tests/vectors.json, "anchor"). */
export const TERMS_ANCHORED_TOPIC = "0x2afc2b3441c70212f84379948f78279cc697f578030cb391f6115fd5e3a603e5";
/** EIP-3009, a stake paid by a signed authorization (docs/protocol.md section 2a; tests/vectors.json,
 * "authorization"): keccak256("AuthorizationUsed(address,bytes32)") and
 * keccak256("AuthorizationCanceled(address,bytes32)"), the events the USDC contract emits when an
 * authorization is used or voided. Written in, as verify_challenge.py has them: this module loads no
 * keccak (the vectors test derives them with ethers). */
export const AUTHORIZATION_USED_TOPIC = "0x98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a5";
export const AUTHORIZATION_CANCELED_TOPIC = "0x1cdd46ff242716cdaa72d159d339a485b3438398348d68f09d7c8c0a59353d81";
/** The selector of transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32). */
export const TRANSFER_WITH_AUTHORIZATION_SELECTOR = "e3ee160e";
/** A claim's `paymentMethod` when its stake is paid by authorization. */
export const AUTHORIZATION = "authorization";
/** Blocks per eth_getLogs call of the completeness scan: public nodes refuse wide ranges. */
export const LOG_BLOCK_RANGE = 5_000;
const TRANSFER_SELECTOR = "a9059cbb";
const STAKE_CALLDATA_BYTES = 164;
const PLAIN_TRANSFER_BYTES = 68;
/** The relayed call: the selector and nine ABI words, then Geopoem's challenge word. */
const RELAYED_CALL_BYTES = 292;
const RELAYED_STAKE_BYTES = 324;
const EARTH_RADIUS_M = 6_371_000;
/** The database and this code evaluate the same haversine in different floating-point libraries:
 * distances agree within a millimetre, and a guess that close to the threshold is a tie on which
 * the site's verdict stands (docs/protocol.md section 4). */
export const DISTANCE_TOLERANCE_M = 0.001;
const PAGE_SIZE = 1000;
/** A claim whose payment passes every rule but that reached the site after the challenge's
 * resolution had started: rejected with this code, not counted in the pot, and published in the
 * winners answer's `exceptions`, as is a counted stake whose block left the chain after resolution
 * (kind "reorged"; docs/protocol.md section 5, "Exceptions"; tests/vectors.json, "exceptions"). */
export const AFTER_RESOLUTION = "after_resolution";
export const EXCEPTION_KINDS = [AFTER_RESOLUTION, "reorged"] as const;
/** An exception's `recordedAt` is Unix seconds, a whole number; the last second of the year 9999 is
 * the largest that is still a date (tests/vectors.json, "exceptions", "recordedAt"). */
export const LAST_UNIX_SECOND = 253_402_300_799;

/** An exception's `recordedAt` as the site sent it: Unix seconds, a whole JSON number from 0 to
 * LAST_UNIX_SECOND, or null for anything else (a date string, a fraction, null, true). The site then
 * did not say when in the form the protocol fixes, which the verifier reports as a difference rather
 * than guess at what it meant. */
export function recordedAtSeconds(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= LAST_UNIX_SECOND ? value : null;
}

export interface VerifierConfig {
  rpcUrl: string;
  chainId: number;
  usdcAddress: string;
  treasuryAddress: string;
  /** The terms registry whose TermsAnchored logs hold the terms; null: the site names none. */
  registryAddress?: string | null;
  /** Where the 20 % operations share is paid (the page's `operationsAddress`); null or absent: the
   * site has none and the share is kept in the treasury. */
  operationsAddress?: string | null;
  tokenDecimals: number;
  /** Blocks per eth_getLogs call (LOG_BLOCK_RANGE). */
  logBlockRange?: number;
  /** Blocks a payment must be deep, counting its own (the server's default, 2). */
  confirmations?: number;
  /** JSON-RPC calls per HTTP request. */
  batchSize?: number;
}

/** The steps in the order they run; the page shows "step i of n" and each step's own count. */
export const PHASES = ["anchor", "responses", "claims", "transfers", "chain", "checks"] as const;
export type Phase = (typeof PHASES)[number];
export type Progress = (phase: Phase, done: number, total: number) => void;

/** The challenge's first TermsAnchored log on the registry, decoded. */
export interface ChainAnchor {
  registry: string;
  transactionHash: string;
  blockNumber: number;
  transactionIndex: number;
  logIndex: number;
  /** 64 lowercase hex characters, no 0x. */
  solutionSha256: string;
  termsSha256: string;
  opensAt: number;
  /** Metres; 0 when the challenge has none. */
  proximityThreshold: number;
}

/** A rejected claim's re-checked reason. */
export interface RejectedCheck {
  claim: RejectedClaim;
  /** The first rule of docs/protocol.md section 2 its payment fails, as the chain shows it; null
   * when it passes every rule (a difference). */
  expected: string | null;
  problems: string[];
  /** Whether it is the payer's own claim (its commitment is the one the payment carries, from the
   * sender): only such a claim accounts for a payment. */
  payers: boolean;
  /** A demonstration claim whose made-up hash no chain holds. */
  unpaidDemo?: boolean;
  /** Rejected `after_resolution` and its payment passes every rule: paid in time, claimed after
   * resolution (an exception, not a difference). */
  afterResolution?: boolean;
  /** A claim paid by authorization: the transaction its authorization was used in, as the chain
   * shows it (null: not used), whatever transaction the site shows. */
  usedIn?: string | null;
}

/** A USDC transfer to the treasury whose calldata names the challenge, and how it is accounted for. */
export interface PaymentCheck {
  transactionHash: string;
  logIndex: number;
  blockNumber: number;
  transactionIndex: number;
  blockTimestamp: number | null;
  fromAddress: string;
  amount: string;
  /** "late": by a claim rejected `after_resolution` (an exception). */
  accountedAs: "confirmed" | "rejected" | "late" | "unclaimed" | null;
  /** It would have counted: after the anchor's block, at or after the opening, not after the close. */
  inWindow: boolean;
}

export interface PayoutCheck {
  kind: PayoutKind;
  address: string;
  amount: string;
  transactionHash: string | null;
  state: "paid" | "due" | "kept" | "different";
  problems: string[];
}

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
  /** Differences of the challenge as a whole: the terms and their anchor, the solution commitment,
   * totals, winners, split, and payments not accounted for. */
  differences: string[];
  demo: boolean;
  /** "anchored": the terms were read from the chain. "demo": a demonstration challenge never
   * anchored, nothing is guaranteed (not a difference). "missing": no anchor (a difference). */
  terms: "anchored" | "demo" | "missing";
  anchor: ChainAnchor | null;
  /** Demonstration claims checked off chain only. */
  unpaidDemo: number;
  rejected: RejectedCheck[];
  /** Whether the chain was scanned for every payment naming the challenge (anchored only). */
  completeness: boolean;
  payments: PaymentCheck[];
  payouts: PayoutCheck[];
  /** One line per exception the site published, as checked (docs/protocol.md section 5, "Exceptions"). */
  exceptions: string[];
  /** How many exceptions the winners answer lists. */
  publishedExceptions: number;
  reproduced: number;
  /** Every difference: responses, rejected claims and payouts that differ, and the list above. */
  differenceCount: number;
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

/** A `transfer(address,uint256)` call of 68 or 164 bytes (docs/protocol.md section 2, rule 5), with
 * the Geopoem words when there are; null for anything else. */
export function decodeTransferCalldata(
  data: string,
): (Omit<StakeCalldata, "commitment" | "challengeId" | "timestamp"> & Partial<StakeCalldata>) | null {
  const raw = (data.startsWith("0x") ? data.slice(2) : data).toLowerCase();
  if (raw.length === 2 * STAKE_CALLDATA_BYTES) return decodeStakeCalldata(raw);
  if (raw.length !== 2 * PLAIN_TRANSFER_BYTES || !raw.startsWith(TRANSFER_SELECTOR) || !/^[0-9a-f]*$/.test(raw)) {
    return null;
  }
  if (/[^0]/.test(raw.slice(8, 32))) return null;
  return { recipient: `0x${raw.slice(32, 72)}`, amountUnits: BigInt(`0x${raw.slice(72, 136)}`) };
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

/** A `transferWithAuthorization` call read from a transaction's input (docs/protocol.md section 2a,
 * "The relayed transaction"): whose authorization it uses, and the challenge it names. */
export interface RelayedCall {
  /** The payer, the authorization's `from` (lowercase 0x address). */
  authorizer: string;
  recipient: string;
  amountUnits: bigint;
  validAfter: bigint;
  validBefore: bigint;
  /** 64 lowercase hex characters: Geopoem's guess commitment. */
  nonce: string;
  /** The word after the nine ABI words; null in a bare 292-byte call. */
  challengeId: bigint | null;
}

/** A transferWithAuthorization call of 292 bytes (no challenge word) or 324 (with it); null for
 * another function, another length, an address or `v` word that is not zero-padded (the token's ABI
 * decoder reverts on those), or anything that is not hex. */
export function decodeRelayedCall(data: string): RelayedCall | null {
  const raw = (data.startsWith("0x") ? data.slice(2) : data).toLowerCase();
  if (raw.length !== 2 * RELAYED_CALL_BYTES && raw.length !== 2 * RELAYED_STAKE_BYTES) return null;
  if (!/^[0-9a-f]*$/.test(raw) || !raw.startsWith(TRANSFER_WITH_AUTHORIZATION_SELECTOR)) return null;
  const word = (i: number) => raw.slice(8 + 64 * i, 8 + 64 * (i + 1));
  if (/[^0]/.test(word(0).slice(0, 24)) || /[^0]/.test(word(1).slice(0, 24)) || /[^0]/.test(word(6).slice(0, 62))) {
    return null;
  }
  return {
    authorizer: `0x${word(0).slice(24)}`,
    recipient: `0x${word(1).slice(24)}`,
    amountUnits: BigInt(`0x${word(2)}`),
    validAfter: BigInt(`0x${word(3)}`),
    validBefore: BigInt(`0x${word(4)}`),
    nonce: word(5),
    challengeId: raw.length === 2 * RELAYED_STAKE_BYTES ? BigInt(`0x${word(9)}`) : null,
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

type Position = [number, number, number];

function comparePositions(a: Position, b: Position): number {
  for (let i = 0; i < 3; i++) {
    if (a[i]! !== b[i]!) return a[i]! - b[i]!;
  }
  return 0;
}

/** Which prizes a claim left out of the pot would have taken had it been counted: "earliest" when
 * it is correct and before the earliest winner in chain order (or there is none), "highest" when it
 * is correct and stakes more than the highest winner, or as much and earlier. `earliest` is that
 * winner's chain position, `highest` its stake in units and position; null: no winner. */
export function wouldWin({
  correct,
  stakeUnits,
  position,
  earliest,
  highest,
}: {
  correct: boolean;
  stakeUnits: bigint;
  position: Position;
  earliest: Position | null;
  highest: { stakeUnits: bigint; position: Position } | null;
}): ("earliest" | "highest")[] {
  if (!correct) return [];
  const won: ("earliest" | "highest")[] = [];
  if (earliest === null || comparePositions(position, earliest) < 0) won.push("earliest");
  if (
    highest === null ||
    stakeUnits > highest.stakeUnits ||
    (stakeUnits === highest.stakeUnits && comparePositions(position, highest.position) < 0)
  ) {
    won.push("highest");
  }
  return won;
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
  blockNumber?: string;
  transactionHash?: string;
  transactionIndex?: string;
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

/** The response's own data: canonical text, distance and verdict (by `threshold`: the anchored one
 * when the terms are on chain). */
export function checkOffchain(
  check: OutcomeCheck,
  challenge: Challenge,
  threshold: number = challenge.proximityThreshold ?? 0,
): void {
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

/** The payment against the rules the site applied (docs/protocol.md section 2; section 2a for a
 * stake paid by authorization) and, with the terms on chain, after the anchor's block and at or after
 * the anchored opening time (docs/protocol.md section 6). */
export async function checkOnchain(
  check: OutcomeCheck,
  { tx, receipt, block, head }: ChainRecords,
  challenge: Challenge,
  config: VerifierConfig,
  anchor: ChainAnchor | null = null,
): Promise<void> {
  const { response, problems } = check;
  if (!tx || !receipt) {
    problems.push("the transaction is not on this chain");
    return;
  }
  if (int(receipt.status) !== 1) problems.push("the transaction failed (status 0)");
  const blockNumber = int(receipt.blockNumber);
  const txIndex = int(receipt.transactionIndex);
  if (!block || lower(block.hash) !== lower(receipt.blockHash)) {
    problems.push(`block ${blockNumber} of the receipt is not on the canonical chain`);
  }
  const confirmations = config.confirmations ?? 2;
  if (head - blockNumber + 1 < confirmations) {
    const depth = head - blockNumber + 1;
    problems.push(`only ${depth} confirmation${depth === 1 ? "" : "s"}, fewer than ${confirmations}`);
  }
  if (response.blockNumber !== blockNumber || response.transactionIndex !== txIndex) {
    problems.push(
      `the chain position is block ${blockNumber} index ${txIndex}, ` +
        `the site shows block ${response.blockNumber ?? "none"} index ${response.transactionIndex ?? "none"}`,
    );
  }
  if (anchor && blockNumber <= anchor.blockNumber) {
    problems.push(`mined in block ${blockNumber}, not after the anchor's block ${anchor.blockNumber}`);
  }
  const stakeUnits = decimalToUnits(response.submissionStake, config.tokenDecimals);
  const commitment = await guessCommitment({
    chainId: config.chainId,
    challengeId: challenge.id,
    submitterAddress: response.submitterAddress,
    text: response.submissionText ?? "",
    salt: response.submissionSalt ?? "",
  });
  const paid = { tx, receipt, commitment, stakeUnits, config, problems };
  const logIndex = isAuthorization(response)
    ? authorizationPayment(response, paid)
    : transferPayment(response, challenge, paid);
  check.chainPosition = [blockNumber, txIndex, logIndex ?? response.logIndex ?? 0];
  if (logIndex !== null && logIndex !== response.logIndex) {
    problems.push(`the Transfer is log ${logIndex}, the site shows log ${response.logIndex ?? "none"}`);
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
    if (anchor && mined < anchor.opensAt) {
      problems.push(`mined at ${mined}, before the anchored opening time ${anchor.opensAt}`);
    }
  }
}

interface PaymentRecords {
  tx: RpcTransaction;
  receipt: RpcReceipt;
  commitment: string;
  stakeUnits: bigint | null;
  config: VerifierConfig;
  problems: string[];
}

/** Section 2's rules on a direct transfer: the USDC contract called by the response's address, value
 * 0, the 164-byte stake calldata, and the first Transfer(sender, treasury, stake) the USDC contract
 * emitted. Returns that Transfer's log index, else null. */
function transferPayment(
  response: ScoredResponse,
  challenge: Challenge,
  { tx, receipt, commitment, stakeUnits, config, problems }: PaymentRecords,
): number | null {
  const usdc = lower(config.usdcAddress);
  const treasury = lower(config.treasuryAddress);
  const sender = lower(tx.from);
  const decimals = config.tokenDecimals;
  if (lower(tx.to) !== usdc) problems.push(`paid to contract ${tx.to ?? "none"}, not the USDC contract`);
  if (int(tx.value) !== 0) problems.push("the transaction sent ether as well");
  if (sender !== lower(response.submitterAddress)) {
    problems.push(`sent from ${tx.from ?? "none"}, the site shows ${response.submitterAddress}`);
  }
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
    if (calldata.commitment !== commitment) {
      problems.push("the calldata's commitment is not the commitment of this guess, address and salt");
    }
    if (calldata.challengeId !== BigInt(challenge.id)) {
      problems.push(`the calldata names challenge ${calldata.challengeId}`);
    }
  }
  const relayed = decodeRelayedCall(tx.input ?? "");
  if (relayed && relayed.authorizer === lower(response.submitterAddress) && relayed.nonce === commitment) {
    problems.push(
      "the site shows it paid by transfer, but its transaction uses this guess's authorization: it was paid by " +
        "authorization",
    );
  }
  // The money: the first Transfer(sender, treasury, stake) the USDC contract emitted.
  const log = findTransfer(receipt, { usdc, from: sender, to: treasury, units: stakeUnits });
  if (!log) {
    problems.push(`no USDC Transfer of ${response.submissionStake} from the sender to the treasury`);
    return null;
  }
  return int(log.logIndex);
}

/** Section 2a's rules on a stake paid by authorization: the transaction holds the USDC contract's
 * AuthorizationUsed(address, commitment), and at the next log index the USDC Transfer from that
 * address to the treasury of exactly the stake. Who sent it, and its calldata, do not matter.
 * Returns that Transfer's log index (the published logIndex must be it), else null. */
function authorizationPayment(
  response: ScoredResponse,
  { tx, receipt, commitment, stakeUnits, config, problems }: PaymentRecords,
): number | null {
  const usdc = lower(config.usdcAddress);
  const address = lower(response.submitterAddress);
  const use = authorizationUse(receipt, { usdc, authorizer: address, nonce: commitment });
  if (!use) {
    let problem = `its transaction holds no AuthorizationUsed of ${address} for the commitment of this guess, address and salt`;
    const others = authorizersIn(receipt, usdc);
    if (others.length > 0) problem += ` (it uses the authorization of ${others.join(", ")})`;
    const calldata = decodeStakeCalldata(tx.input ?? "");
    if (calldata && lower(tx.from) === address && calldata.commitment === commitment) {
      problem += "; the site shows it paid by authorization, but it was paid by a direct transfer";
    }
    problems.push(problem);
    return null;
  }
  const transfer = use.transfer;
  if (!transfer || transfer.from !== address) {
    problems.push(`the log after its AuthorizationUsed (log ${use.logIndex}) is not a USDC Transfer from ${address}`);
    return null;
  }
  if (transfer.to !== lower(config.treasuryAddress))
    problems.push(`its Transfer pays ${transfer.to}, not the treasury`);
  if (transfer.units !== stakeUnits) {
    problems.push(
      `its Transfer moves ${unitsToDecimal(transfer.units, config.tokenDecimals)} USDC, the site shows a stake of ` +
        response.submissionStake,
    );
  }
  return transfer.logIndex;
}

// --- The terms on chain (docs/protocol.md section 6) -------------------------------------------

const word = (n: number | bigint | string) =>
  (typeof n === "string" ? n.replace(/^0x/, "") : n.toString(16)).toLowerCase().padStart(64, "0");
const quantity = (n: number) => `0x${n.toString(16)}`;

/** The first Transfer(from, to, units) the USDC contract emitted in a receipt, skipping logs
 * `skip` rejects (a log that already backs another payout): the money, never the calldata alone. */
function findTransfer(
  receipt: RpcReceipt,
  {
    usdc,
    from,
    to,
    units,
    skip = () => false,
  }: { usdc: string; from: string; to: string; units: bigint | null; skip?: (log: RpcLog) => boolean },
): RpcLog | undefined {
  return (receipt.logs ?? []).find(
    (entry) =>
      lower(entry.address) === usdc &&
      !entry.removed &&
      entry.topics?.length === 3 &&
      lower(entry.topics[0]) === TRANSFER_TOPIC &&
      `0x${lower(entry.topics[1]).slice(-40)}` === from &&
      `0x${lower(entry.topics[2]).slice(-40)}` === to &&
      BigInt(entry.data || "0x0") === units &&
      !skip(entry),
  );
}

function logPosition(log: RpcLog): [number, number, number] {
  return [int(log.blockNumber), int(log.transactionIndex), int(log.logIndex)];
}

function compareLogs(a: RpcLog, b: RpcLog): number {
  const [pa, pb] = [logPosition(a), logPosition(b)];
  for (let i = 0; i < 3; i++) {
    if (pa[i]! !== pb[i]!) return pa[i]! - pb[i]!;
  }
  return 0;
}

/** The anchor of a challenge: its first TermsAnchored log on the registry in chain order (the
 * contract refuses a second one; a log from elsewhere or malformed is not an anchor). */
export function firstAnchor(logs: unknown, challengeId: number, registry: string): ChainAnchor | null {
  if (!Array.isArray(logs)) return null;
  const idWord = `0x${word(challengeId)}`;
  const ours = (logs as RpcLog[])
    .filter(
      (log) =>
        !log.removed &&
        lower(log.address) === lower(registry) &&
        lower(log.topics?.[0]) === TERMS_ANCHORED_TOPIC &&
        lower(log.topics?.[1]) === idWord &&
        /^0x[0-9a-fA-F]{256}$/.test(log.data ?? ""),
    )
    .sort(compareLogs);
  const log = ours[0];
  if (!log) return null;
  const data = lower(log.data).slice(2);
  const part = (i: number) => data.slice(64 * i, 64 * (i + 1));
  return {
    registry: lower(log.address),
    transactionHash: lower(log.transactionHash),
    blockNumber: int(log.blockNumber),
    transactionIndex: int(log.transactionIndex),
    logIndex: int(log.logIndex),
    solutionSha256: part(0),
    termsSha256: part(1),
    opensAt: Number(BigInt(`0x${part(2)}`)),
    proximityThreshold: Number(BigInt(`0x${part(3)}`)),
  };
}

/** The site's terms against the anchored ones (check 1): every field the anchor commits. */
async function checkTerms(
  challenge: Challenge,
  anchor: ChainAnchor,
  anchorBlock: RpcBlock | null,
  differences: string[],
): Promise<void> {
  const shown = challenge.anchor ?? null;
  if (!shown) {
    differences.push(
      `the site shows no anchor; the chain has one in block ${anchor.blockNumber} (transaction ${anchor.transactionHash})`,
    );
  } else {
    if (lower(shown.registry) !== anchor.registry) {
      differences.push(`the site names registry ${shown.registry} for the anchor, the page's is ${anchor.registry}`);
    }
    if (lower(shown.transactionHash) !== anchor.transactionHash || shown.blockNumber !== anchor.blockNumber) {
      differences.push(
        `the site shows the anchor in block ${shown.blockNumber} (transaction ${shown.transactionHash}); ` +
          `the chain's first anchor is in block ${anchor.blockNumber} (transaction ${anchor.transactionHash})`,
      );
    }
    const mined = anchorBlock ? int(anchorBlock.timestamp) : null;
    if (mined !== null && shown.blockTimestamp !== mined) {
      differences.push(`the anchor's block time is ${mined}, the site shows ${shown.blockTimestamp}`);
    }
    if (lower(shown.termsSha256) !== anchor.termsSha256) {
      differences.push(`the site shows terms hash ${shown.termsSha256}, the anchor committed ${anchor.termsSha256}`);
    }
  }
  if (lower(challenge.solutionSha256) !== anchor.solutionSha256) {
    differences.push(
      `the site shows solution SHA-256 ${challenge.solutionSha256}, the anchor committed ${anchor.solutionSha256}`,
    );
  }
  const threshold = challenge.proximityThreshold ?? 0;
  if (threshold !== anchor.proximityThreshold) {
    differences.push(
      `the site shows a proximity threshold of ${threshold} m, the anchor committed ${anchor.proximityThreshold} m`,
    );
  }
  if (challenge.startTimestamp !== anchor.opensAt) {
    differences.push(
      `the site shows the opening time ${challenge.startTimestamp ?? "none"}, the anchor committed ${anchor.opensAt}`,
    );
  }
  const terms = await termsSha256({
    challengeId: challenge.id,
    poemTitle: challenge.poemTitle,
    poemText: challenge.poemText,
    instructionsText: challenge.instructionsText,
  });
  if (terms !== anchor.termsSha256) {
    differences.push("the title, poem and instructions the site shows are not the terms the anchor committed");
  }
}

// --- Stakes paid by authorization (docs/protocol.md section 2a) --------------------------------

/** The USDC Transfer a log is, whatever it moves; null for any other log. */
export interface TransferMoved {
  logIndex: number;
  from: string;
  to: string;
  units: bigint;
}

/** An AuthorizationUsed log the USDC contract emitted in a transaction, and the log right after it:
 * FiatToken emits the Transfer that moved the money at the next log index (section 2a, rule 3). */
export interface AuthorizationUse {
  transactionHash: string;
  blockNumber: number;
  transactionIndex: number;
  /** The AuthorizationUsed log's. */
  logIndex: number;
  /** The receipt's. */
  status: number;
  /** The USDC Transfer at logIndex + 1, whatever it moves; null: none there. */
  transfer: TransferMoved | null;
}

function transferMoved(log: RpcLog | undefined, usdc: string): TransferMoved | null {
  if (
    !log ||
    log.removed ||
    lower(log.address) !== usdc ||
    log.topics?.length !== 3 ||
    lower(log.topics[0]) !== TRANSFER_TOPIC
  ) {
    return null;
  }
  return {
    logIndex: int(log.logIndex),
    from: `0x${lower(log.topics[1]).slice(-40)}`,
    to: `0x${lower(log.topics[2]).slice(-40)}`,
    units: BigInt(log.data || "0x0"),
  };
}

/** In a receipt, the AuthorizationUsed(authorizer, nonce) log the USDC contract itself emitted (any
 * contract can emit the event), paired with the USDC Transfer at its log index + 1; null when the
 * receipt holds no such log. Each authorization pairs with its own next log, so a transaction that
 * uses several is read right (tests/vectors.json, "authorization", "pairing"). */
export function authorizationUse(
  receipt: { status?: string; logs?: RpcLog[] } | null | undefined,
  { usdc, authorizer, nonce }: { usdc: string; authorizer: string; nonce: string },
): AuthorizationUse | null {
  const logs = (receipt?.logs ?? []).filter((log) => log.logIndex !== undefined && log.logIndex !== null);
  const wanted = [AUTHORIZATION_USED_TOPIC, `0x${word(lower(authorizer))}`, `0x${word(lower(nonce))}`];
  const used = logs.find(
    (log) =>
      !log.removed &&
      lower(log.address) === lower(usdc) &&
      (log.topics ?? []).length === 3 &&
      wanted.every((topic, i) => lower(log.topics?.[i]) === topic),
  );
  if (!used) return null;
  const index = int(used.logIndex);
  return {
    transactionHash: lower(used.transactionHash),
    blockNumber: int(used.blockNumber),
    transactionIndex: int(used.transactionIndex),
    logIndex: index,
    status: int(receipt?.status),
    transfer: transferMoved(
      logs.find((log) => int(log.logIndex) === index + 1),
      lower(usdc),
    ),
  };
}

/** The authorizers whose AuthorizationUsed the USDC contract emitted in a receipt. */
function authorizersIn(receipt: RpcReceipt | null, usdc: string): string[] {
  return [
    ...new Set(
      (receipt?.logs ?? [])
        .filter(
          (log) =>
            !log.removed &&
            lower(log.address) === usdc &&
            log.topics?.length === 3 &&
            lower(log.topics[0]) === AUTHORIZATION_USED_TOPIC,
        )
        .map((log) => `0x${lower(log.topics?.[1]).slice(-40)}`),
    ),
  ].sort();
}

/** The anchor's block, the anchored opening time and the open window a payment is judged by. */
export interface PaymentWindow {
  anchorBlock: number | null;
  opensAt: number | null;
  start: number | null;
  closed: number | null;
}

/** `early` or `late` for a payment in this block, mined at this time (docs/protocol.md section 2,
 * rule 7, and section 6), else null: as firstFailingRule judges a transfer. */
function windowRule(blockNumber: number, mined: number | null, window: PaymentWindow): string | null {
  if (
    window.anchorBlock !== null &&
    (blockNumber <= window.anchorBlock || mined === null || mined < (window.opensAt ?? 0))
  ) {
    return "early";
  }
  if (
    mined === null ||
    window.start === null ||
    mined < window.start ||
    (window.closed !== null && mined > window.closed)
  ) {
    return "late";
  }
  return null;
}

/** The reason code of the first rule of docs/protocol.md section 2a a stake paid by authorization
 * fails, or null when it passes every rule and had to count (tests/vectors.json, "authorization",
 * "rules"). `use`: its AuthorizationUsed(address, commitment) on chain, paired with the log after it;
 * `mined`: that block's time. Who sent the transaction, and what else it called, do not matter.
 * No use on chain: "authorization_cancelled" when the token emitted AuthorizationCanceled for it,
 * "authorization_expired" when the head's time is at or after `validBefore` (the token accepts it
 * only strictly before), else "not_found" (it could still be used: no rejection is right yet). */
export function authorizationRule({
  use,
  cancelled,
  validBefore,
  headTime,
  address,
  stakeUnits,
  treasury,
  mined,
  window,
}: {
  use: AuthorizationUse | null;
  cancelled: boolean;
  validBefore: number | null;
  headTime: number | null;
  address: string;
  stakeUnits: bigint | null;
  treasury: string;
  mined: number | null;
  window: PaymentWindow;
}): string | null {
  if (!use) {
    if (cancelled) return "authorization_cancelled";
    if (validBefore !== null && headTime !== null && headTime >= validBefore) return "authorization_expired";
    return "not_found";
  }
  if (use.status !== 1) return "tx_failed";
  const transfer = use.transfer;
  if (!transfer || transfer.from !== lower(address)) return "no_transfer_log";
  if (transfer.to !== lower(treasury)) return "wrong_recipient";
  if (stakeUnits === null || transfer.units !== stakeUnits) return "amount_mismatch";
  return windowRule(use.blockNumber, mined, window);
}

/** The fields of docs/protocol.md 3.5 that say how a claim was paid (absent from an older server's
 * answer: a transfer). */
interface PaidBy {
  paymentMethod?: string;
  authorization?: { validBefore?: unknown } | null;
}

/** Whether a claim says its stake was paid by authorization. */
export function isAuthorization(claim: object): boolean {
  return (claim as PaidBy).paymentMethod === AUTHORIZATION;
}

function validBeforeOf(claim: object): number | null {
  const value = (claim as PaidBy).authorization?.validBefore;
  return typeof value === "number" && Number.isInteger(value) ? value : null;
}

/** What the token's logs say of one authorization (the search by its authorizer and nonce). */
interface AuthorizationFound {
  usedIn: string | null;
  cancelled: boolean;
}

function authorizationKey(address: string, commitment: string): string {
  return `${lower(address)}:${lower(commitment)}`;
}

// --- Rejected claims (check 3) ------------------------------------------------------------------

/** The first rule of docs/protocol.md section 2 the claim's payment fails, in the server's order
 * (chain/checks.py, PAYMENT_CHECKS), with the terms' `early` before `late` (docs/protocol.md section 6); null
 * when it passes every rule. No receipt: "not_found" (a dropped transaction: "reorged" too). */
export function firstFailingRule(
  claim: { submitterAddress: string; submissionStake: string },
  commitment: string,
  { tx, receipt, block }: Omit<ChainRecords, "head">,
  challenge: Challenge,
  config: VerifierConfig,
  anchor: ChainAnchor | null,
): string | null {
  if (!receipt || !tx || !block) return "not_found";
  if (int(receipt.status) !== 1) return "tx_failed";
  const usdc = lower(config.usdcAddress);
  const treasury = lower(config.treasuryAddress);
  const input = lower(tx.input).replace(/^0x/, "");
  if (lower(tx.to) !== usdc) {
    return input.startsWith(TRANSFER_SELECTOR) && int(tx.value) === 0 ? "wrong_token" : "unsupported_transaction";
  }
  if (int(tx.value) !== 0) return "unsupported_transaction";
  const sender = lower(tx.from);
  if (sender !== lower(claim.submitterAddress)) return "wrong_sender";
  const decoded = decodeTransferCalldata(input);
  if (!decoded) return "unsupported_transaction";
  if (decoded.recipient !== treasury) return "wrong_recipient";
  const units = decimalToUnits(claim.submissionStake, config.tokenDecimals);
  if (decoded.amountUnits !== units) return "amount_mismatch";
  if (decoded.commitment !== commitment) return "commitment_mismatch";
  if (decoded.challengeId !== BigInt(challenge.id)) return "challenge_mismatch";
  const log = findTransfer(receipt, { usdc, from: sender, to: treasury, units });
  if (!log) return "no_transfer_log";
  const mined = int(block.timestamp);
  if (anchor && (int(receipt.blockNumber) <= anchor.blockNumber || mined < anchor.opensAt)) return "early";
  const start = challenge.startTimestamp;
  const closed = challenge.closedTimestamp ?? null;
  if (start === null || mined < start || (closed !== null && mined > closed)) return "late";
  return null;
}

/** What judging a claim paid by authorization needs besides its own fields: the token's logs of its
 * authorization (the search), the chain's records of any transaction, and the head's time. */
interface AuthorizationContext {
  found: Map<string, AuthorizationFound>;
  recordsOf: (hash: string) => Omit<ChainRecords, "head">;
  headTime: number | null;
}

/** A claim paid by authorization against the chain: its use (where the token's logs say, else in the
 * transaction it names) and the first rule of section 2a it fails. */
function judgeAuthorization(
  claim: { submitterAddress: string; submissionStake: string; transactionHash: string | null },
  commitment: string,
  { found, recordsOf, headTime }: AuthorizationContext,
  challenge: Challenge,
  config: VerifierConfig,
  anchor: ChainAnchor | null,
): { expected: string | null; use: AuthorizationUse | null } {
  const searched = found.get(authorizationKey(claim.submitterAddress, commitment));
  const hash = searched?.usedIn ?? (claim.transactionHash ? lower(claim.transactionHash) : null);
  const records = hash ? recordsOf(hash) : null;
  const use = records
    ? authorizationUse(records.receipt, {
        usdc: lower(config.usdcAddress),
        authorizer: claim.submitterAddress,
        nonce: commitment,
      })
    : null;
  const expected = authorizationRule({
    use,
    cancelled: searched?.cancelled ?? false,
    validBefore: validBeforeOf(claim),
    headTime,
    address: claim.submitterAddress,
    stakeUnits: decimalToUnits(claim.submissionStake, config.tokenDecimals),
    treasury: config.treasuryAddress,
    mined: records?.block ? int(records.block.timestamp) : null,
    window: {
      anchorBlock: anchor?.blockNumber ?? null,
      opensAt: anchor?.opensAt ?? null,
      start: challenge.startTimestamp,
      closed: challenge.closedTimestamp ?? null,
    },
  });
  return { expected, use };
}

async function checkRejected(
  check: RejectedCheck,
  records: Omit<ChainRecords, "head">,
  challenge: Challenge,
  config: VerifierConfig,
  anchor: ChainAnchor | null,
  authorizations: AuthorizationContext,
): Promise<void> {
  const { claim, problems } = check;
  const text = claim.submissionText ?? "";
  if (canonicalCoordinates(text) !== text) problems.push(`the guess "${text}" is not canonical coordinates`);
  if (!claim.submissionSalt) problems.push("the site gives no salt");
  const commitment = await guessCommitment({
    chainId: config.chainId,
    challengeId: challenge.id,
    submitterAddress: claim.submitterAddress,
    text,
    salt: claim.submissionSalt ?? "",
  });
  if (lower(claim.commitment) !== commitment) {
    problems.push("its commitment is not the commitment of its guess, address and salt");
  }
  let expected: string | null;
  let unused = false; // an authorization the chain shows no use of: "reorged" is right too
  if (isAuthorization(claim)) {
    const judged = judgeAuthorization(claim, commitment, authorizations, challenge, config, anchor);
    expected = judged.expected;
    unused = judged.use === null;
    const shown = lower(claim.transactionHash);
    if (judged.use && shown && shown !== judged.use.transactionHash) {
      problems.push(`its authorization was used in transaction ${judged.use.transactionHash}, the site shows ${shown}`);
    }
    // Only the payer signs an authorization: a claim of it whose use is on chain is the payer's own.
    check.payers = judged.use !== null;
    check.usedIn = judged.use?.transactionHash ?? null;
  } else {
    expected = firstFailingRule(claim, commitment, records, challenge, config, anchor);
    const calldata = records.tx ? decodeStakeCalldata(records.tx.input ?? "") : null;
    check.payers = calldata?.commitment === commitment && lower(records.tx?.from) === lower(claim.submitterAddress);
  }
  check.expected = expected;
  const code = claim.rejectionCode;
  if (code === AFTER_RESOLUTION) {
    if (expected === null) check.afterResolution = true;
    else {
      problems.push(
        `rejected "${code}" (paid in time, reached the site after resolution), but the first rule its payment ` +
          `fails is "${expected}": the site mislabelled it`,
      );
    }
  } else if (expected === null) {
    problems.push(`rejected "${code}", but its payment passes every rule`);
  } else if (code !== expected && !(code === "reorged" && (expected === "not_found" || unused))) {
    problems.push(`rejected "${code}", but the first rule its payment fails is "${expected}"`);
  }
}

// --- Exceptions (docs/protocol.md section 5) ----------------------------------------------------

/** What checkOnchain says of a counted response whose payment the chain does not hold (any more). */
const PAYMENT_MISSING = ["the transaction is not on this chain", "of the receipt is not on the canonical chain"];

/** The winners answer's `exceptions` against the claims and the chain. An `after_resolution` one is
 * a claim rejected with that code whose payment passes every rule: reported, not counted. A
 * `reorged` one is a counted response whose block left the chain after resolution: its stake stays
 * in the pot and its missing payment stays a difference, which cites the exception. Anything else
 * an exception names, a `recordedAt` that is not Unix seconds, and a late claim with no exception, is
 * a difference; so is a late claim that would have won, which the chain cannot tell from a winner
 * held back. */
function checkExceptions({
  published,
  rejected,
  outcomes,
  recordsOf,
  solution,
  threshold,
  decimals,
  earliest,
  highest,
  config,
  exceptions,
  differences,
}: {
  published: ResolutionException[];
  rejected: RejectedCheck[];
  outcomes: OutcomeCheck[];
  recordsOf: (hash: string) => Omit<ChainRecords, "head">;
  solution: string;
  threshold: number;
  decimals: number;
  earliest: ScoredResponse | null;
  highest: ScoredResponse | null;
  config: VerifierConfig;
  exceptions: string[];
  differences: string[];
}): void {
  const listed = new Set<number>();
  for (const item of published) {
    const what = `the site's exception for response ${item.responseId} (${lower(item.transactionHash)})`;
    if (!(EXCEPTION_KINDS as readonly string[]).includes(item.kind)) {
      differences.push(`${what}: "${item.kind}" is no kind of exception`);
      continue;
    }
    const late = item.kind === AFTER_RESOLUTION;
    const claim = late
      ? rejected.find((r) => r.claim.id === item.responseId && r.claim.rejectionCode === AFTER_RESOLUTION)?.claim
      : outcomes.find((o) => o.response.id === item.responseId)?.response;
    if (!claim) {
      const named = late ? "claim rejected after_resolution" : "counted response";
      differences.push(`${what}: it is of kind ${item.kind}, but names no ${named}`);
      continue;
    }
    if (
      lower(item.transactionHash) !== lower(claim.transactionHash) ||
      lower(item.submitterAddress) !== lower(claim.submitterAddress) ||
      (decimalToUnits(String(item.submissionStake), decimals) ?? -1n) !==
        decimalToUnits(claim.submissionStake, decimals)
    ) {
      differences.push(
        `${what}: it shows ${item.submissionStake} USDC from ${item.submitterAddress}, the claim ` +
          `${claim.submissionStake} from ${claim.submitterAddress} in ${claim.transactionHash}`,
      );
    }
    // Shown as the page shows every time (lib/format.ts): the visitor's local date and time.
    const seconds = recordedAtSeconds(item.recordedAt);
    const recorded = formatDateTime(seconds, "at an unknown time");
    if (seconds === null) {
      differences.push(`${what}: its recordedAt ${JSON.stringify(item.recordedAt)} is not a time in Unix seconds`);
    }
    if (late) {
      listed.add(claim.id);
      if (rejected.find((r) => r.claim.id === claim.id)?.afterResolution) {
        exceptions.push(
          `Rejected claim ${claim.id} (${claim.transactionHash}): paid in time, but the claim reached this site ` +
            `after the challenge was resolved, so its ${claim.submissionStake} USDC from ${claim.submitterAddress} ` +
            `does not count toward the prizes (recorded ${recorded}).`,
        );
      }
      continue;
    }
    const outcome = outcomes.find((o) => o.response.id === claim.id)!;
    let missing = false;
    outcome.problems = outcome.problems.map((problem) => {
      if (!PAYMENT_MISSING.some((m) => problem.includes(m))) return problem;
      missing = true;
      return `${problem} (the site published this as an exception: its block left the chain after resolution, recorded ${recorded})`;
    });
    exceptions.push(
      `Response ${claim.id} (${claim.transactionHash}): its block left the blockchain after the challenge was ` +
        `resolved (recorded ${recorded}); ` +
        (missing
          ? "its stake still counts toward the prizes, and its payment is missing (a difference)."
          : "its payment is on the blockchain as counted."),
    );
  }
  for (const check of rejected) {
    if (!check.afterResolution) continue;
    const claim = check.claim;
    const name = `rejected claim ${claim.id} (${claim.transactionHash})`;
    if (!listed.has(claim.id)) {
      differences.push(`${name}: rejected after_resolution, but the site's winners answer lists no exception for it`);
    }
    const won = lateClaimWins(check, { recordsOf, solution, threshold, decimals, earliest, highest, config });
    if (won) {
      const instead = won.prizes
        .map((prize) => `the ${prize} prize instead of ${describe(prize === "earliest" ? earliest : highest)}`)
        .join(" and ");
      differences.push(
        `${name}: counted, it would have won ${instead}: its payment was mined in the open window and its guess ` +
          `is correct (${won.distance.toFixed(2)} m). The site says the claim reached it after resolution; the ` +
          "chain cannot tell that from a site holding back a winner",
      );
    }
  }
}

/** The prizes a claim rejected `after_resolution` (its payment passes every rule) would have won
 * had it been counted, by the chain's order and the anchored threshold; null: none. */
function lateClaimWins(
  { claim, usedIn }: RejectedCheck,
  {
    recordsOf,
    solution,
    threshold,
    decimals,
    earliest,
    highest,
    config,
  }: {
    recordsOf: (hash: string) => Omit<ChainRecords, "head">;
    solution: string;
    threshold: number;
    decimals: number;
    earliest: ScoredResponse | null;
    highest: ScoredResponse | null;
    config: VerifierConfig;
  },
): { prizes: ("earliest" | "highest")[]; distance: number } | null {
  const text = claim.submissionText ?? "";
  const { tx, receipt } = recordsOf(usedIn ?? claim.transactionHash ?? "");
  if (canonicalCoordinates(text) !== text || !tx || !receipt) return null;
  const distance = distanceBetween(text, solution);
  const units = decimalToUnits(claim.submissionStake, decimals) ?? 0n;
  const usdc = lower(config.usdcAddress);
  let logIndex = 0;
  if (isAuthorization(claim)) {
    // Its payment passes section 2a's rules (checkRejected): the Transfer right after its use.
    const use = authorizationUse(receipt, { usdc, authorizer: claim.submitterAddress, nonce: claim.commitment });
    if (!use?.transfer) return null;
    logIndex = use.transfer.logIndex;
  } else {
    const log = findTransfer(receipt, { usdc, from: lower(tx.from), to: lower(config.treasuryAddress), units });
    logIndex = log ? int(log.logIndex) : 0;
  }
  const prizes = wouldWin({
    // Within a millimetre of the threshold is a floating-point tie: counted as correct here, so that
    // a possible winner is never left unsaid.
    correct: distance <= threshold + DISTANCE_TOLERANCE_M,
    stakeUnits: units,
    position: [int(receipt.blockNumber), int(receipt.transactionIndex), logIndex],
    earliest: earliest ? position(earliest) : null,
    highest: highest
      ? { stakeUnits: decimalToUnits(highest.submissionStake, decimals) ?? 0n, position: position(highest) }
      : null,
  });
  return prizes.length > 0 ? { prizes, distance } : null;
}

// --- Payouts (check 4) ------------------------------------------------------------------------

/** What the rules give for one payout: its address, its amount, and whether it stays in the treasury
 * (the operations share of a site with no operations address). */
interface PayoutRule {
  address: string;
  units: bigint;
  kept: boolean;
}

function checkPayouts(
  payouts: Payout[] | undefined,
  expected: Map<PayoutKind, PayoutRule>,
  records: Map<string, { receipt: RpcReceipt | null; block: RpcBlock | null }>,
  challenge: Challenge,
  config: VerifierConfig,
  differences: string[],
): PayoutCheck[] {
  const decimals = config.tokenDecimals;
  const usdc = lower(config.usdcAddress);
  const treasury = lower(config.treasuryAddress);
  const used = new Set<string>();
  const checks: PayoutCheck[] = [];
  for (const payout of payouts ?? []) {
    const problems: string[] = [];
    const rule = expected.get(payout.kind);
    const units = decimalToUnits(payout.amount, decimals);
    if (!rule) {
      problems.push(`the rules give no ${payout.kind} prize`);
    } else {
      expected.delete(payout.kind);
      if (lower(payout.address) !== lower(rule.address)) {
        problems.push(`paid to ${payout.address}, the rules give ${rule.address}`);
      }
      if (units !== rule.units) {
        problems.push(`${payout.amount} USDC, the rules give ${unitsToDecimal(rule.units, decimals)}`);
      }
    }
    let state: PayoutCheck["state"] = "due";
    if (payout.status === "kept") {
      state = "kept";
      if (payout.kind !== "operations") problems.push("a prize cannot stay in the treasury");
      else if (rule && !rule.kept)
        problems.push(`kept in the treasury; the rules pay the operations share to ${rule.address}`);
      if (payout.transactionHash)
        problems.push(`kept in the treasury, yet it names transaction ${payout.transactionHash}`);
    } else if (rule?.kept) {
      problems.push(
        `marked ${payout.status}; this site names no operations address, so the share stays in the treasury`,
      );
    } else if (payout.transactionHash) {
      state = "paid";
      const { receipt, block } = records.get(lower(payout.transactionHash)) ?? { receipt: null, block: null };
      if (!receipt || int(receipt.status) !== 1) {
        problems.push(`its transaction ${payout.transactionHash} is not a successful transaction on this chain`);
      } else {
        const log = findTransfer(receipt, {
          usdc,
          from: treasury,
          to: lower(payout.address),
          units,
          skip: (entry) => used.has(`${lower(payout.transactionHash)}:${int(entry.logIndex)}`),
        });
        if (!log) {
          problems.push(
            `its transaction holds no USDC Transfer of ${payout.amount} from the treasury to ${payout.address}`,
          );
        } else {
          used.add(`${lower(payout.transactionHash)}:${int(log.logIndex)}`);
        }
        const mined = block ? int(block.timestamp) : null;
        if (mined === null || challenge.resolvedTimestamp === null || mined < challenge.resolvedTimestamp) {
          problems.push(`paid at ${mined ?? "?"}, before the resolution at ${challenge.resolvedTimestamp ?? "?"}`);
        }
      }
    } else if (payout.status === "paid") {
      problems.push("marked paid, with no transaction");
    }
    checks.push({
      kind: payout.kind,
      address: payout.address,
      amount: payout.amount,
      transactionHash: payout.transactionHash,
      state: problems.length > 0 ? "different" : state,
      problems,
    });
  }
  for (const [kind, rule] of expected) {
    differences.push(`the site lists no ${kind} payout; the rules give ${unitsToDecimal(rule.units, decimals)} USDC`);
  }
  return checks;
}

// --- Reading -----------------------------------------------------------------------------------

async function readPages<T>(
  fetchImpl: Fetch,
  first: string,
  onPage: (rows: number) => void,
  signal?: AbortSignal,
): Promise<T[]> {
  const rows: T[] = [];
  const base = globalThis.location?.href ?? "http://localhost/";
  let url: string | null = first;
  while (url) {
    const page: { body: T[]; link: string } = await getJson<T[]>(fetchImpl, url, signal);
    rows.push(...page.body);
    onPage(rows.length);
    url = nextPath(page.link, base);
  }
  return rows;
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
  const batchSize = config.batchSize ?? 100;
  const differences: string[] = [];
  const id = challenge.id;
  const registry = config.registryAddress ? lower(config.registryAddress) : null;
  const useChain = Boolean(config.rpcUrl);
  if (!useChain && !challenge.isDemo) throw new VerificationUnavailable("This site has no public RPC node configured.");
  const rpc = (calls: RpcCall[], onProgress?: (done: number) => void) =>
    rpcBatch(fetchImpl, config.rpcUrl, calls, { batchSize, signal, ...(onProgress ? { onProgress } : {}) });

  // 1. The anchor: the first TermsAnchored log of the challenge on the registry.
  progress("anchor", 0, 1);
  let head = 0;
  let anchor: ChainAnchor | null = null;
  if (useChain) {
    const [chainIdHex, headHex, logs] = await rpc([
      { method: "eth_chainId", params: [] },
      { method: "eth_blockNumber", params: [] },
      ...(registry
        ? [
            {
              method: "eth_getLogs",
              params: [
                {
                  address: registry,
                  topics: [TERMS_ANCHORED_TOPIC, `0x${word(id)}`],
                  fromBlock: "0x0",
                  toBlock: "latest",
                },
              ],
            },
          ]
        : []),
    ]);
    if (int(chainIdHex) !== config.chainId) {
      throw new VerificationUnavailable(`The RPC node is on chain ${int(chainIdHex)}, the site on ${config.chainId}.`);
    }
    head = int(headHex);
    anchor = registry ? firstAnchor(logs, id, registry) : null;
  }
  progress("anchor", 1, 1);
  const terms: VerificationReport["terms"] = anchor ? "anchored" : challenge.isDemo ? "demo" : "missing";
  if (terms === "missing") {
    differences.push(
      registry
        ? `the terms of this challenge were never committed on chain: registry ${registry} holds no anchor for it`
        : "this site names no terms registry, so the terms of this challenge cannot be read from the chain",
    );
  }
  if (!anchor && challenge.anchor) {
    differences.push(
      `the site shows an anchor in block ${challenge.anchor.blockNumber} (transaction ${challenge.anchor.transactionHash}) that the chain does not hold`,
    );
  }
  // An anchored challenge is checked in full whatever isDemo says.
  const demo = challenge.isDemo && !anchor;

  const solution = challenge.solutionReveal ?? "";
  const opened = await solutionCommitment({ challengeId: id, text: solution, salt: challenge.solutionSalt ?? "" });
  if (anchor) {
    if (opened !== anchor.solutionSha256) {
      differences.push("the revealed solution and salt do not open the solution commitment anchored on chain");
    }
  } else if (opened !== challenge.solutionSha256.toLowerCase()) {
    differences.push("the revealed solution and salt do not hash to the published solution SHA-256");
  }
  if (canonicalCoordinates(solution) !== solution) {
    throw new VerificationUnavailable(`The revealed solution "${solution}" is not canonical coordinates.`);
  }
  const threshold = anchor ? anchor.proximityThreshold : (challenge.proximityThreshold ?? 0);

  // The site's lists: confirmed responses, rejected claims, unclaimed payments, winners and payouts.
  progress("responses", 0, challenge.responseCount);
  const rows = await readPages<ScoredResponse>(
    fetchImpl,
    `/api/responses?challengeId=${id}&limit=${PAGE_SIZE}`,
    (n) => progress("responses", n, Math.max(challenge.responseCount, n)),
    signal,
  );
  const outcomes: OutcomeCheck[] = rows.map((response) => ({ response, problems: [], distance: null, correct: null }));
  outcomes.forEach((check) => checkOffchain(check, challenge, threshold));
  const claimsTotal = 3;
  progress("claims", 0, claimsTotal);
  const rejectedRows = await readPages<RejectedClaim>(
    fetchImpl,
    `/api/responses?challengeId=${id}&status=rejected&limit=${PAGE_SIZE}`,
    () => {},
    signal,
  );
  progress("claims", 1, claimsTotal);
  // Paged like the response lists (limit and a Link header): a long list is read to its end.
  const unclaimed = await readPages<UnclaimedPayment>(
    fetchImpl,
    `/api/challenges/${id}/unclaimed?limit=${PAGE_SIZE}`,
    () => {},
    signal,
  );
  progress("claims", 2, claimsTotal);
  const { body: winners } = await getJson<Winners>(fetchImpl, `/api/challenges/${id}/winners`, signal);
  progress("claims", 3, claimsTotal);

  // 3. Every USDC Transfer to the treasury from the anchor's block to the head, in block ranges.
  const transfers: RpcLog[] = [];
  if (anchor) {
    const range = config.logBlockRange ?? LOG_BLOCK_RANGE;
    const calls: RpcCall[] = [];
    for (let from = anchor.blockNumber; from <= head; from += range) {
      calls.push({
        method: "eth_getLogs",
        params: [
          {
            address: lower(config.usdcAddress),
            topics: [TRANSFER_TOPIC, null, `0x${word(lower(config.treasuryAddress))}`],
            fromBlock: quantity(from),
            toBlock: quantity(Math.min(head, from + range - 1)),
          },
        ],
      });
    }
    const blocksTotal = Math.max(head - anchor.blockNumber + 1, 0);
    progress("transfers", 0, blocksTotal);
    const answers = await rpc(calls, (done) => progress("transfers", Math.min(blocksTotal, done * range), blocksTotal));
    const usdc = lower(config.usdcAddress);
    const treasury = `0x${lower(config.treasuryAddress).replace(/^0x/, "")}`;
    for (const answer of answers) {
      for (const log of Array.isArray(answer) ? (answer as RpcLog[]) : []) {
        if (
          !log.removed &&
          lower(log.address) === usdc &&
          lower(log.topics?.[0]) === TRANSFER_TOPIC &&
          `0x${lower(log.topics?.[2]).slice(-40)}` === treasury
        ) {
          transfers.push(log);
        }
      }
    }
    transfers.sort(compareLogs);
  }

  // Each rejected claim paid by authorization is judged by the token's own logs of its authorization:
  // used (where), cancelled, or neither. One eth_getLogs per claim, both events at once, from block 0
  // as for the anchor: the topics name one authorization, which the token uses or voids once.
  const found = new Map<string, AuthorizationFound>();
  const searched: { address: string; commitment: string }[] = [];
  for (const claim of rejectedRows) {
    if (!isAuthorization(claim)) continue;
    const commitment = await guessCommitment({
      chainId: config.chainId,
      challengeId: id,
      submitterAddress: claim.submitterAddress,
      text: claim.submissionText ?? "",
      salt: claim.submissionSalt ?? "",
    });
    searched.push({ address: claim.submitterAddress, commitment });
  }
  if (useChain && searched.length > 0) {
    const usdc = lower(config.usdcAddress);
    const answers = await rpc(
      searched.map(({ address, commitment }) => ({
        method: "eth_getLogs",
        params: [
          {
            address: usdc,
            topics: [
              [AUTHORIZATION_USED_TOPIC, AUTHORIZATION_CANCELED_TOPIC],
              `0x${word(lower(address))}`,
              `0x${commitment}`,
            ],
            fromBlock: "0x0",
            toBlock: quantity(head),
          },
        ],
      })),
    );
    searched.forEach(({ address, commitment }, i) => {
      const answer = answers[i];
      const logs = (Array.isArray(answer) ? (answer as RpcLog[]) : []).filter(
        (log) => !log.removed && lower(log.address) === usdc,
      );
      const used = logs.find((log) => lower(log.topics?.[0]) === AUTHORIZATION_USED_TOPIC);
      found.set(authorizationKey(address, commitment), {
        usedIn: used ? lower(used.transactionHash) : null,
        cancelled: logs.some((log) => lower(log.topics?.[0]) === AUTHORIZATION_CANCELED_TOPIC),
      });
    });
  }

  // The chain's records of every transaction concerned, in batches.
  const payoutHashes = (winners.payouts ?? []).flatMap((p) => (p.transactionHash ? [lower(p.transactionHash)] : []));
  const hashes = [
    ...new Set([
      ...rows.map((r) => lower(r.transactionHash)),
      ...rejectedRows.flatMap((r) => (r.transactionHash ? [lower(r.transactionHash)] : [])),
      ...[...found.values()].flatMap((f) => (f.usedIn ? [f.usedIn] : [])),
      ...transfers.map((log) => lower(log.transactionHash)),
      ...payoutHashes,
    ]),
  ];
  const txs = new Map<string, RpcTransaction | null>();
  const receipts = new Map<string, RpcReceipt | null>();
  const blocks = new Map<number, RpcBlock | null>();
  if (useChain && hashes.length > 0) {
    const calls: RpcCall[] = hashes.flatMap((hash) => [
      { method: "eth_getTransactionByHash", params: [hash] },
      { method: "eth_getTransactionReceipt", params: [hash] },
    ]);
    progress("chain", 0, calls.length);
    const answers = await rpc(calls, (done) => progress("chain", done, calls.length));
    hashes.forEach((hash, i) => {
      txs.set(hash, (answers[2 * i] as RpcTransaction | null) ?? null);
      receipts.set(hash, (answers[2 * i + 1] as RpcReceipt | null) ?? null);
    });
  }
  const numbers = [
    ...new Set([
      ...[...receipts.values()].flatMap((r) => (r ? [int(r.blockNumber)] : [])),
      ...transfers.map((log) => int(log.blockNumber)),
      ...(anchor ? [anchor.blockNumber] : []),
      head,
    ]),
  ];
  if (useChain && numbers.length > 0) {
    const blockAnswers = await rpc(
      numbers.map((n) => ({ method: "eth_getBlockByNumber", params: [quantity(n), false] })),
    );
    numbers.forEach((n, i) => blocks.set(n, (blockAnswers[i] as RpcBlock | null) ?? null));
  }
  const recordsOf = (hash: string) => {
    const receipt = receipts.get(lower(hash)) ?? null;
    return {
      tx: txs.get(lower(hash)) ?? null,
      receipt,
      block: receipt ? (blocks.get(int(receipt.blockNumber)) ?? null) : null,
    };
  };
  const headBlock = useChain ? (blocks.get(head) ?? null) : null;
  const authorizations: AuthorizationContext = {
    found,
    recordsOf,
    headTime: headBlock ? int(headBlock.timestamp) : null,
  };

  if (anchor) await checkTerms(challenge, anchor, blocks.get(anchor.blockNumber) ?? null, differences);

  // 2. Every counted stake. A demonstration challenge never anchored comes with seeded claims whose
  // made-up hashes no chain holds: those are checked off chain only. Any claim the chain does hold
  // is checked in full.
  const checksTotal = outcomes.length + rejectedRows.length + transfers.length;
  for (const [i, check] of outcomes.entries()) {
    const records = recordsOf(check.response.transactionHash);
    if (demo && !records.receipt && !records.tx) {
      check.unpaidDemo = true;
    } else {
      await checkOnchain(check, { ...records, head }, challenge, config, anchor);
    }
    if (i % 500 === 499 || i === outcomes.length - 1) progress("checks", i + 1, checksTotal);
  }
  // A transaction backs one stake by transfer; one that uses several authorizations backs one stake
  // per authorization, each by its own Transfer log.
  const seen = new Map<string, OutcomeCheck>();
  const countedHashes = new Set<string>();
  for (const check of outcomes) {
    const hash = lower(check.response.transactionHash);
    countedHashes.add(hash);
    const byAuthorization = isAuthorization(check.response);
    const key = byAuthorization ? `${hash}:${check.chainPosition?.[2] ?? check.response.logIndex}` : hash;
    const first = seen.get(key);
    if (first) {
      check.problems.push(
        `its ${byAuthorization ? "Transfer" : "transaction"} also backs response ${first.response.id}`,
      );
    } else seen.set(key, check);
  }

  // 3. Rejected claims, their reasons re-checked.
  const rejected: RejectedCheck[] = [];
  for (const claim of rejectedRows) {
    const check: RejectedCheck = { claim, expected: null, problems: [], payers: false };
    const records = recordsOf(claim.transactionHash ?? "");
    if (demo && !isAuthorization(claim) && !records.receipt && !records.tx) check.unpaidDemo = true;
    else await checkRejected(check, records, challenge, config, anchor, authorizations);
    rejected.push(check);
  }
  progress("checks", outcomes.length + rejected.length, checksTotal);

  // 3. Completeness: each payment naming the challenge is counted, rejected with its rechecked
  // reason by the payer's own claim, or listed unclaimed.
  const payments: PaymentCheck[] = [];
  const paymentByHash = new Map<string, PaymentCheck>();
  const relayedPayments = new Set<string>();
  for (const log of transfers) {
    const hash = lower(log.transactionHash);
    if (paymentByHash.has(hash)) continue; // a transaction is one payment: its first Transfer
    const tx = txs.get(hash);
    if (!tx) throw new VerificationUnavailable(`The RPC node did not return transaction ${hash}.`);
    // It names the challenge when it calls the USDC contract directly with a stake transfer's 164
    // bytes or a relayed authorization's 324 (docs/protocol.md section 2a), this challenge's id in
    // the challenge word. A bare 292-byte call, or one made through another contract, names none.
    if (lower(tx.to) !== lower(config.usdcAddress)) continue;
    const relayed = decodeRelayedCall(tx.input ?? "");
    if (decodeStakeCalldata(tx.input ?? "")?.challengeId !== BigInt(id) && relayed?.challengeId !== BigInt(id)) {
      continue;
    }
    const block = blocks.get(int(log.blockNumber)) ?? null;
    const mined = block ? int(block.timestamp) : null;
    const closed = challenge.closedTimestamp ?? null;
    const payment: PaymentCheck = {
      transactionHash: hash,
      logIndex: int(log.logIndex),
      blockNumber: int(log.blockNumber),
      transactionIndex: int(log.transactionIndex),
      blockTimestamp: mined,
      fromAddress: `0x${lower(log.topics?.[1]).slice(-40)}`,
      amount: unitsToDecimal(BigInt(log.data || "0x0"), decimals),
      accountedAs: null,
      inWindow:
        anchor !== null &&
        mined !== null &&
        int(log.blockNumber) > anchor.blockNumber &&
        mined >= anchor.opensAt &&
        challenge.startTimestamp !== null &&
        mined >= challenge.startTimestamp &&
        (closed === null || mined <= closed),
    };
    paymentByHash.set(hash, payment);
    payments.push(payment);
    if (relayed) relayedPayments.add(hash);
  }
  const unclaimedByHash = new Map(unclaimed.map((u) => [lower(u.transactionHash), u]));
  for (const payment of payments) {
    const hash = payment.transactionHash;
    const listed = unclaimedByHash.get(hash);
    // A claim paid by authorization names its payment by the transaction its authorization was used
    // in, as the chain shows it, whatever transaction the site shows (there may be none).
    const names = (r: RejectedCheck) =>
      relayedPayments.has(hash) && isAuthorization(r.claim)
        ? r.usedIn === hash
        : lower(r.claim.transactionHash) === hash;
    if (countedHashes.has(hash)) {
      payment.accountedAs = "confirmed";
      if (listed) {
        const counted = outcomes.find((o) => lower(o.response.transactionHash) === hash)!;
        differences.push(`payment ${hash} is listed unclaimed, but ${describe(counted.response)} counts it`);
      }
    } else if (rejected.some((r) => names(r) && r.claim.rejectionCode === AFTER_RESOLUTION)) {
      payment.accountedAs = "late"; // its claim's code, if wrong, is that claim's difference
    } else if (rejected.some((r) => names(r) && r.payers)) {
      // The payer's own claim (its reason, if wrong, is that claim's difference).
      payment.accountedAs = "rejected";
    } else if (listed) {
      payment.accountedAs = "unclaimed";
      const amount = decimalToUnits(listed.amount, decimals);
      if (
        listed.logIndex !== payment.logIndex ||
        listed.blockNumber !== payment.blockNumber ||
        lower(listed.fromAddress) !== payment.fromAddress ||
        amount !== decimalToUnits(payment.amount, decimals)
      ) {
        differences.push(
          `unclaimed payment ${hash} is listed as ${listed.amount} USDC from ${listed.fromAddress} in block ` +
            `${listed.blockNumber} log ${listed.logIndex}; the chain has ${payment.amount} USDC from ` +
            `${payment.fromAddress} in block ${payment.blockNumber} log ${payment.logIndex}`,
        );
      }
    } else if (payment.inWindow) {
      differences.push(
        `payment ${hash} (${payment.amount} USDC from ${payment.fromAddress}, block ${payment.blockNumber}) names ` +
          "this challenge and was made while it was open, but it is not counted, not rejected and not listed unclaimed",
      );
    }
  }
  if (anchor) {
    for (const listed of unclaimed) {
      if (!paymentByHash.has(lower(listed.transactionHash))) {
        differences.push(
          `unclaimed payment ${listed.transactionHash} is listed, but the chain has no USDC transfer to the treasury ` +
            "naming this challenge in it",
        );
      }
    }
  }
  progress("checks", checksTotal, checksTotal);

  // The challenge as a whole.
  const total = rows.reduce((sum, r) => sum + (decimalToUnits(r.submissionStake, decimals) ?? 0n), 0n);
  if (total !== decimalToUnits(challenge.stakedSum, decimals) || rows.length !== challenge.responseCount) {
    differences.push(
      `${rows.length} responses stake ${unitsToDecimal(total, decimals)} USDC; the site shows ` +
        `${challenge.responseCount} staking ${challenge.stakedSum}`,
    );
  }
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

  // 4. Payouts: the rules' address and amount, and a recorded transaction that moved exactly that.
  const expectedPayouts = new Map<PayoutKind, PayoutRule>();
  if (earliest && highest) {
    const winner = (r: ScoredResponse, units: bigint) => ({ address: r.submitterAddress, units, kept: false });
    expectedPayouts.set("earliest", winner(earliest, split.earliest));
    expectedPayouts.set("highest", winner(highest, split.highest));
    // operationsAddress null: the share stays in the treasury (docs/decisions.md, "Payouts the page checks").
    const operationsAddress = config.operationsAddress ? lower(config.operationsAddress) : null;
    expectedPayouts.set("operations", {
      address: operationsAddress ?? lower(config.treasuryAddress),
      units: split.operations,
      kept: operationsAddress === null,
    });
  }
  const payoutRecords = new Map(payoutHashes.map((hash) => [hash, recordsOf(hash)]));
  const payouts = checkPayouts(winners.payouts, expectedPayouts, payoutRecords, challenge, config, differences);

  // The exceptions the site published, against the claims and the chain.
  // Read as the site sent it: an answer without the list, or with an entry that is no object, is
  // taken as listing none there (a claim rejected after_resolution then differs).
  const listedExceptions: unknown = winners.exceptions;
  const published = (Array.isArray(listedExceptions) ? listedExceptions : []).filter(
    (e): e is ResolutionException => typeof e === "object" && e !== null,
  );
  const exceptions: string[] = [];
  if (useChain && !demo) {
    checkExceptions({
      published,
      rejected,
      outcomes,
      recordsOf,
      solution,
      threshold,
      decimals,
      earliest,
      highest,
      config,
      exceptions,
      differences,
    });
  } else if (published.length > 0) {
    exceptions.push(`${published.length} exceptions published: not re-checked (no chain to read)`);
  }

  const reproduced = outcomes.filter((o) => o.problems.length === 0).length;
  const unpaidDemo = outcomes.filter((o) => o.unpaidDemo).length;
  const differenceCount =
    outcomes.length -
    reproduced +
    rejected.filter((r) => r.problems.length > 0).length +
    payouts.filter((p) => p.state === "different").length +
    differences.length;
  return {
    outcomes,
    differences,
    demo: challenge.isDemo,
    terms,
    anchor,
    unpaidDemo,
    rejected,
    completeness: anchor !== null,
    payments,
    payouts,
    exceptions,
    publishedExceptions: published.length,
    reproduced,
    differenceCount,
    ok: differenceCount === 0,
  };
}

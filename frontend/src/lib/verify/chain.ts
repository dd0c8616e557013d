/** The pot's events and views, decoded by hand (docs/protocol.md section 2, "Events and views"), as
 * verify_challenge.py decodes them: every event of the challenge from the pot's deploy block, in block
 * ranges (a node that refuses a range gets halves of it), and stateOf, termsOf and shareReceiver at
 * the same head block. The keccak values are written in; verify.test.ts pins them to the signatures. */
import { type Progress, Refused, type Rpc, Unavailable } from "./read";

export const EVENT_TOPICS: Readonly<Record<string, EventName>> = {
  "0xec13f0279bd421a282b12f0394e082aa9ad13c67a2f46552b0122064eb445f97": "Opened",
  "0x08c6626f6915d842ad68a05223a08328eefbfddaede2e30c549b922398371710": "Staked",
  "0xafd4bbe90ac1fa809a0dfd6470e10c8e3392720a11842b223ba4b45c4e16c117": "SolutionRevealed",
  "0xf112814c4a9f3dd844380289e03edbdf93316f3e6bbdbad6eec144ec60782b78": "GuessRevealed",
  "0x405f1a04d80bf0b461328081d00a8ce9cbddf73dff58ce6d19db0cf087e9d154": "Finalized",
  "0x9f777629478be3b0998eab401d2606e8b3ac41e303df6a1d13f5f1cdf48ce29f": "Paid",
  "0xd2d9b772c232c2b1ce0b75dc3362483af5cea3390968eae021a01089b33c8d5a": "Refunded",
};
export const STATE_OF = "0x131a7e24"; // stateOf(uint256)
export const TERMS_OF = "0xbadc2dff"; // termsOf(uint256)
export const SHARE_RECEIVER = "0xa8ba5c3c"; // shareReceiver()
export const LOG_RANGE = 10_000;

export type EventName = "Opened" | "Staked" | "SolutionRevealed" | "GuessRevealed" | "Finalized" | "Paid" | "Refunded";

/** GeopoemPot.Terms; hashes are 64 lowercase hex digits without 0x. */
export interface Terms {
  solutionCommitment: string;
  termsHash: string;
  thresholdM: bigint;
  opensAt: bigint;
  closesAt: bigint;
  solutionDeadline: bigint;
  guessWindow: bigint;
  minStake: bigint;
  bond: bigint;
}

interface EventBase {
  block: number;
  logIndex: number;
  tx: string;
  time: bigint | null;
}

/** One event of the pot; addresses lowercase, bytes32 as hex without 0x, sequences as numbers (the
 * pot keeps them in 32 bits). */
export type PotEvent = EventBase &
  (
    | { name: "Opened"; args: { terms: Terms; digest: string } }
    | { name: "Staked"; args: { payer: string; seq: number; amount: bigint; commitment: string } }
    | { name: "SolutionRevealed"; args: { lat: bigint; lon: bigint; salt: string; guessDeadline: bigint } }
    | { name: "GuessRevealed"; args: { payer: string; seq: number; lat: bigint; lon: bigint; correct: boolean } }
    | {
        name: "Finalized";
        args: { earliest: number; highest: number; earliestPrize: bigint; highestPrize: bigint; share: bigint };
      }
    | { name: "Paid"; args: { kind: number; to: string; amount: bigint } }
    | { name: "Refunded"; args: { payer: string; seq: number; stake: bigint; bondShare: bigint } }
  );

export type EventOf<N extends EventName> = Extract<PotEvent, { name: N }>;

export const STATE_FIELDS = [
  "stakeCount",
  "pot",
  "guessDeadline",
  "earliestSeq",
  "highestSeq",
  "highestAmount",
  "finalized",
  "earliestPaid",
  "highestPaid",
  "sharePaid",
  "aborted",
  "refundedStake",
  "refundedBond",
  "thresholdChordSq",
] as const;
export type State = Record<(typeof STATE_FIELDS)[number], bigint>;

/** What the node says of the challenge at one head block. `state` is null when there is no contract
 * at the address. */
export interface Chain {
  head: number;
  headTime: bigint;
  events: PotEvent[];
  state: State | null;
  terms: Terms | null;
  digest: string;
  shareReceiver: string;
}

const words = (data: string): string[] => data.replace(/^0x/, "").match(/.{64}/g) ?? [];
const uint = (word: string): bigint => BigInt(`0x${word}`);
const int = (word: string): bigint => {
  const value = uint(word);
  return value >= 1n << 255n ? value - (1n << 256n) : value;
};
const address = (word: string): string => `0x${word.slice(-40).toLowerCase()}`;
const quantity = (value: unknown): number => Number(BigInt(String(value)));
export const uintWord = (value: bigint | number): string => BigInt(value).toString(16).padStart(64, "0");

export function decodeTerms(w: string[]): Terms {
  const [solutionCommitment = "", termsHash = "", ...rest] = w;
  const [thresholdM, opensAt, closesAt, solutionDeadline, guessWindow, minStake, bond] = rest.slice(0, 7).map(uint);
  return {
    solutionCommitment,
    termsHash,
    thresholdM: thresholdM!,
    opensAt: opensAt!,
    closesAt: closesAt!,
    solutionDeadline: solutionDeadline!,
    guessWindow: guessWindow!,
    minStake: minStake!,
    bond: bond!,
  };
}

function decodeArgs(name: EventName, topics: string[], w: string[]): PotEvent["args"] {
  const topic = (i: number) => topics[i] ?? "";
  const at = (i: number) => w[i] ?? "";
  const seq = () => Number(uint(at(0)));
  switch (name) {
    case "Opened":
      return { terms: decodeTerms(w), digest: at(9) };
    case "Staked":
      return { payer: address(topic(2)), seq: seq(), amount: uint(at(1)), commitment: at(2) };
    case "SolutionRevealed":
      return { lat: int(at(0)), lon: int(at(1)), salt: at(2), guessDeadline: uint(at(3)) };
    case "GuessRevealed":
      return { payer: address(topic(2)), seq: seq(), lat: int(at(1)), lon: int(at(2)), correct: uint(at(3)) !== 0n };
    case "Finalized":
      return {
        earliest: Number(uint(at(0))),
        highest: Number(uint(at(1))),
        earliestPrize: uint(at(2)),
        highestPrize: uint(at(3)),
        share: uint(at(4)),
      };
    case "Paid":
      return { kind: Number(uint(topic(2))), to: address(topic(3)), amount: uint(at(0)) };
    case "Refunded":
      return { payer: address(topic(2)), seq: seq(), stake: uint(at(1)), bondShare: uint(at(2)) };
  }
}

interface RpcLog {
  topics?: string[];
  data?: string;
  removed?: boolean;
  blockNumber: string;
  logIndex: string;
  transactionHash?: string;
  blockTimestamp?: string;
}

/** The pot's event a log records, or null for any other. */
export function decodeEvent(log: RpcLog): PotEvent | null {
  // Topics as words: 64 hex digits without 0x.
  const topics = (log.topics ?? []).map((t) => t.toLowerCase().replace(/^0x/, ""));
  const name = topics[0] ? EVENT_TOPICS[`0x${topics[0]}`] : undefined;
  if (!name || log.removed) return null;
  return {
    name,
    block: quantity(log.blockNumber),
    logIndex: quantity(log.logIndex),
    tx: (log.transactionHash ?? "").toLowerCase(),
    time: log.blockTimestamp !== undefined ? BigInt(log.blockTimestamp) : null,
    args: decodeArgs(name, topics, words(log.data ?? "0x")),
  } as PotEvent;
}

interface ScanInput {
  pot: string;
  challengeId: number;
  first: number;
  last: number;
  step: number;
  progress: Progress;
}

/** Every log of the pot naming the challenge (topic 1), a batch of block ranges per request; when the
 * node refuses, halves of them. */
export async function scanLogs(rpc: Rpc, input: ScanInput): Promise<RpcLog[]> {
  const topics = [Object.keys(EVENT_TOPICS), `0x${uintWord(input.challengeId)}`];
  const logs: RpcLog[] = [];
  let start = input.first;
  let step = Math.max(1, input.step);
  const span = Math.max(1, input.last - input.first + 1);
  while (start <= input.last) {
    const ranges: [number, number][] = [];
    for (let begin = start; begin <= input.last && ranges.length < rpc.batch; begin += step) {
      ranges.push([begin, Math.min(input.last, begin + step - 1)]);
    }
    const calls = ranges.map(([a, b]): [string, unknown[]] => [
      "eth_getLogs",
      [{ address: input.pot, topics, fromBlock: `0x${a.toString(16)}`, toBlock: `0x${b.toString(16)}` }],
    ]);
    let answers: unknown[];
    try {
      answers = await rpc.many(calls);
    } catch (error) {
      if (!(error instanceof Refused) || step === 1) throw error;
      step = Math.max(1, Math.floor(step / 2));
      continue;
    }
    for (const answer of answers) if (Array.isArray(answer)) logs.push(...(answer as RpcLog[]));
    start = ranges[ranges.length - 1]![1] + 1;
    input.progress("events", start - input.first, span);
  }
  return logs;
}

/** Block times where the node's logs do not carry them. */
async function timeEvents(rpc: Rpc, events: PotEvent[]): Promise<void> {
  const untimed = [...new Set(events.filter((e) => e.time === null).map((e) => e.block))];
  if (untimed.length === 0) return;
  const blocks = await rpc.many(untimed.map((n) => ["eth_getBlockByNumber", [`0x${n.toString(16)}`, false]]));
  const times = new Map(untimed.map((n, i) => [n, (blocks[i] as { timestamp?: string } | null)?.timestamp]));
  for (const event of events) {
    const time = times.get(event.block);
    if (event.time === null && time !== undefined) event.time = BigInt(time);
  }
}

export async function readChain(
  rpc: Rpc,
  input: { pot: string; challengeId: number; fromBlock: number; logRange: number; progress: Progress },
): Promise<Chain> {
  const head = (await rpc.call("eth_getBlockByNumber", ["latest", false])) as {
    number: string;
    timestamp: string;
  } | null;
  if (!head) throw new Unavailable("the node has no latest block");
  const chain: Chain = {
    head: quantity(head.number),
    headTime: BigInt(head.timestamp),
    events: [],
    state: null,
    terms: null,
    digest: "",
    shareReceiver: "",
  };
  const at = `0x${chain.head.toString(16)}`;
  const code = await rpc.call("eth_getCode", [input.pot, at]);
  if (code === null || code === "0x" || code === "0x0") return chain;
  const logs = await scanLogs(rpc, { ...input, first: input.fromBlock, last: chain.head, step: input.logRange });
  chain.events = logs
    .map(decodeEvent)
    .filter((e): e is PotEvent => e !== null)
    .sort((a, b) => a.block - b.block || a.logIndex - b.logIndex);
  await timeEvents(rpc, chain.events);
  input.progress("views", 0, 1);
  const id = uintWord(input.challengeId);
  const [state, terms, receiver] = (await rpc.many([
    ["eth_call", [{ to: input.pot, data: STATE_OF + id }, at]],
    ["eth_call", [{ to: input.pot, data: TERMS_OF + id }, at]],
    ["eth_call", [{ to: input.pot, data: SHARE_RECEIVER }, at]],
  ])) as string[];
  const stateWords = words(state ?? "");
  const termsWords = words(terms ?? "");
  if (stateWords.length !== STATE_FIELDS.length || termsWords.length !== 10) {
    throw new Unavailable(`${input.pot} does not answer stateOf and termsOf as the pot does: is it the pot?`);
  }
  chain.state = Object.fromEntries(STATE_FIELDS.map((name, i) => [name, uint(stateWords[i]!)])) as State;
  chain.terms = decodeTerms(termsWords);
  chain.digest = termsWords[9]!;
  chain.shareReceiver = address(words(receiver ?? "")[0] ?? "");
  input.progress("views", 1, 1);
  return chain;
}

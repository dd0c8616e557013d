/** The pot's events (docs/protocol.md section 2, "Events and views") as the page reads them from its
 * node with eth_getLogs: filtered by the challenge id (topic 1) and, where the event has one, the
 * payer or recipient, from the pot's deploy block, in block ranges a public node accepts. Outcomes and
 * payments the page shows come from here, not from the site's word. */
import { addressWord, toHex, uintWord } from "@/lib/protocol/abi";
import { words } from "./calls";
import { quantity, toQuantity, type Chain, type RpcCall } from "./rpc";

/** keccak256 of each event's signature (events.test.ts checks them against the compiled ABI). */
export const TOPICS = {
  Staked: "0x08c6626f6915d842ad68a05223a08328eefbfddaede2e30c549b922398371710",
  SolutionRevealed: "0xafd4bbe90ac1fa809a0dfd6470e10c8e3392720a11842b223ba4b45c4e16c117",
  GuessRevealed: "0xf112814c4a9f3dd844380289e03edbdf93316f3e6bbdbad6eec144ec60782b78",
  Finalized: "0x405f1a04d80bf0b461328081d00a8ce9cbddf73dff58ce6d19db0cf087e9d154",
  Paid: "0x9f777629478be3b0998eab401d2606e8b3ac41e303df6a1d13f5f1cdf48ce29f",
  Refunded: "0xd2d9b772c232c2b1ce0b75dc3362483af5cea3390968eae021a01089b33c8d5a",
} as const;

/** Blocks per eth_getLogs call: public nodes refuse wide ranges (10,000 is a common limit). */
export const LOG_BLOCK_RANGE = 10_000;
/** Ranges per HTTP request. */
export const LOG_BATCH = 20;

export interface RawLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  transactionHash: string;
  logIndex: string;
  removed?: boolean;
}

interface Where {
  blockNumber: number;
  transactionHash: string;
  logIndex: number;
}

export type PotEvent =
  | (Where & { kind: "Staked"; payer: string; seq: number; amount: bigint; commitment: string })
  | (Where & { kind: "SolutionRevealed"; latE6: bigint; lonE6: bigint; salt: string; guessDeadline: number })
  | (Where & { kind: "GuessRevealed"; payer: string; seq: number; latE6: bigint; lonE6: bigint; correct: boolean })
  | (Where & {
      kind: "Finalized";
      earliestSeq: number;
      highestSeq: number;
      earliestPrize: bigint;
      highestPrize: bigint;
      share: bigint;
    })
  | (Where & { kind: "Paid"; prize: number; to: string; amount: bigint })
  | (Where & { kind: "Refunded"; payer: string; seq: number; stake: bigint; bondShare: bigint });

const int256 = (word: string) => {
  const n = BigInt(`0x${word}`);
  return n >= 1n << 255n ? n - (1n << 256n) : n;
};
const address = (word: string | undefined) => `0x${(word ?? "").replace(/^0x/, "").slice(-40)}`;

export function decodeEvent(log: RawLog): PotEvent | null {
  if (log.removed) return null;
  const where: Where = {
    blockNumber: Number(quantity(log.blockNumber)),
    transactionHash: log.transactionHash,
    logIndex: Number(quantity(log.logIndex)),
  };
  const w = words(log.data);
  const topic2 = log.topics[2];
  const n = (i: number) => BigInt(`0x${w[i] ?? "0"}`);
  switch (log.topics[0]?.toLowerCase()) {
    case TOPICS.Staked:
      return { ...where, kind: "Staked", payer: address(topic2), seq: Number(n(0)), amount: n(1), commitment: w[2]! };
    case TOPICS.SolutionRevealed:
      return {
        ...where,
        kind: "SolutionRevealed",
        latE6: int256(w[0]!),
        lonE6: int256(w[1]!),
        salt: w[2]!,
        guessDeadline: Number(n(3)),
      };
    case TOPICS.GuessRevealed:
      return {
        ...where,
        kind: "GuessRevealed",
        payer: address(topic2),
        seq: Number(n(0)),
        latE6: int256(w[1]!),
        lonE6: int256(w[2]!),
        correct: n(3) !== 0n,
      };
    case TOPICS.Finalized:
      return {
        ...where,
        kind: "Finalized",
        earliestSeq: Number(n(0)),
        highestSeq: Number(n(1)),
        earliestPrize: n(2),
        highestPrize: n(3),
        share: n(4),
      };
    case TOPICS.Paid:
      return {
        ...where,
        kind: "Paid",
        prize: Number(BigInt(topic2 ?? "0x0")),
        to: address(log.topics[3]),
        amount: n(0),
      };
    case TOPICS.Refunded:
      return { ...where, kind: "Refunded", payer: address(topic2), seq: Number(n(0)), stake: n(1), bondShare: n(2) };
    default:
      return null;
  }
}

type TopicFilter = (string | string[] | null)[];

/** Every log of `pot` matching `filters` (each a topics array, one eth_getLogs per range) from
 * `fromBlock` to the head, decoded and in chain order. */
export async function readPotEvents(
  chain: Chain,
  {
    pot,
    fromBlock,
    filters,
    range = LOG_BLOCK_RANGE,
  }: { pot: string; fromBlock: number; filters: TopicFilter[]; range?: number },
): Promise<PotEvent[]> {
  const head = Number(quantity(await chain.rpc("eth_blockNumber")));
  const calls: RpcCall[] = [];
  for (let start = Math.max(0, fromBlock); start <= head; start += range) {
    const end = Math.min(head, start + range - 1);
    for (const topics of filters)
      calls.push({
        method: "eth_getLogs",
        params: [{ address: pot, fromBlock: toQuantity(start), toBlock: toQuantity(end), topics }],
      });
  }
  const answers: unknown[] = [];
  for (let i = 0; i < calls.length; i += LOG_BATCH) answers.push(...(await chain.batch(calls.slice(i, i + LOG_BATCH))));
  const seen = new Set<string>();
  const events: PotEvent[] = [];
  for (const answer of answers) {
    for (const log of (Array.isArray(answer) ? answer : []) as RawLog[]) {
      const key = `${log.transactionHash}:${log.logIndex}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const event = decodeEvent(log);
      if (event) events.push(event);
    }
  }
  return events.sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
}

export const challengeTopic = (challengeId: number) => `0x${toHex(uintWord(BigInt(challengeId)))}`;
export const accountTopic = (account: string) => `0x${toHex(addressWord(account))}`;

/** What concerns one payer in one challenge: its stakes, its guesses revealed, its payments and
 * refunds, and the challenge's solution and winners. */
export function payerFilters(challengeId: number, payer: string): TopicFilter[] {
  const id = challengeTopic(challengeId);
  const who = accountTopic(payer);
  return [
    [[TOPICS.Staked, TOPICS.GuessRevealed, TOPICS.Refunded], id, who],
    [TOPICS.Paid, id, null, who],
    [[TOPICS.SolutionRevealed, TOPICS.Finalized], id],
  ];
}

/** A challenge's solution, winners and payments (the Winners' Circle). */
export function settlementFilters(challengeId: number): TopicFilter[] {
  return [[[TOPICS.SolutionRevealed, TOPICS.Finalized, TOPICS.Paid], challengeTopic(challengeId)]];
}

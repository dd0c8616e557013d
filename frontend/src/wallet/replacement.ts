import { parseBlockNumber } from "./pending";
import type { EIP1193Provider } from "./types";

/** Following a stake whose transaction a wallet may replace (docs/chain.md, "A replaced stake").
 * A wallet's "speed up" or "cancel" sends another transaction from the same sender with the same
 * nonce and a higher fee; whichever is mined first takes the nonce and the other is dropped, so the
 * old hash never gets a receipt. The page knows the stake's sender and nonce, so once the sender's
 * mined nonce (eth_getTransactionCount at "latest") has passed it without a receipt for the old
 * hash, the block that took the nonce holds the replacement: the same calldata to the same token
 * is the same payment under a new hash (speed-up); anything else means the stake was cancelled. */

export interface Receipt {
  status?: string;
  blockNumber?: string;
}

export interface TrackedStake {
  hash: string;
  from: string;
  /** The token the stake was sent to, and its calldata: a replacement carrying both is the same payment. */
  to: string;
  data: string;
  /** The stake's nonce, once known (read from the transaction after sending). */
  nonce?: number | undefined;
  /** The head just before sending: the replacement is mined after it. */
  fromBlock?: number | undefined;
}

export type StakeState =
  /** No receipt yet and the nonce not taken by another transaction. */
  | { kind: "pending"; nonce?: number }
  /** The tracked hash has a receipt (any status). */
  | { kind: "mined"; receipt: Receipt }
  /** A transaction with the same calldata took the nonce under another hash (the wallet sped it up). */
  | { kind: "replaced"; hash: string; receipt: Receipt }
  /** Another transaction took the nonce: the stake was cancelled, nothing was paid. */
  | { kind: "cancelled"; hash: string };

/** How far back a scan may look when the head before sending is unknown. */
export const UNKNOWN_START_SCAN_BLOCKS = 256;

interface RpcTransaction {
  hash?: string;
  from?: string;
  to?: string | null;
  input?: string;
  nonce?: string;
}

const lower = (value: unknown) => (typeof value === "string" ? value.toLowerCase() : "");
const hex = (n: number) => `0x${n.toString(16)}`;

async function receiptOf(provider: EIP1193Provider, hash: string): Promise<Receipt | null> {
  return ((await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as Receipt | null) ?? null;
}

/** The stake's nonce as its node knows it; null while the node does not know the transaction. */
export async function readNonce(provider: EIP1193Provider, hash: string): Promise<number | null> {
  try {
    const tx = (await provider.request({
      method: "eth_getTransactionByHash",
      params: [hash],
    })) as RpcTransaction | null;
    return parseBlockNumber(tx?.nonce);
  } catch {
    return null;
  }
}

/** The head, or null when the provider cannot say. */
export async function readHead(provider: EIP1193Provider): Promise<number | null> {
  try {
    return parseBlockNumber(await provider.request({ method: "eth_blockNumber" }));
  } catch {
    return null;
  }
}

async function minedNonce(provider: EIP1193Provider, from: string, block: number | "latest"): Promise<number> {
  const tag = block === "latest" ? block : hex(block);
  const count = parseBlockNumber(await provider.request({ method: "eth_getTransactionCount", params: [from, tag] }));
  if (count === null) throw new Error("no transaction count");
  return count;
}

async function sentInBlock(provider: EIP1193Provider, block: number, from: string, nonce: number) {
  const body = (await provider.request({ method: "eth_getBlockByNumber", params: [hex(block), true] })) as {
    transactions?: (RpcTransaction | string)[];
  } | null;
  for (const tx of body?.transactions ?? []) {
    if (typeof tx === "object" && lower(tx.from) === lower(from) && parseBlockNumber(tx.nonce) === nonce) return tx;
  }
  return null;
}

/** The mined transaction from `from` with `nonce`, in blocks start..head. The block is found by
 * bisecting the sender's nonce at past blocks (a few calls however long ago it was sent); a node
 * that cannot answer for past blocks is scanned block by block instead. */
export async function findByNonce(
  provider: EIP1193Provider,
  from: string,
  nonce: number,
  start: number,
  head: number,
): Promise<RpcTransaction | null> {
  let block: number | null = null;
  try {
    // The first block after which the sender's count exceeds the nonce is the one that mined it.
    let low = Math.max(start, 0);
    let high = head;
    if ((await minedNonce(provider, from, high)) <= nonce) return null;
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      if ((await minedNonce(provider, from, middle)) > nonce) high = middle;
      else low = middle + 1;
    }
    block = low;
  } catch {
    block = null;
  }
  if (block !== null) {
    const found = await sentInBlock(provider, block, from, nonce);
    if (found) return found;
  }
  for (let n = Math.max(start, 0); n <= head; n += 1) {
    const found = await sentInBlock(provider, n, from, nonce);
    if (found) return found;
  }
  return null;
}

/** One look at the stake: its receipt; else, once its nonce is known and taken, the transaction
 * that took it. Errors of the provider propagate (the caller counts them as "not yet"). */
export async function checkStake(provider: EIP1193Provider, stake: TrackedStake): Promise<StakeState> {
  const own = await receiptOf(provider, stake.hash);
  if (own) return { kind: "mined", receipt: own };
  const nonce = stake.nonce ?? (await readNonce(provider, stake.hash));
  if (nonce === null) return { kind: "pending" };
  if ((await minedNonce(provider, stake.from, "latest")) <= nonce) return { kind: "pending", nonce };
  // Mined between the two calls?
  const late = await receiptOf(provider, stake.hash);
  if (late) return { kind: "mined", receipt: late };
  const head = await readHead(provider);
  if (head === null) return { kind: "pending", nonce };
  const start = stake.fromBlock ?? head - UNKNOWN_START_SCAN_BLOCKS;
  const taker = await findByNonce(provider, stake.from, nonce, start, head);
  if (!taker?.hash) return { kind: "pending", nonce };
  if (lower(taker.hash) === lower(stake.hash)) {
    const receipt = await receiptOf(provider, stake.hash);
    return receipt ? { kind: "mined", receipt } : { kind: "pending", nonce };
  }
  if (lower(taker.to) === lower(stake.to) && lower(taker.input) === lower(stake.data)) {
    const receipt = await receiptOf(provider, taker.hash);
    return receipt ? { kind: "replaced", hash: taker.hash, receipt } : { kind: "pending", nonce };
  }
  return { kind: "cancelled", hash: taker.hash };
}

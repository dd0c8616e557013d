/** JSON-RPC to a chain node: the page's public node (the `rpcUrl` the site embeds) over fetch, or the
 * player's wallet (EIP-1193) when the page has none. What the page reads from the pot and the token
 * (terms, balances, events) goes through one of these, never through Geopoem's server. */
import type { PublicConfig } from "@/config";
import type { EIP1193Provider } from "@/wallet/types";

export type Rpc = (method: string, params?: unknown[]) => Promise<unknown>;

/** A node's JSON-RPC error, with its `data` (a revert's bytes) kept for lib/protocol/errors.ts. */
export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "RpcError";
    this.code = code;
    this.data = data;
  }
}

interface Reply {
  id?: number;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

let nextId = 1;

/** The node at `url`; `fetch` is looked up at each call (a test stubs it). */
export function httpRpc(url: string): Rpc {
  return async (method, params = []) => {
    const [reply] = await batch(url, [{ method, params }]);
    return reply;
  };
}

/** Several calls in one HTTP request (the node answers in any order: matched by id). Rejects with
 * the first call's error, if any. */
export async function batch(url: string, calls: RpcCall[]): Promise<unknown[]> {
  const requests = calls.map((call) => ({ jsonrpc: "2.0", id: nextId++, ...call }));
  const single = requests.length === 1;
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(single ? requests[0] : requests),
  });
  if (!res.ok) throw new RpcError(-32000, `The chain node answered ${res.status}.`);
  const body = (await res.json()) as Reply | Reply[];
  const replies = Array.isArray(body) ? body : [body];
  return requests.map((request) => {
    const reply = replies.find((r) => r.id === request.id) ?? (single ? replies[0] : undefined);
    if (!reply) throw new RpcError(-32000, "The chain node left a call unanswered.");
    if (reply.error) throw new RpcError(reply.error.code, reply.error.message, reply.error.data);
    return reply.result;
  });
}

export function providerRpc(provider: EIP1193Provider): Rpc {
  return (method, params = []) => provider.request({ method, params });
}

export interface RpcCall {
  method: string;
  params: unknown[];
}

/** A node the page reads: one call at a time, or several in one request where the node takes batches. */
export interface Chain {
  rpc: Rpc;
  batch: (calls: RpcCall[]) => Promise<unknown[]>;
}

export function httpChain(url: string): Chain {
  return { rpc: httpRpc(url), batch: (calls) => batch(url, calls) };
}

/** Through the wallet: a wallet takes one call at a time. */
export function providerChain(provider: EIP1193Provider): Chain {
  const rpc = providerRpc(provider);
  return {
    rpc,
    batch: async (calls) => {
      const answers: unknown[] = [];
      for (const call of calls) answers.push(await rpc(call.method, call.params));
      return answers;
    },
  };
}

/** How the page reads the chain: its public node, else the wallet; null with neither. */
export function pageChain(config: Pick<PublicConfig, "rpcUrl">, provider?: EIP1193Provider | null): Chain | null {
  if (config.rpcUrl) return httpChain(config.rpcUrl);
  return provider ? providerChain(provider) : null;
}

/** A JSON-RPC quantity as a bigint. */
export function quantity(value: unknown): bigint {
  if (typeof value !== "string" || !/^0x[0-9a-f]*$/i.test(value)) throw new RpcError(-32000, "Not a quantity.");
  return value === "0x" ? 0n : BigInt(value);
}

export const toQuantity = (n: number | bigint) => `0x${n.toString(16)}`;

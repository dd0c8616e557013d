// JSON-RPC to the suite's anvil node, and the few token reads the flows assert on.
let nextId = 1;

export class RpcError extends Error {
  constructor(error) {
    super(error.message);
    this.code = error.code;
    this.data = error.data;
  }
}

export async function rpc(url, method, params = []) {
  const answer = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }),
    signal: AbortSignal.timeout(10000),
  });
  const reply = await answer.json();
  if (reply.error) throw new RpcError(reply.error);
  return reply.result;
}

const word = (hex) => hex.toLowerCase().replace(/^0x/, "").padStart(64, "0");

/** USDC balance in token units (6 decimals), as a BigInt. */
export async function usdcBalance(url, token, owner) {
  return BigInt(await rpc(url, "eth_call", [{ to: token, data: `0x70a08231${word(owner)}` }, "latest"]));
}

export async function waitForBlocks(url, count = 1) {
  const start = BigInt(await rpc(url, "eth_blockNumber"));
  const end = Date.now() + 30000;
  while (Date.now() < end) {
    if (BigInt(await rpc(url, "eth_blockNumber")) >= start + BigInt(count)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no ${count} new block(s) within 30 s`);
}

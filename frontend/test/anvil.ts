import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import type { EIP1193Provider, RequestArguments } from "@/wallet/types";

/** A real anvil node for the unit tests of what the page reads from a chain (a transaction the
 * wallet replaces, a nonce, a block): on a free loopback port, stopped by its own PID. Its provider
 * is EIP-1193 over JSON-RPC with the fetch of the test's start, so a test may stub `fetch` for
 * Geopoem's server and still talk to the node. */

// Captured before any test stubs it.
export const realFetch = globalThis.fetch.bind(globalThis);

function anvilBinary(): string {
  const scope = path.resolve(__dirname, "..", "..", "node_modules", "@foundry-rs");
  for (const entry of existsSync(scope) ? readdirSync(scope).sort() : []) {
    const candidate = path.join(scope, entry, "bin", "anvil");
    if (entry.startsWith("anvil-") && existsSync(candidate)) return candidate;
  }
  throw new Error(`no anvil binary under ${scope}`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export class RpcFailure extends Error {
  code: number;
  data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

export interface Anvil {
  url: string;
  accounts: string[];
  provider: EIP1193Provider & { calls: RequestArguments[] };
  rpc: (method: string, params?: unknown[]) => Promise<unknown>;
  stop: () => Promise<void>;
}

/** `chainId`: another chain than anvil's 31337 (whose pot the page pins), for a pot deployed here. */
export async function startAnvil({ chainId }: { chainId?: number } = {}): Promise<Anvil> {
  const port = await freePort();
  const args = ["--host", "127.0.0.1", "--port", String(port), "--silent"];
  if (chainId) args.push("--chain-id", String(chainId));
  const child: ChildProcess = spawn(anvilBinary(), args, { stdio: "ignore" });
  const url = `http://127.0.0.1:${port}`;
  let id = 1;
  const rpc = async (method: string, params: unknown[] = []) => {
    const answer = await realFetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: id++, method, params }),
    });
    const reply = (await answer.json()) as {
      result?: unknown;
      error?: { code: number; message: string; data?: unknown };
    };
    if (reply.error) throw new RpcFailure(reply.error.code, reply.error.message, reply.error.data);
    return reply.result;
  };
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      await rpc("eth_chainId");
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        await stop();
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const calls: RequestArguments[] = [];
  const provider = {
    calls,
    request: async (args: RequestArguments) => {
      calls.push(args);
      return rpc(args.method, (args.params as unknown[] | undefined) ?? []);
    },
  };
  return { url, accounts: (await rpc("eth_accounts")) as string[], provider, rpc, stop };
}

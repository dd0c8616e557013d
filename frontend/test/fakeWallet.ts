import type { EIP1193Provider, RequestArguments } from "@/wallet/types";

/** A scripted EIP-1193 wallet (a test double at the unit level; the real browser end-to-end
 * tests drive an anvil node). Each method answers from `handlers`; the default script is a
 * happy wallet on the configured chain whose transaction is mined at the first receipt poll. */

export class RpcError extends Error {
  code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

export type Handler = (params: unknown) => unknown;

export const PLAYER = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
export const TX_HASH = `0x${"ab".repeat(32)}`;

export class FakeWallet implements EIP1193Provider {
  calls: RequestArguments[] = [];
  handlers: Record<string, Handler>;
  private listeners = new Map<string, Set<(...args: never[]) => void>>();

  constructor(handlers: Record<string, Handler> = {}) {
    this.handlers = {
      eth_accounts: () => [PLAYER],
      eth_requestAccounts: () => [PLAYER],
      wallet_requestPermissions: () => [{ parentCapability: "eth_accounts" }],
      eth_chainId: () => "0xaa36a7",
      wallet_switchEthereumChain: () => null,
      wallet_addEthereumChain: () => null,
      eth_sendTransaction: () => TX_HASH,
      eth_getTransactionByHash: () => ({ hash: TX_HASH, from: PLAYER, nonce: "0x5" }),
      eth_getTransactionCount: () => "0x5",
      eth_getTransactionReceipt: () => ({ status: "0x1", blockNumber: "0x10" }),
      ...handlers,
    };
  }

  async request(args: RequestArguments): Promise<unknown> {
    this.calls.push(args);
    const handler = this.handlers[args.method];
    if (!handler) throw new RpcError(-32601, `The method ${args.method} does not exist`);
    return handler(args.params);
  }

  methods(): string[] {
    return this.calls.map((c) => c.method);
  }

  on(event: string, listener: (...args: never[]) => void): void {
    if (!this.listeners.has(event)) this.listeners.set(event, new Set());
    this.listeners.get(event)?.add(listener);
  }

  removeListener(event: string, listener: (...args: never[]) => void): void {
    this.listeners.get(event)?.delete(listener);
  }

  emit(event: string, ...args: unknown[]): void {
    for (const listener of this.listeners.get(event) ?? []) (listener as (...a: unknown[]) => void)(...args);
  }
}

/** Announces a wallet the EIP-6963 way, now and whenever the page asks again. */
export function announceWallet(provider: EIP1193Provider, name: string, uuid = name.toLowerCase()): () => void {
  const detail = { info: { uuid, name, icon: "", rdns: `test.${uuid}` }, provider };
  const announce = () =>
    window.dispatchEvent(new CustomEvent("eip6963:announceProvider", { detail: Object.freeze(detail) }));
  window.addEventListener("eip6963:requestProvider", announce);
  announce();
  return () => window.removeEventListener("eip6963:requestProvider", announce);
}

// The player's wallet: an EIP-1193 provider injected into the page with addInitScript (as
// window.ethereum and announced by EIP-6963), whose every request crosses to Node through
// exposeFunction and is answered here. Transactions go to the suite's anvil node, where the
// accounts are unlocked, so they are real: mined, reverted, or left unmined when mining is paused.
// The script can play a player who refuses (4001), a wallet that does not know the network (4902),
// a wallet sitting on another chain, and an account with no USDC. Typed data (a stake paid by
// signature) is signed by anvil's own eth_signTypedData_v4 for the unlocked account; the script can
// refuse it (4001) or play a wallet that cannot sign typed data at all (4200), and a flow can hold
// the wallet's answer (`holdSignatures`) to see the page while the wallet asks.
import { rpc, RpcError } from "./rpc.mjs";

const USER_REJECTED = { code: 4001, message: "User rejected the request." };
const TX_REJECTED = { code: 4001, message: "MetaMask Tx Signature: User denied transaction signature." };
const SIGN_REJECTED = { code: 4001, message: "MetaMask Typed Message Signature: User denied message signature." };
const SIGN_UNSUPPORTED = { code: 4200, message: "The method eth_signTypedData_v4 is not supported by this wallet." };
// What MetaMask offers when gas estimation fails and the player confirms anyway.
const FALLBACK_GAS = "0x30d40"; // 200000

const PAGE_SCRIPT = `(() => {
  const listeners = new Map();
  const provider = {
    isMetaMask: true,
    async request(args) {
      if (!args || typeof args.method !== 'string') throw Object.assign(new Error('Invalid request'), { code: -32600 });
      const reply = JSON.parse(await window.__e2eWalletRequest(JSON.stringify({ method: args.method, params: args.params ?? [] })));
      if (reply.error) {
        const error = new Error(reply.error.message);
        error.code = reply.error.code;
        if (reply.error.data !== undefined) error.data = reply.error.data;
        throw error;
      }
      return reply.result;
    },
    on(event, fn) { if (!listeners.has(event)) listeners.set(event, new Set()); listeners.get(event).add(fn); return provider; },
    removeListener(event, fn) { listeners.get(event)?.delete(fn); return provider; },
    off(event, fn) { return provider.removeListener(event, fn); },
  };
  window.__e2eWalletEmit = (event, payload) => { for (const fn of [...(listeners.get(event) ?? [])]) fn(payload); };
  Object.defineProperty(window, 'ethereum', { value: provider, configurable: true, writable: false });
  const info = Object.freeze({
    uuid: '8d0f3c52-6a4e-4f0c-9a57-3f7e2b8f5e01',
    name: 'E2E Wallet',
    icon: 'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22 viewBox=%220 0 1 1%22%3E%3Crect width=%221%22 height=%221%22/%3E%3C/svg%3E',
    rdns: 'org.geopoem.e2e',
  });
  const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail: Object.freeze({ info, provider }) }));
  window.addEventListener('eip6963:requestProvider', announce);
  announce();
})();`;

const hex = (n) => `0x${Number(n).toString(16)}`;

export class Wallet {
  /**
   * @param {object} options
   * @param {string} options.rpcUrl  the anvil node
   * @param {number} options.nodeChainId  the node's chain id
   * @param {string[]} options.accounts  accounts the player holds (unlocked on anvil); the first is selected
   * @param {string} [options.chainId]  the chain the wallet sits on at start (hex); default the node's
   * @param {string[]} [options.knownChains]  chains the wallet knows (hex); default mainnet and the node's
   * @param {object} [options.script]  refusals: {accounts, permissions, switchChain, addChain, transaction,
   *   signTypedData}: true to refuse (4001); signTypedData: "unsupported" for a wallet without it (4200)
   */
  constructor({ rpcUrl, nodeChainId, accounts, chainId, knownChains, script = {} }) {
    this.rpcUrl = rpcUrl;
    this.nodeChainId = hex(nodeChainId);
    this.accounts = accounts;
    this.selected = accounts[0];
    this.chainId = chainId ?? this.nodeChainId;
    this.knownChains = new Set(knownChains ?? ["0x1", this.nodeChainId]);
    this.script = { ...script };
    this.connected = false;
    this.calls = [];
    this.sentTransactions = [];
    this.replacements = [];
    this.addedChains = [];
    /** Every typed-data signature given: { address, typedData, signature }. */
    this.signatures = [];
    this.signatureGate = null;
    this.context = null;
  }

  /** Until the returned release() is called, the wallet keeps its typed-data prompt open (it
   * answers nothing): the page is seen while the player reads the request. */
  holdSignatures() {
    let release;
    this.signatureGate = new Promise((resolve) => {
      release = resolve;
    });
    return () => {
      this.signatureGate = null;
      release();
    };
  }

  async attach(context) {
    this.context = context;
    await context.exposeFunction("__e2eWalletRequest", async (raw) => {
      const { method, params } = JSON.parse(raw);
      this.calls.push({ method, params });
      try {
        return JSON.stringify({ result: (await this.handle(method, params)) ?? null });
      } catch (error) {
        return JSON.stringify({ error: { code: error.code ?? -32603, message: error.message, data: error.data } });
      }
    });
    await context.addInitScript({ content: PAGE_SCRIPT });
  }

  methods() {
    return this.calls.map((call) => call.method);
  }

  async emit(event, payload) {
    for (const page of this.context.pages()) {
      await page.evaluate(([e, p]) => window.__e2eWalletEmit?.(e, p), [event, payload]).catch(() => {});
    }
  }

  /** The player picks another account in the wallet. */
  async selectAccount(address) {
    this.selected = address;
    if (!this.accounts.includes(address)) this.accounts.push(address);
    if (this.connected) await this.emit("accountsChanged", [address]);
  }

  /** The player moves the wallet to another network. */
  async changeChain(chainId) {
    this.chainId = chainId;
    await this.emit("chainChanged", chainId);
  }

  /** The player's "speed up" in the wallet: the same transaction again, with the same nonce and a
   * higher fee, under a new hash. */
  async speedUp(hash) {
    return this.replace(hash, (tx) => ({ to: tx.to, data: tx.input }));
  }

  /** The player's "cancel" in the wallet: a transfer of nothing to the sender itself with the
   * stake's nonce and a higher fee, so the stake can never be mined. */
  async cancel(hash) {
    return this.replace(hash, (tx) => ({ to: tx.from, data: "0x" }));
  }

  async replace(hash, body) {
    const tx = await rpc(this.rpcUrl, "eth_getTransactionByHash", [hash]);
    if (!tx || tx.blockNumber) throw new Error(`e2e wallet: ${hash} is not pending, nothing to replace`);
    // Twice the fees and a gwei more: above any node's replacement threshold (10% for geth, anvil).
    const bump = (value) => `0x${(BigInt(value ?? tx.gasPrice) * 2n + 1000000000n).toString(16)}`;
    const replacement = {
      from: tx.from,
      ...body(tx),
      value: "0x0",
      nonce: tx.nonce,
      gas: tx.gas,
      maxFeePerGas: bump(tx.maxFeePerGas),
      maxPriorityFeePerGas: bump(tx.maxPriorityFeePerGas),
    };
    const replaced = await rpc(this.rpcUrl, "eth_sendTransaction", [replacement]);
    this.replacements.push({ hash: replaced, replaces: hash, tx: replacement });
    return replaced;
  }

  fail(error) {
    throw Object.assign(new Error(error.message), { code: error.code, data: error.data });
  }

  async handle(method, params) {
    switch (method) {
      case "eth_requestAccounts":
        if (this.script.accounts) this.fail(USER_REJECTED);
        this.connected = true;
        return [this.selected];
      case "eth_accounts":
        return this.connected ? [this.selected] : [];
      case "wallet_requestPermissions":
        if (this.script.permissions) this.fail(USER_REJECTED);
        this.connected = true;
        return [
          { parentCapability: "eth_accounts", caveats: [{ type: "restrictReturnedAccounts", value: [this.selected] }] },
        ];
      case "wallet_getPermissions":
        return this.connected
          ? [
              {
                parentCapability: "eth_accounts",
                caveats: [{ type: "restrictReturnedAccounts", value: [this.selected] }],
              },
            ]
          : [];
      case "eth_chainId":
        return this.chainId;
      case "net_version":
        return String(BigInt(this.chainId));
      case "wallet_switchEthereumChain": {
        const target = String(params?.[0]?.chainId ?? "").toLowerCase();
        if (!this.knownChains.has(target))
          this.fail({
            code: 4902,
            message: `Unrecognized chain ID "${target}". Try adding the chain using wallet_addEthereumChain first.`,
          });
        if (this.script.switchChain) this.fail(USER_REJECTED);
        if (target !== this.chainId) await this.changeChain(target);
        return null;
      }
      case "wallet_addEthereumChain": {
        const request = params?.[0] ?? {};
        if (this.script.addChain) this.fail(USER_REJECTED);
        const target = String(request.chainId ?? "").toLowerCase();
        this.addedChains.push(request);
        this.knownChains.add(target);
        // MetaMask offers to switch to the chain it just added; the player accepts.
        if (target !== this.chainId) await this.changeChain(target);
        return null;
      }
      case "eth_sendTransaction": {
        this.requireNodeChain();
        if (this.script.transaction) this.fail(TX_REJECTED);
        const tx = { ...params[0] };
        if (String(tx.from).toLowerCase() !== this.selected.toLowerCase())
          this.fail({ code: 4100, message: "The requested account has not been authorized by the user." });
        if (!tx.gas) {
          try {
            tx.gas = await rpc(this.rpcUrl, "eth_estimateGas", [tx]);
          } catch (error) {
            if (!(error instanceof RpcError)) throw error;
            tx.gas = FALLBACK_GAS; // estimation reverted: send anyway, it will revert on chain
          }
        }
        const hash = await rpc(this.rpcUrl, "eth_sendTransaction", [tx]);
        this.sentTransactions.push({ hash, tx });
        return hash;
      }
      case "eth_signTypedData_v4": {
        if (this.script.signTypedData === "unsupported") this.fail(SIGN_UNSUPPORTED);
        this.requireNodeChain();
        const [address, raw] = params ?? [];
        if (String(address).toLowerCase() !== this.selected.toLowerCase())
          this.fail({ code: 4100, message: "The requested account has not been authorized by the user." });
        const typedData = typeof raw === "string" ? JSON.parse(raw) : raw;
        // MetaMask signs typed data only for the chain it is on.
        const domainChain = typedData?.domain?.chainId;
        if (domainChain !== undefined && BigInt(domainChain) !== BigInt(this.chainId))
          this.fail({
            code: -32603,
            message: `Provided chainId "${domainChain}" must match the active chainId "${BigInt(this.chainId)}"`,
          });
        if (this.signatureGate) await this.signatureGate;
        if (this.script.signTypedData === true) this.fail(SIGN_REJECTED);
        const signature = await rpc(this.rpcUrl, "eth_signTypedData_v4", [address, JSON.stringify(typedData)]);
        this.signatures.push({ address, typedData, signature });
        return signature;
      }
      default:
        this.requireNodeChain();
        return rpc(this.rpcUrl, method, params);
    }
  }

  requireNodeChain() {
    if (this.chainId !== this.nodeChainId)
      this.fail({ code: -32603, message: `e2e wallet: no node for chain ${this.chainId}` });
  }
}

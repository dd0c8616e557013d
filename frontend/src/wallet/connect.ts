import type { PublicConfig } from "@/config";
import { refusalOf } from "@/lib/protocol/errors";
import { WALLET_MESSAGES, WalletError } from "./errors";
import { rpcErrorCode, rpcErrorMessage, UNRECOGNIZED_CHAIN, USER_REJECTED, type EIP1193Provider } from "./types";

/** The spec's wallet payment sequence in raw EIP-1193 calls. */

export const PROGRESS = {
  connecting: "Connecting to wallet...",
  selectAccount: "Please select your MetaMask account...",
  sending: "Sending transaction...",
  waiting: "Waiting for transaction confirmation...",
  confirmed: "Transaction confirmed successfully!",
} as const;

const sleepReal = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function firstAccount(accounts: unknown): string | null {
  return Array.isArray(accounts) && typeof accounts[0] === "string" ? accounts[0] : null;
}

/** The wallet control's connect: eth_requestAccounts. */
export async function connectAccount(provider: EIP1193Provider | null): Promise<string> {
  if (!provider) throw new WalletError("notInstalled", WALLET_MESSAGES.notInstalled);
  let accounts: unknown;
  try {
    accounts = await provider.request({ method: "eth_requestAccounts" });
  } catch (error) {
    if (rpcErrorCode(error) === USER_REJECTED) {
      throw new WalletError("userRejectedConnect", WALLET_MESSAGES.userRejectedConnect);
    }
    throw error;
  }
  const account = firstAccount(accounts);
  if (!account) throw new WalletError("noAccounts", WALLET_MESSAGES.noAccounts);
  return account;
}

/** The existing connection, without a prompt (eth_accounts). */
export async function currentAccount(provider: EIP1193Provider): Promise<string | null> {
  try {
    return firstAccount(await provider.request({ method: "eth_accounts" }));
  } catch {
    return null;
  }
}

/** Step 1: wallet_requestPermissions makes the wallet show its account picker every time. */
export async function selectAccount(provider: EIP1193Provider): Promise<string> {
  try {
    await provider.request({ method: "wallet_requestPermissions", params: [{ eth_accounts: {} }] });
  } catch (error) {
    if (rpcErrorCode(error) === USER_REJECTED) {
      throw new WalletError("selectAccount", WALLET_MESSAGES.selectAccount);
    }
    // A wallet without wallet_requestPermissions (-32601) still grants access the old way.
    return connectAccount(provider);
  }
  const account = firstAccount(await provider.request({ method: "eth_accounts" }));
  if (!account) throw new WalletError("noAccounts", WALLET_MESSAGES.noAccounts);
  return account;
}

/** Announces the chain the flow is about to ask the wallet to switch to (lowercase hex), or null
 * when the switch failed: the chainChanged event that follows is the flow's own step 2, not the
 * player changing networks, and must not reload the page mid-payment. The wallet context owns
 * that state (WalletContext.tsx, `expectChainSwitch`). */
export type ExpectChainSwitch = (chainIdHex: string | null) => void;

/** Step 2: switch to the configured chain, adding it when the wallet does not know it (4902). */
export async function ensureChain(
  provider: EIP1193Provider,
  config: PublicConfig,
  expectChainSwitch: ExpectChainSwitch,
): Promise<void> {
  const chainId = await provider.request({ method: "eth_chainId" });
  if (typeof chainId === "string" && chainId.toLowerCase() === config.chainIdHex.toLowerCase()) return;
  expectChainSwitch(config.chainIdHex.toLowerCase());
  try {
    await provider.request({ method: "wallet_switchEthereumChain", params: [{ chainId: config.chainIdHex }] });
  } catch (error) {
    if (rpcErrorCode(error) !== UNRECOGNIZED_CHAIN) {
      expectChainSwitch(null);
      throw new WalletError("switchNetworkFailed", WALLET_MESSAGES.switchNetworkFailed(config.chainName));
    }
    try {
      await provider.request({
        method: "wallet_addEthereumChain",
        params: [
          {
            chainId: config.chainIdHex,
            chainName: config.chainName,
            nativeCurrency: config.nativeCurrency,
            rpcUrls: [config.rpcUrl],
            blockExplorerUrls: config.explorerUrl ? [config.explorerUrl] : [],
          },
        ],
      });
    } catch {
      expectChainSwitch(null);
      throw new WalletError("addNetworkFailed", WALLET_MESSAGES.addNetworkFailed(config.chainName));
    }
  }
}

/** Steps 1 and 2, shared by both ways to pay: the spec's first two progress messages, the account
 * the player picks and the wallet on the configured chain. */
export async function connectForPayment(
  provider: EIP1193Provider | null,
  {
    config,
    onProgress,
    expectChainSwitch,
    onAccount = () => undefined,
  }: {
    config: PublicConfig;
    onProgress: (message: string) => unknown;
    expectChainSwitch: ExpectChainSwitch;
    onAccount?: (address: string) => unknown;
  },
): Promise<{ provider: EIP1193Provider; address: string }> {
  await onProgress(PROGRESS.connecting);
  if (!provider) throw new WalletError("notInstalled", WALLET_MESSAGES.notInstalled);
  await onProgress(PROGRESS.selectAccount);
  const address = await selectAccount(provider);
  onAccount(address);
  await ensureChain(provider, config, expectChainSwitch);
  return { provider, address };
}

/** Sends a transaction from the wallet; value 0. */
export async function sendTransaction(
  provider: EIP1193Provider,
  tx: { from: string; to: string; data: string },
): Promise<string> {
  try {
    const hash = await provider.request({ method: "eth_sendTransaction", params: [{ ...tx, value: "0x0" }] });
    if (typeof hash !== "string") throw new Error("the wallet returned no transaction hash");
    return hash;
  } catch (error) {
    if (rpcErrorCode(error) === USER_REJECTED) {
      throw new WalletError("transactionRejected", WALLET_MESSAGES.transactionRejected);
    }
    // The pot's or the token's refusal in the player's words (the wallet simulates before it sends).
    const refusal = refusalOf(error);
    throw new WalletError(
      "transactionFailed",
      WALLET_MESSAGES.transactionFailed(refusal ? refusal.sentence : rpcErrorMessage(error)),
    );
  }
}

export interface Receipt {
  status?: string;
  blockNumber?: string;
  logs?: { address?: string; topics?: string[]; data?: string }[];
}

/** Polls every `intervalMs` for up to `timeoutMs`; status 0x1 is confirmed, any other status a
 * failure. A poll that errors (a flaky node) counts as "not yet". A transaction the wallet replaced
 * (sped up or cancelled) never gets a receipt under its first hash and times out here: the stake
 * itself is followed by its commitment (My submissions), which a replacement does not change. */
export async function waitForReceipt(
  provider: EIP1193Provider,
  hash: string,
  {
    intervalMs,
    timeoutMs,
    onProgress = () => undefined,
    sleep = sleepReal,
  }: {
    intervalMs: number;
    timeoutMs: number;
    onProgress?: (message: string) => unknown;
    sleep?: (ms: number) => Promise<void>;
  },
): Promise<Receipt> {
  await onProgress(PROGRESS.waiting);
  for (let waited = 0; waited < timeoutMs; waited += intervalMs) {
    let receipt: Receipt | null = null;
    try {
      receipt = (await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as Receipt | null;
    } catch {
      receipt = null;
    }
    if (receipt) {
      if (receipt.status === "0x1") {
        await onProgress(PROGRESS.confirmed);
        return receipt;
      }
      throw new WalletError("transactionReverted", WALLET_MESSAGES.transactionReverted);
    }
    await sleep(intervalMs);
  }
  throw new WalletError("confirmationTimeout", WALLET_MESSAGES.confirmationTimeout);
}

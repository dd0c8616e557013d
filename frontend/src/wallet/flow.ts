import { postResponse } from "@/api/responses";
import type { ChallengeResponse, ResponseCreate } from "@/api/types";
import type { PublicConfig } from "@/config";
import { stakeCalldata } from "@/lib/calldata";
import { guessCommitment } from "@/lib/commitment";
import { WALLET_MESSAGES, WalletError } from "./errors";
import { deferClaim, markInFlight, postVerdict, retryDelayMs } from "./keeper";
import { parseBlockNumber, removeSubmission, saveSubmission, updateSubmission, type RecordAnchor } from "./pending";
import { checkStake, readHead, readNonce, type Receipt, type TrackedStake } from "./replacement";
import { rpcErrorCode, rpcErrorMessage, UNRECOGNIZED_CHAIN, USER_REJECTED, type EIP1193Provider } from "./types";

/** The spec's wallet payment sequence in raw EIP-1193 calls. */

export const PROGRESS = {
  connecting: "Connecting to wallet...",
  selectAccount: "Please select your MetaMask account...",
  sending: "Sending transaction...",
  waiting: "Waiting for transaction confirmation...",
  confirmed: "Transaction confirmed successfully!",
  submitting: "Submitting solution...",
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

/** Step 3: the USDC transfer with the commitment appended; value 0. */
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
    throw new WalletError("transactionFailed", WALLET_MESSAGES.transactionFailed(rpcErrorMessage(error)));
  }
}

/** Step 4: poll every `intervalMs` for up to `timeoutMs`; status 0x1 is confirmed, any other
 * status a failure. A poll that errors (a flaky RPC) counts as "not yet". With `stake`, each poll
 * also notices the wallet replacing the transaction (replacement.ts): a sped-up payment is followed
 * to its new hash (`onReplaced`), a cancelled one ends the wait. */
export async function waitForReceipt(
  provider: EIP1193Provider,
  hash: string,
  {
    intervalMs,
    timeoutMs,
    onProgress = () => undefined,
    sleep = sleepReal,
    stake,
    onReplaced = () => undefined,
    onNonce = () => undefined,
  }: {
    intervalMs: number;
    timeoutMs: number;
    onProgress?: (message: string) => unknown;
    sleep?: (ms: number) => Promise<void>;
    stake?: Omit<TrackedStake, "hash">;
    onReplaced?: (hash: string) => void;
    onNonce?: (nonce: number) => void;
  },
): Promise<Receipt> {
  await onProgress(PROGRESS.waiting);
  let nonce = stake?.nonce;
  for (let waited = 0; waited < timeoutMs; waited += intervalMs) {
    let receipt: Receipt | null = null;
    try {
      if (stake) {
        const state = await checkStake(provider, { ...stake, hash, nonce });
        if (state.kind === "cancelled") {
          throw new WalletError("transactionCancelled", WALLET_MESSAGES.transactionCancelled);
        }
        if (state.kind === "pending" && state.nonce !== undefined && nonce === undefined) {
          nonce = state.nonce;
          onNonce(nonce);
        }
        if (state.kind === "replaced") onReplaced(state.hash);
        receipt = state.kind === "mined" || state.kind === "replaced" ? state.receipt : null;
      } else {
        receipt = (await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as Receipt | null;
      }
    } catch (error) {
      if (error instanceof WalletError) throw error;
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

/** The POST failed after the payment. `retrying`: the answer may pass, so the claim is kept and
 * posted again (keeper.ts); otherwise the server refused it for good. `signed`: the stake is paid
 * by a signed authorization (wallet/signed.ts), which has no transaction yet. */
export class SubmissionError extends Error {
  readonly transactionHash: string;
  readonly retrying: boolean;
  readonly signed: boolean;
  constructor(message: string, transactionHash: string, retrying = false, signed = false) {
    super(message);
    this.name = "SubmissionError";
    this.transactionHash = transactionHash;
    this.retrying = retrying;
    this.signed = signed;
  }
}

export interface Guess {
  challengeId: number;
  /** Canonical "lat, lon". */
  text: string;
  /** The stake as a decimal string, and in token units. */
  stake: string;
  units: bigint;
  salt: string;
  /** The anchor of the terms the player saw (absent for an unanchored challenge): kept in the record. */
  anchor?: RecordAnchor | undefined;
}

export interface SubmitOptions {
  provider: EIP1193Provider | null;
  config: PublicConfig;
  /** Shows a progress message; the flow waits for a returned promise (the page uses it to let
   * each message be painted before the next step replaces it). */
  onProgress?: (message: string) => unknown;
  /** The wallet context's `expectChainSwitch` (see ensureChain). */
  expectChainSwitch: ExpectChainSwitch;
  /** The account the player picked, as soon as the wallet gives it: the header shows it while the
   * wallet asks for the payment, and after a refusal, not only after a success. */
  onAccount?: (address: string) => unknown;
  /** How the receipt polling waits (the flow's unit tests do not wait). */
  sleep?: (ms: number) => Promise<void>;
  /** Unix seconds for the calldata's timestamp word. */
  now?: () => number;
}

export interface SubmitResult {
  response: ChallengeResponse;
  /** Null for a stake paid by signature: no transaction is known when its claim is stored. */
  transactionHash: string | null;
  submitterAddress: string;
  paymentMethod: "transfer" | "authorization";
}

const unixNow = () => Math.floor(Date.now() / 1000);

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

/** The guess's commitment for the account that pays (docs/protocol.md section 1). */
export function commitmentFor(guess: Guess, config: PublicConfig, address: string): Promise<string> {
  return guessCommitment({
    chainId: config.chainId,
    challengeId: guess.challengeId,
    submitterAddress: address,
    text: guess.text,
    salt: guess.salt,
  });
}

/** The whole submission: account, network, payment, receipt, then the claim. */
export async function submitGuess(guess: Guess, options: SubmitOptions): Promise<SubmitResult> {
  const { config, onProgress = () => undefined, expectChainSwitch } = options;
  const { provider, address } = await connectForPayment(options.provider, {
    config,
    onProgress,
    expectChainSwitch,
    onAccount: options.onAccount,
  });
  const commitment = await commitmentFor(guess, config, address);
  return payByTransfer(guess, { ...options, provider, onProgress, address, commitment });
}

/** Steps 3 to 7 for a connected account on the configured chain: the transfer with its calldata,
 * the receipt, then the claim. Also where a stake meant to be paid by signature goes when the
 * wallet cannot sign typed data (wallet/signed.ts). */
export async function payByTransfer(
  guess: Guess,
  options: Omit<SubmitOptions, "provider" | "expectChainSwitch"> & {
    provider: EIP1193Provider;
    address: string;
    commitment: string;
  },
): Promise<SubmitResult> {
  const { provider, config, onProgress = () => undefined, sleep, now = unixNow, address, commitment } = options;
  const data = await stakeCalldata({
    treasury: config.treasuryAddress,
    amountUnits: guess.units,
    commitment,
    challengeId: guess.challengeId,
    timestamp: now(),
  });

  // Kept before sending: if the page dies from here on, the guess and its salt survive. The head
  // before sending bounds the search for a replacement (replacement.ts).
  const sentFromBlock = await readHead(provider);
  saveSubmission({
    salt: guess.salt,
    challengeId: guess.challengeId,
    text: guess.text,
    stake: guess.stake,
    chainId: config.chainId,
    submitterAddress: address,
    commitment,
    calldata: data,
    ...(sentFromBlock === null ? {} : { sentFromBlock }),
    ...(guess.anchor ? { anchor: guess.anchor } : {}),
    state: "prepared",
    createdAt: Date.now(),
  });
  markInFlight(guess.salt, true);
  try {
    return await payAndClaim(guess, { provider, config, onProgress, sleep, address, data, sentFromBlock });
  } finally {
    markInFlight(guess.salt, false);
  }
}

async function payAndClaim(
  guess: Guess,
  {
    provider,
    config,
    onProgress,
    sleep,
    address,
    data,
    sentFromBlock,
  }: {
    provider: EIP1193Provider;
    config: PublicConfig;
    onProgress: (message: string) => unknown;
    sleep: ((ms: number) => Promise<void>) | undefined;
    address: string;
    data: string;
    sentFromBlock: number | null;
  },
): Promise<SubmitResult> {
  await onProgress(PROGRESS.sending);
  let transactionHash: string;
  try {
    transactionHash = await sendTransaction(provider, { from: address, to: config.usdcAddress, data });
  } catch (error) {
    // Refused in the wallet (4001): nothing was sent, so nothing is kept ("Cancelling in the wallet
    // means nothing is recorded": docs/decisions.md, "Refused transaction"). Any other failure keeps
    // the record: whether the wallet sent something is not known.
    if (error instanceof WalletError && error.kind === "transactionRejected") removeSubmission(guess.salt);
    throw error;
  }
  // The nonce the wallet chose: a transaction from this sender with it and another hash replaced the stake.
  const nonce = await readNonce(provider, transactionHash);
  updateSubmission(guess.salt, { transactionHash, state: "sent", ...(nonce === null ? {} : { nonce }) });

  let receipt: Receipt;
  try {
    receipt = await waitForReceipt(provider, transactionHash, {
      intervalMs: config.receiptPollIntervalMs,
      timeoutMs: config.receiptTimeoutMs,
      onProgress,
      ...(sleep ? { sleep } : {}),
      stake: {
        from: address,
        to: config.usdcAddress,
        data,
        nonce: nonce ?? undefined,
        fromBlock: sentFromBlock ?? undefined,
      },
      onNonce: (learned) => updateSubmission(guess.salt, { nonce: learned }),
      onReplaced: (hash) => {
        // The wallet sped the payment up: the same payment under a new hash, which the claim names.
        updateSubmission(guess.salt, { transactionHash: hash, replacedHashes: [transactionHash] });
        transactionHash = hash;
      },
    });
  } catch (error) {
    if (error instanceof WalletError && error.kind === "transactionReverted") {
      updateSubmission(guess.salt, { state: "failed", lastError: error.message });
    }
    if (error instanceof WalletError && error.kind === "transactionCancelled") {
      updateSubmission(guess.salt, { state: "cancelled", lastError: error.message });
    }
    throw error;
  }
  const inclusionBlock = parseBlockNumber(receipt.blockNumber);
  updateSubmission(guess.salt, { state: "confirmed", ...(inclusionBlock === null ? {} : { inclusionBlock }) });

  await onProgress(PROGRESS.submitting);
  const body: ResponseCreate = {
    challengeId: guess.challengeId,
    submissionText: guess.text,
    submissionStake: guess.stake,
    transactionHash,
    submitterAddress: address,
    submissionSalt: guess.salt,
  };
  try {
    const response = await postResponse(body);
    updateSubmission(guess.salt, { state: "submitted", lastError: undefined });
    return { response, transactionHash, submitterAddress: address, paymentMethod: "transfer" };
  } catch (error) {
    const message = error instanceof Error && error.message ? error.message : "Failed to submit solution";
    // The challenge's state is not asked here: a challenge resolved meanwhile is the keeper's to find.
    const retrying = postVerdict(error) !== "refused";
    updateSubmission(guess.salt, {
      state: retrying ? "post-failed" : "refused",
      lastError: message,
      ...(retrying ? { postAttempts: 1 } : {}),
    });
    if (retrying) deferClaim(guess.salt, retryDelayMs(1));
    throw new SubmissionError(message, transactionHash, retrying);
  }
}

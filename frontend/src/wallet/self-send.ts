import type { PublicConfig } from "@/config";
import { revealGuessData, simulate, stakeWithAuthorizationData } from "@/lib/pot/calls";
import { checkGas, StakeRefused } from "@/lib/pot/preflight";
import { pageChain, providerChain } from "@/lib/pot/rpc";
import { refusalOf } from "@/lib/protocol/errors";
import { WALLET_MESSAGES, WalletError } from "./errors";
import {
  connectAccount,
  ensureChain,
  sendTransaction,
  stakedSeq,
  waitForReceipt,
  type ExpectChainSwitch,
} from "./flow";
import { updateStake, type OwnTransaction, type StoredStake } from "./pending";
import type { EIP1193Provider } from "./types";

/** What the player's own wallet sends for a stake (docs/protocol.md 3.4, section 2 "Reveals"):
 * "Send it yourself", the signed stake as `stakeWithAuthorization` (the same signature Geopoem's
 * relayer would send: anyone may), and "Reveal my guess", `revealGuess` in the guess window. Both
 * need ETH for gas, which the page checks first; both are simulated first, so the pot's or the
 * token's refusal is said before the wallet is asked. What happened is kept in the record. */

/** Gas of one stakeWithAuthorization (about 125,000 behind Circle's proxy) or one reveal, with a margin. */
export const OWN_TRANSACTION_GAS = 150_000n;

export const NO_GAS_FOR_OWN = (symbol: string) =>
  `This wallet does not hold enough ${symbol} to pay for the gas of sending it yourself. Add a little ${symbol} to it first.`;

interface OwnOptions {
  provider: EIP1193Provider | null;
  config: PublicConfig;
  expectChainSwitch: ExpectChainSwitch;
  /** The account already connected by the flow that calls (no second prompt). */
  connected?: string;
}

async function sendOwn(
  record: StoredStake,
  field: "selfSent" | "reveal",
  data: string,
  { provider, config, expectChainSwitch, connected }: OwnOptions,
): Promise<string> {
  const mark = (value: OwnTransaction) => updateStake(record.salt, { [field]: value });
  mark({ state: "sending" });
  try {
    if (!provider) throw new WalletError("notInstalled", WALLET_MESSAGES.notInstalled);
    const account = connected ?? (await connectAccount(provider));
    if (!connected) await ensureChain(provider, config, expectChainSwitch);
    const chain = pageChain(config, provider) ?? providerChain(provider);
    try {
      await checkGas(chain, {
        payer: account,
        gas: OWN_TRANSACTION_GAS,
        symbol: config.nativeCurrency.symbol,
        signatureOffered: false,
      });
    } catch (error) {
      if (error instanceof StakeRefused) throw new StakeRefused(NO_GAS_FOR_OWN(config.nativeCurrency.symbol));
      throw error;
    }
    const refusal = await simulate(chain.rpc, { from: account, to: record.pot, data }).then(
      () => null,
      (error: unknown) => refusalOf(error),
    );
    if (refusal) throw new StakeRefused(refusal.sentence);
    const hash = await sendTransaction(provider, { from: account, to: record.pot, data });
    mark({ state: "sent", hash });
    return hash;
  } catch (error) {
    const message = error instanceof Error && error.message ? error.message : String(error);
    mark({ state: "error", message });
    throw error;
  }
}

/** "Send it yourself": the record's signed stake, from the wallet's account. */
export function sendItYourself(record: StoredStake, options: OwnOptions): Promise<string> {
  const signed = record.authorization;
  if (!signed?.signature) throw new Error("this browser has no signature for this stake");
  const data = stakeWithAuthorizationData({
    challengeId: record.challengeId,
    commitment: record.commitment,
    payer: record.submitterAddress,
    amount: BigInt(record.amountUnits),
    validAfter: signed.validAfter,
    validBefore: signed.validBefore,
    signature: signed.signature,
  });
  return sendOwn(record, "selfSent", data, options);
}

/** "Reveal my guess", sent from the wallet: `revealGuess` for the stake `seq`. */
export function revealFromWallet(record: StoredStake, seq: number, options: OwnOptions): Promise<string> {
  const data = revealGuessData({
    challengeId: record.challengeId,
    seq,
    payer: record.submitterAddress,
    amount: BigInt(record.amountUnits),
    latE6: BigInt(record.latE6),
    lonE6: BigInt(record.lonE6),
    salt: record.salt,
  });
  return sendOwn(record, "reveal", data, options);
}

/** One look at the player's own transaction: its receipt through the page's node (else the wallet's);
 * the record says "mined" (and, for a stake, its sequence) or "failed" once it has one. Returns the
 * state, or null while it waits. */
export async function followOwnTransaction(
  record: StoredStake,
  field: "selfSent" | "reveal",
  { provider, config }: { provider: EIP1193Provider | null; config: PublicConfig },
): Promise<OwnTransaction["state"] | null> {
  const own = record[field];
  if (!own?.hash || own.state !== "sent") return null;
  const chain = pageChain(config, provider);
  if (!chain) return null;
  const receipt = (await chain.rpc("eth_getTransactionReceipt", [own.hash])) as Parameters<typeof stakedSeq>[0] | null;
  if (!receipt) return null;
  const state = receipt.status === "0x1" ? "mined" : "failed";
  const seq = field === "selfSent" && state === "mined" ? stakedSeq(receipt, record.pot, record.commitment) : null;
  updateStake(record.salt, {
    [field]: { state, hash: own.hash },
    ...(seq !== null ? { seq, transactionHash: own.hash, state: "staked" as const } : {}),
  });
  return state;
}

/** For the form's own "Send it yourself": the receipt waited for with the spec's messages. */
export async function waitForOwnStake(
  record: StoredStake,
  hash: string,
  {
    provider,
    config,
    onProgress,
    sleep,
  }: {
    provider: EIP1193Provider;
    config: PublicConfig;
    onProgress: (message: string) => unknown;
    sleep?: (ms: number) => Promise<void>;
  },
): Promise<void> {
  try {
    const receipt = await waitForReceipt(provider, hash, {
      intervalMs: config.receiptPollIntervalMs,
      timeoutMs: config.receiptTimeoutMs,
      onProgress,
      ...(sleep ? { sleep } : {}),
    });
    const seq = stakedSeq(receipt, record.pot, record.commitment);
    updateStake(record.salt, {
      selfSent: { state: "mined", hash },
      transactionHash: hash,
      state: "staked",
      ...(seq === null ? {} : { seq }),
    });
  } catch (error) {
    if (error instanceof WalletError && error.kind === "transactionReverted")
      updateStake(record.salt, { selfSent: { state: "failed", hash } });
    throw error;
  }
}

import type { Challenge } from "@/api/types";
import { potPin, potPinSentence, type PublicConfig } from "@/config";
import { approveData, readAllowance, simulate, stakeData, type TermsOnChain } from "@/lib/pot/calls";
import { TOPICS } from "@/lib/pot/events";
import { APPROVAL_PATH_GAS, checkAmount, checkChallenge, checkGas, checkUsdc, StakeRefused } from "@/lib/pot/preflight";
import { pageChain, providerChain, type Chain } from "@/lib/pot/rpc";
import { guessCommitment } from "@/lib/protocol/commitment";
import { refusalOf } from "@/lib/protocol/errors";
import {
  connectForPayment,
  PROGRESS,
  sendTransaction,
  waitForReceipt,
  type ExpectChainSwitch,
  type Receipt,
} from "./connect";
import { WalletError } from "./errors";
import { markInFlight } from "./keeper";
import { removeStake, saveStake, updateStake, type PaymentMethod, type StoredStake } from "./pending";
import type { EIP1193Provider } from "./types";

/** The sequence the pot gave the stake, from its Staked event in the receipt. */
export function stakedSeq(receipt: Receipt, pot: string, commitment: string): number | null {
  for (const log of receipt.logs ?? []) {
    if (log.address?.toLowerCase() !== pot.toLowerCase() || log.topics?.[0]?.toLowerCase() !== TOPICS.Staked) continue;
    const data = (log.data ?? "").slice(2).toLowerCase();
    if (data.slice(128, 192) === commitment.toLowerCase()) return Number(BigInt(`0x${data.slice(0, 64)}`));
  }
  return null;
}

/** What the player entered, as the form reads it: the canonical coordinates and their
 * micro-degrees, the stake and the salt. */
export interface GuessEntry {
  text: string;
  latE6: bigint;
  lonE6: bigint;
  /** The stake as a decimal string, and in token units. */
  stake: string;
  units: bigint;
  salt: string;
}

/** A guess as the form hands it over: the challenge as the page shows it, and the entry. */
export interface Guess extends GuessEntry {
  challenge: Pick<
    Challenge,
    | "id"
    | "poemTitle"
    | "poemText"
    | "instructionsText"
    | "proximityThreshold"
    | "closesTimestamp"
    | "minStake"
    | "solutionSha256"
  >;
}

export interface SubmitOptions {
  provider: EIP1193Provider | null;
  config: PublicConfig;
  /** Shows a progress message; the flow waits for a returned promise (the page uses it to let each
   * message be painted before the next step replaces it). */
  onProgress?: (message: string) => unknown;
  /** The wallet context's `expectChainSwitch` (see ensureChain). */
  expectChainSwitch: ExpectChainSwitch;
  /** The account the player picked, as soon as the wallet gives it. */
  onAccount?: (address: string) => unknown;
  /** Whether Geopoem's relay would send a signed stake (the sentence refusing a stake by approval
   * for want of ETH then points to it). */
  signatureOffered?: boolean;
  /** How receipt polling waits (the flow's unit tests do not wait). */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export interface SubmitResult {
  record: StoredStake;
  paymentMethod: PaymentMethod;
}

/** The guess, the wallet and the pot's terms, once every check before the wallet signs or sends has passed. */
export interface StakeContext {
  guess: Guess;
  config: PublicConfig;
  provider: EIP1193Provider;
  address: string;
  chain: Chain;
  onChain: TermsOnChain;
  commitment: string;
  onProgress: (message: string) => unknown;
  sleep: ((ms: number) => Promise<void>) | undefined;
}

/** Steps shared by both ways to pay: the pot pinned for the chain, the challenge shown held to the
 * pot's terms and window (through the page's node, before any wallet prompt; through the wallet's
 * when the page has none), the account and the network, the USDC, and the guess commitment with
 * the payer bound in. */
export async function prepareStake(guess: Guess, options: SubmitOptions): Promise<StakeContext> {
  const { config, onProgress = () => undefined, expectChainSwitch } = options;
  const pin = potPin(config);
  if (pin.state === "differs") throw new StakeRefused(potPinSentence(pin, config.chainName)!);
  const shown = { ...guess.challenge };
  const check = (chain: Chain) =>
    checkChallenge(chain, { pot: config.potAddress, shown, marginSeconds: config.stakeCloseMarginSeconds });
  const pageNode = pageChain(config, null);
  let checked = pageNode ? await check(pageNode) : null;
  const { provider, address } = await connectForPayment(options.provider, {
    config,
    onProgress,
    expectChainSwitch,
    onAccount: options.onAccount,
  });
  const chain = pageNode ?? providerChain(provider);
  checked ??= await check(chain);
  checkAmount(checked.onChain, guess.units, config.tokenDecimals);
  await checkUsdc(chain, {
    token: config.usdcAddress,
    payer: address,
    units: guess.units,
    decimals: config.tokenDecimals,
  });
  const commitment = guessCommitment({
    chainId: BigInt(config.chainId),
    pot: config.potAddress,
    challengeId: BigInt(guess.challenge.id),
    payer: address,
    latE6: guess.latE6,
    lonE6: guess.lonE6,
    salt: guess.salt,
  });
  return {
    guess,
    config,
    provider,
    address,
    chain,
    onChain: checked.onChain,
    commitment,
    onProgress,
    sleep: options.sleep,
  };
}

/** The record of a stake about to be signed or sent (docs/protocol.md 3.7), before the wallet is asked. */
export function newRecord(
  ctx: StakeContext,
  paymentMethod: PaymentMethod,
  extra: Partial<StoredStake> = {},
): StoredStake {
  const { guess, config } = ctx;
  return {
    salt: guess.salt,
    site: globalThis.location?.origin ?? "",
    chainId: config.chainId,
    pot: config.potAddress,
    challengeId: guess.challenge.id,
    termsDigest: ctx.onChain.termsDigest,
    // The pot's, which the page found equal to the hash of the texts it shows.
    termsSha256: ctx.onChain.terms.termsHash.replace(/^0x/, ""),
    submitterAddress: ctx.address,
    stake: guess.stake,
    amountUnits: guess.units.toString(),
    text: guess.text,
    latE6: guess.latE6.toString(),
    lonE6: guess.lonE6.toString(),
    commitment: ctx.commitment,
    paymentMethod,
    state: "prepared",
    guess: { state: "waiting" },
    createdAt: Date.now(),
    ...extra,
  };
}

/** The stake by approval (docs/protocol.md section 2): for wallets that cannot sign typed data, or
 * when Geopoem's relay is unavailable. Needs ETH for gas. */
export async function submitByApproval(guess: Guess, options: SubmitOptions): Promise<SubmitResult> {
  const ctx = await prepareStake(guess, options);
  return approveAndStake(ctx, { signatureOffered: options.signatureOffered ?? false });
}

/** For a connected account whose checks passed: the allowance read, `approve(pot, amount)` when it
 * is short, then `stake(challengeId, commitment, amount)`, each confirmed by its receipt. */
export async function approveAndStake(
  ctx: StakeContext,
  { signatureOffered }: { signatureOffered: boolean },
): Promise<SubmitResult> {
  const { config, provider, address, chain, guess, commitment, onProgress, sleep } = ctx;
  const pot = config.potAddress;
  const allowance = await readAllowance(chain.rpc, config.usdcAddress, address, pot).catch(() => 0n);
  await checkGas(chain, {
    payer: address,
    gas: allowance >= guess.units ? APPROVAL_PATH_GAS / 2n : APPROVAL_PATH_GAS,
    symbol: config.nativeCurrency.symbol,
    signatureOffered,
  });
  // Kept before the wallet is asked: a page that dies meanwhile keeps the guess and its salt.
  const record = newRecord(ctx, "approval");
  saveStake(record);
  markInFlight(record.salt, true);
  const wait = {
    intervalMs: config.receiptPollIntervalMs,
    timeoutMs: config.receiptTimeoutMs,
    onProgress,
    ...(sleep ? { sleep } : {}),
  };
  try {
    if (allowance < guess.units) {
      await onProgress(PROGRESS.sending);
      try {
        const approval = await sendTransaction(provider, {
          from: address,
          to: config.usdcAddress,
          data: approveData(pot, guess.units),
        });
        await waitForReceipt(provider, approval, wait);
      } catch (error) {
        // Nothing was staked: the record goes ("Cancelling in the wallet means nothing is recorded").
        removeStake(record.salt);
        throw error;
      }
    }
    const data = stakeData(guess.challenge.id, commitment, guess.units);
    // The pot's or the token's refusal said before the wallet is asked to send a doomed transaction.
    const refusal = await simulate(chain.rpc, { from: address, to: pot, data }).then(
      () => null,
      (error: unknown) => refusalOf(error),
    );
    if (refusal) {
      removeStake(record.salt);
      throw new StakeRefused(refusal.sentence);
    }
    await onProgress(PROGRESS.sending);
    let hash: string;
    try {
      hash = await sendTransaction(provider, { from: address, to: pot, data });
    } catch (error) {
      removeStake(record.salt);
      throw error;
    }
    updateStake(record.salt, { state: "sent", transactionHash: hash });
    let receipt: Receipt;
    try {
      receipt = await waitForReceipt(provider, hash, wait);
    } catch (error) {
      if (error instanceof WalletError && error.kind === "transactionReverted")
        updateStake(record.salt, { state: "failed", lastError: "The transaction failed: nothing was staked." });
      throw error;
    }
    const seq = stakedSeq(receipt, pot, commitment);
    const updated = updateStake(record.salt, { state: "staked", ...(seq === null ? {} : { seq }) }) ?? record;
    return { record: updated, paymentMethod: "approval" };
  } finally {
    markInFlight(record.salt, false);
  }
}

export {
  connectAccount,
  currentAccount,
  ensureChain,
  PROGRESS,
  selectAccount,
  sendTransaction,
  waitForReceipt,
  type ExpectChainSwitch,
  type Receipt,
} from "./connect";

import type { PaymentsAuthorization, TokenDomain } from "@/api/types";
import { normalizeSignature, receiveAuthorizationTypedData } from "@/lib/authorization";
import { stakeNonce } from "@/lib/protocol/encoding";
import { WALLET_MESSAGES, WalletError } from "./errors";
import {
  approveAndStake,
  newRecord,
  prepareStake,
  PROGRESS,
  type Guess,
  type SubmitOptions,
  type SubmitResult,
} from "./flow";
import { markInFlight, postSignedStake } from "./keeper";
import { removeStake, saveStake, updateStake, type StoredAuthorization } from "./pending";
import { sendItYourself, waitForOwnStake } from "./self-send";
import { rpcErrorCode, rpcErrorMessage, USER_REJECTED, type EIP1193Provider } from "./types";

/** A stake by signature (docs/protocol.md section 2 and 3.1): the checks of prepareStake, then the
 * stake nonce from the pot's terms digest, the record kept BEFORE the wallet is asked (pending.ts),
 * eth_signTypedData_v4 of the token's ReceiveWithAuthorization to the pot, the signature added to
 * the record, then either Geopoem's relayer (POST /api/responses: the signature and the commitment,
 * never the coordinates or the salt) or the player's own wallet ("Send it yourself"). The guess is
 * posted once the stake is confirmed in the pot (keeper.ts). */

/** The step the player takes in the wallet. */
export const SIGN_PROGRESS = "Please sign the stake in your wallet...";
/** The POST of the signed stake. */
export const RELAY_PROGRESS = "Sending your signed stake to Geopoem...";

/** The toasts of a stake by signature, shown by the form (tabs/active/SubmissionForm.tsx). */
export const SIGNED_TOASTS = {
  fallback: {
    title: "Paying by Approval",
    description:
      "Your wallet cannot sign this stake, so it asks you to approve the USDC and send the stake instead. This needs a little ETH for gas.",
  },
  delayed: 'Your stake is signed. Geopoem has not stored it yet; it is sent again automatically. See "My submissions".',
} as const;

/** The step shown when the wallet cannot sign typed data, before it asks for a transaction. */
export const FALLBACK_PROGRESS = "Your wallet cannot sign this stake: paying by approval instead...";

/** EIP-1193's "unsupported method" and JSON-RPC's "method not found". */
export const UNSUPPORTED_METHOD = 4200;
export const METHOD_NOT_FOUND = -32601;

/** Whether the wallet said it cannot sign typed data at all (not that the player refused). */
export function isUnsupportedMethod(error: unknown): boolean {
  const code = rpcErrorCode(error);
  if (code === UNSUPPORTED_METHOD || code === METHOD_NOT_FOUND) return true;
  if (code === USER_REJECTED) return false;
  return /not supported|unsupported|does not exist|not implemented|method not found|unknown method/i.test(
    rpcErrorMessage(error),
  );
}

/** eth_signTypedData_v4 with the account and the typed data as a JSON string (MetaMask's order).
 * Refused by the player: signatureRejected; any other failure propagates as the wallet's error. */
export async function signTypedData(provider: EIP1193Provider, address: string, typedData: object): Promise<string> {
  let answer: unknown;
  try {
    answer = await provider.request({ method: "eth_signTypedData_v4", params: [address, JSON.stringify(typedData)] });
  } catch (error) {
    if (rpcErrorCode(error) === USER_REJECTED) {
      throw new WalletError("signatureRejected", WALLET_MESSAGES.signatureRejected);
    }
    throw error;
  }
  const signature = typeof answer === "string" ? normalizeSignature(answer) : null;
  if (!signature)
    throw new WalletError("signatureFailed", WALLET_MESSAGES.signatureFailed("the wallet returned no signature"));
  return signature;
}

/** Geopoem did not store the signed stake: `retrying` when its answer may pass (the record is kept
 * and posted again: keeper.ts), else it refused it for good (nothing was paid). */
export class StakeNotStored extends Error {
  readonly retrying: boolean;
  constructor(message: string, retrying: boolean) {
    super(message);
    this.name = "StakeNotStored";
    this.retrying = retrying;
  }
}

export interface SignedSubmitOptions extends SubmitOptions {
  /** GET /api/payments/authorization: the token's domain, and how long to ask for. */
  payments: PaymentsAuthorization & { token: TokenDomain };
  /** "relay": Geopoem's relayer sends it (no ETH); "self": the player's wallet sends it (ETH for gas). */
  sender?: "relay" | "self";
  /** The wallet cannot sign typed data: the page says so before the wallet asks for a transaction. */
  onFallback?: () => unknown;
  /** The wallet context's, for "Send it yourself" (self-send.ts). */
  expectChainSwitch: SubmitOptions["expectChainSwitch"];
}

/** The whole stake by signature; the stake by approval when the wallet cannot sign typed data. */
export async function submitBySignature(guess: Guess, options: SignedSubmitOptions): Promise<SubmitResult> {
  const {
    config,
    payments,
    sender = "relay",
    onFallback = () => undefined,
    now = () => Math.floor(Date.now() / 1000),
  } = options;
  const ctx = await prepareStake(guess, options);
  const { provider, address, commitment, onProgress } = ctx;
  // The token's domain names its chain; the wallet was just put on the configured one, which must be
  // it (a wallet signs typed data only for the chain it is on).
  if (payments.token.chainId !== config.chainId) {
    throw new WalletError(
      "signatureFailed",
      WALLET_MESSAGES.signatureFailed(`the token is on chain ${payments.token.chainId}, not ${config.chainId}`),
    );
  }
  // 0x + 64 hex: the bytes32 the wallet signs.
  const nonce = `0x${await stakeNonce({
    chainId: BigInt(config.chainId),
    pot: config.potAddress,
    challengeId: BigInt(guess.challenge.id),
    termsDigest: ctx.onChain.termsDigest,
    commitment,
    amount: guess.units,
  })}`;
  const authorization: StoredAuthorization = {
    token: { ...payments.token },
    validAfter: 0,
    validBefore: now() + payments.validitySeconds,
    nonce,
  };
  // Kept before the wallet is asked: a page that dies while the wallet shows the request keeps the
  // guess and its salt (and, once signed, the signature: a re-post and "Send it yourself" need it).
  const record = newRecord(ctx, "authorization", { authorization });
  saveStake(record);
  markInFlight(record.salt, true);
  try {
    await onProgress(SIGN_PROGRESS);
    const typedData = receiveAuthorizationTypedData(payments.token, {
      from: address,
      to: config.potAddress,
      value: guess.units,
      validAfter: authorization.validAfter,
      validBefore: authorization.validBefore,
      nonce,
    });
    let signature: string;
    try {
      signature = await signTypedData(provider, address, typedData);
    } catch (error) {
      // Nothing was signed that anyone holds: the record goes ("Cancelling in the wallet means
      // nothing is recorded").
      removeStake(record.salt);
      if (isUnsupportedMethod(error)) {
        await onFallback();
        await onProgress(FALLBACK_PROGRESS);
        markInFlight(record.salt, false);
        return await approveAndStake(ctx, { signatureOffered: false });
      }
      if (error instanceof WalletError) throw error;
      throw new WalletError("signatureFailed", WALLET_MESSAGES.signatureFailed(rpcErrorMessage(error)));
    }
    const signed = updateStake(record.salt, { authorization: { ...authorization, signature }, state: "signed" })!;
    if (sender === "self") {
      await onProgress(PROGRESS.sending);
      const hash = await sendItYourself(signed, {
        provider,
        config,
        expectChainSwitch: options.expectChainSwitch,
        connected: address,
      });
      await waitForOwnStake(signed, hash, { provider, config, onProgress, ...(ctx.sleep ? { sleep: ctx.sleep } : {}) });
      return { record: signed, paymentMethod: "authorization" };
    }
    await onProgress(RELAY_PROGRESS);
    const posted = await postSignedStake(signed);
    if (posted.outcome !== "relayed") {
      throw new StakeNotStored(
        posted.message ?? "Geopoem could not store the signed stake.",
        posted.outcome === "retry",
      );
    }
    return { record: { ...signed, state: "relayed" }, paymentMethod: "authorization" };
  } finally {
    markInFlight(record.salt, false);
  }
}

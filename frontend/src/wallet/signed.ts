import { ApiError, apiErrorDetail } from "@/api/http";
import { postResponse } from "@/api/responses";
import type { PaymentsAuthorization, TokenDomain } from "@/api/types";
import { normalizeSignature, transferAuthorizationTypedData } from "@/lib/authorization";
import { WALLET_MESSAGES, WalletError } from "./errors";
import {
  commitmentFor,
  connectForPayment,
  payByTransfer,
  PROGRESS,
  SubmissionError,
  type Guess,
  type SubmitOptions,
  type SubmitResult,
} from "./flow";
import { deferClaim, markInFlight, postVerdict, retryDelayMs } from "./keeper";
import { removeSubmission, saveSubmission, updateSubmission, type StoredAuthorization } from "./pending";
import { rpcErrorCode, rpcErrorMessage, USER_REJECTED, type EIP1193Provider } from "./types";

/** A stake paid with one signature and no ETH (docs/protocol.md section 2a, 3.3a): the account and
 * network as for a transfer, the guess commitment, the record kept BEFORE the wallet is asked
 * (pending.ts: the typed data's values), eth_signTypedData_v4 of the token's
 * TransferWithAuthorization from the player to the treasury whose nonce is the commitment, the
 * signature added to the record, then the claim with the authorization in place of a transaction
 * hash. Geopoem's relayer puts it on chain; My submissions follows it. */

/** The step the player takes in the wallet (the transfer's "Sending transaction..." here). */
export const SIGN_PROGRESS = "Please sign the payment in your wallet...";

/** The toasts of a stake paid by signature, shown by the form (tabs/active/SubmissionForm.tsx); the
 * spec's own stay as they are. */
export const SIGNED_TOASTS = {
  fallback: {
    title: "Paying by Transaction",
    description:
      "Your wallet cannot sign this payment, so it asks you to send a transaction instead. This needs a little ETH for gas.",
  },
  delayed:
    'Your payment is signed. Geopoem has not recorded your solution yet; it is sent again automatically. See "My submissions".',
  notAccepted: "Pay with a transaction instead: it needs a little ETH for gas.",
} as const;

/** The step shown when the wallet cannot sign typed data, before it asks for a transaction (the
 * toast SIGNED_TOASTS.fallback says the same and stays; this one is painted before the wallet asks). */
export const FALLBACK_PROGRESS = "Your wallet cannot sign this payment: sending a transaction instead...";

/** EIP-1193's "unsupported method" and JSON-RPC's "method not found". */
export const UNSUPPORTED_METHOD = 4200;
export const METHOD_NOT_FOUND = -32601;

/** The server's answer for a token without EIP-3009 (docs/protocol.md 3.3a). */
export const NOT_ACCEPTED_PATTERN = /does not accept payment authorizations/i;

/** The token takes no authorizations after all (409): nothing was recorded, and the signature can
 * never move money. The page offers the direct transfer instead. */
export class AuthorizationsNotAccepted extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AuthorizationsNotAccepted";
  }
}

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

export interface SignedSubmitOptions extends SubmitOptions {
  /** GET /api/payments/authorization: the token's domain, and how long to ask for. */
  payments: PaymentsAuthorization & { token: TokenDomain };
  /** The wallet cannot sign typed data: the page says so before the wallet asks for a transaction. */
  onFallback?: () => unknown;
}

/** The whole stake paid by signature; the direct transfer when the wallet cannot sign typed data. */
export async function submitSignedGuess(guess: Guess, options: SignedSubmitOptions): Promise<SubmitResult> {
  const {
    config,
    payments,
    onProgress = () => undefined,
    onFallback = () => undefined,
    expectChainSwitch,
    now = () => Math.floor(Date.now() / 1000),
  } = options;
  const { provider, address } = await connectForPayment(options.provider, {
    config,
    onProgress,
    expectChainSwitch,
    onAccount: options.onAccount,
  });
  const commitment = await commitmentFor(guess, config, address);
  // The token's domain names its chain; the wallet was just put on the configured one, which must
  // be it (MetaMask signs typed data only for the chain it is on).
  if (payments.token.chainId !== config.chainId) {
    throw new WalletError(
      "signatureFailed",
      WALLET_MESSAGES.signatureFailed(`the token is on chain ${payments.token.chainId}, not ${config.chainId}`),
    );
  }
  const authorization: StoredAuthorization = {
    token: { ...payments.token },
    to: config.treasuryAddress,
    value: guess.units.toString(),
    validAfter: 0,
    validBefore: now() + payments.validitySeconds,
  };
  // Kept before the wallet is asked: a page that dies while the wallet shows the request keeps the
  // guess and its salt (and, once signed, the signature: "Send it yourself" and a re-post need it).
  saveSubmission({
    salt: guess.salt,
    challengeId: guess.challengeId,
    text: guess.text,
    stake: guess.stake,
    chainId: config.chainId,
    submitterAddress: address,
    commitment,
    paymentMethod: "authorization",
    authorization,
    ...(guess.anchor ? { anchor: guess.anchor } : {}),
    state: "prepared",
    createdAt: Date.now(),
  });
  markInFlight(guess.salt, true);
  try {
    await onProgress(SIGN_PROGRESS);
    const typedData = transferAuthorizationTypedData(payments.token, {
      from: address,
      to: authorization.to,
      value: guess.units,
      validAfter: authorization.validAfter,
      validBefore: authorization.validBefore,
      nonce: commitment,
    });
    let signature: string;
    try {
      signature = await signTypedData(provider, address, typedData);
    } catch (error) {
      // Nothing was signed that anyone holds: the record goes, as for a refused transaction
      // ("Cancelling in the wallet means nothing is recorded").
      removeSubmission(guess.salt);
      if (isUnsupportedMethod(error)) {
        await onFallback();
        await onProgress(FALLBACK_PROGRESS);
        return await payByTransfer(guess, { ...options, provider, onProgress, address, commitment });
      }
      if (error instanceof WalletError) throw error;
      throw new WalletError("signatureFailed", WALLET_MESSAGES.signatureFailed(rpcErrorMessage(error)));
    }
    updateSubmission(guess.salt, { authorization: { ...authorization, signature }, state: "signed" });
    return await postSignedClaim(guess, { address, authorization: { ...authorization, signature }, onProgress });
  } finally {
    markInFlight(guess.salt, false);
  }
}

async function postSignedClaim(
  guess: Guess,
  {
    address,
    authorization,
    onProgress,
  }: {
    address: string;
    authorization: StoredAuthorization & { signature: string };
    onProgress: (m: string) => unknown;
  },
): Promise<SubmitResult> {
  await onProgress(PROGRESS.submitting);
  try {
    const response = await postResponse({
      challengeId: guess.challengeId,
      submissionText: guess.text,
      submissionStake: guess.stake,
      submitterAddress: address,
      submissionSalt: guess.salt,
      authorization: {
        validAfter: authorization.validAfter,
        validBefore: authorization.validBefore,
        signature: authorization.signature,
      },
    });
    updateSubmission(guess.salt, { state: "submitted", lastError: undefined, postedAt: Date.now() });
    return { response, transactionHash: null, submitterAddress: address, paymentMethod: "authorization" };
  } catch (error) {
    const message = error instanceof Error && error.message ? error.message : "Failed to submit solution";
    if (error instanceof ApiError && error.status === 409 && NOT_ACCEPTED_PATTERN.test(apiErrorDetail(error) ?? "")) {
      removeSubmission(guess.salt);
      throw new AuthorizationsNotAccepted(apiErrorDetail(error) ?? message);
    }
    const retrying = postVerdict(error) !== "refused";
    updateSubmission(guess.salt, {
      state: retrying ? "post-failed" : "refused",
      lastError: message,
      ...(retrying ? { postAttempts: 1 } : {}),
    });
    if (retrying) deferClaim(guess.salt, retryDelayMs(1));
    throw new SubmissionError(message, "", retrying, true);
  }
}

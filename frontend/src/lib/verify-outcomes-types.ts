/** The treasury design's API shapes, which the in-browser verifier of that design (verify-outcomes.ts)
 * still reads. They go with it when lib/verify/ replaces it; the page reads api/types.ts. */

export type ChallengeStatus = "draft" | "active" | "closed" | "resolved";

export interface Challenge {
  id: number;
  poemTitle: string;
  poemText: string;
  instructionsText: string;
  proximityThreshold: number | null;
  solutionSha256: string;
  solutionReveal: string | null;
  solutionSalt: string | null;
  stakedSum: string;
  responseCount: number;
  startTimestamp: number | null;
  /** When it stopped taking payments; null while active. */
  closedTimestamp?: number | null;
  resolvedTimestamp: number | null;
  status: ChallengeStatus;
  isDemo: boolean;
  /** Where its terms were committed on chain (docs/protocol.md section 6); null for a challenge
   * never anchored (a demonstration challenge). Absent from an answer of an older server. */
  anchor?: Anchor | null;
}

/** The challenge's TermsAnchored log as the site shows it (docs/protocol.md section 6). */
export interface Anchor {
  /** The registry contract that emitted it. */
  registry: string;
  transactionHash: string;
  blockNumber: number;
  blockTimestamp: number;
  /** The anchored terms hash (64 hex characters): title, poem and instructions. */
  termsSha256: string;
}

export type ResponseStatus = "pending" | "confirmed" | "rejected";

export interface ChallengeResponse {
  id: number;
  challengeId: number;
  submissionText: string | null;
  submissionStake: string;
  submissionTimestamp: number | null;
  /** Null for a claim paid by authorization until a transaction that used it is known
   * (docs/protocol.md 3.5). */
  transactionHash: string | null;
  submitterAddress: string;
  /** The guess commitment (64 hex characters) the stake's calldata must carry: names the claim
   * among any others on the same transaction. */
  commitment: string;
  status: ResponseStatus;
  rejectionCode: string;
  rejectionReason: string;
  /** How the stake is paid; absent from an older server's answer (a transfer). */
  paymentMethod?: PaymentMethod;
  /** A claim paid by authorization: its relay (docs/protocol.md 3.3a); null for a transfer. */
  authorization?: ClaimAuthorization | null;
  /** After resolution, a confirmed claim's result (docs/protocol.md section 6, "What the player
   * sees"); null before, and for a claim that is not confirmed. Only the claim look-ups carry it. */
  outcome?: ClaimOutcome | null;
}

export type PaymentMethod = "transfer" | "authorization";

/** What the relayer does with a claim's signed authorization (docs/protocol.md 3.3a). */
export type RelayStatus = "queued" | "sent" | "refused" | "not_needed" | "failed";

/** Why the relay refused or failed a claim's authorization (docs/protocol.md 3.3a); "" while queued or sent. */
export type RelayCode =
  | ""
  | "switched_off"
  | "address_limit"
  | "budget"
  | "funds"
  | "used"
  | "cancelled"
  | "expired"
  | "closed"
  | "balance"
  | "refused_by_token"
  | "reverted"
  | "lost";

/** A claim's authorization as the API shows it: never the signature. */
export interface ClaimAuthorization {
  /** Unix seconds: the token refuses it from then on. */
  validBefore: number;
  relayStatus: RelayStatus;
  /** Why the relay refused or failed; else empty. */
  relayReason: string;
  /** The same as a code (chain/relay_reasons.py), what the page decides on; empty while queued or sent. */
  relayCode: RelayCode;
  /** The relayer's latest transaction for it, else null. */
  relayTransactionHash: string | null;
}

/** The token's EIP-712 domain as the server read it from the chain (docs/protocol.md 2a). */
export interface TokenDomain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: string;
}

/** GET /api/payments/authorization (docs/protocol.md 3.6): whether the page may offer a stake
 * paid by a signed authorization. */
export interface PaymentsAuthorization {
  /** Null when the token takes no authorizations (or its domain could not be read). */
  token: TokenDomain | null;
  relay: { available: boolean; reason: string; address: string };
  /** How long an authorization the page asks for is valid, and the least the server accepts. */
  validitySeconds: number;
  minRemainingSeconds: number;
}

export type PayoutStatus = "due" | "verifying" | "paid" | "failed" | "kept";

export interface ClaimOutcome {
  isCorrect: boolean;
  distanceMeters: number;
  /** USDC, 6 decimals; "0.000000" when it won nothing. */
  prize: string;
  /** null when it won nothing. */
  payoutStatus: PayoutStatus | null;
  payoutTransactionHash: string | null;
}

export interface ScoredResponse extends ChallengeResponse {
  /** A confirmed response always names the transaction that paid it. */
  transactionHash: string;
  distanceMeters: number | null;
  isCorrect: boolean | null;
  /** What re-checking the outcome needs; null until the challenge is resolved. */
  submissionSalt?: string | null;
  blockNumber?: number | null;
  transactionIndex?: number | null;
  logIndex?: number | null;
}

export interface Winner extends ScoredResponse {
  prize: string;
  payoutTransactionHash: string | null;
}

export interface Winners {
  challengeId: number;
  proximityThreshold: number | null;
  totalStaked: string;
  responseCount: number;
  earliest: Winner | null;
  highest: Winner | null;
  operations: string;
  unallocated: string;
  /** What was paid out, prize by prize (docs/protocol.md section 6, check 4). */
  payouts?: Payout[];
  /** What the chain changed after resolution started, which moved no sum; [] when nothing did. */
  exceptions: ResolutionException[];
}

/** A claim the chain changed after its challenge's resolution had started (docs/protocol.md
 * section 5, "Exceptions"): `after_resolution`, a payment that passed every check but reached the
 * site too late, not counted; `reorged`, a counted payment whose block left the chain, still counted. */
export interface ResolutionException {
  /** The rejected claim (after_resolution) or the counted response (reorged). */
  responseId: number;
  transactionHash: string;
  submitterAddress: string;
  /** USDC, 6 decimals. */
  submissionStake: string;
  kind: "after_resolution" | "reorged";
  /** When the site recorded it, in Unix seconds. */
  recordedAt: number;
}

export type PayoutKind = "earliest" | "highest" | "operations";

export interface Payout {
  kind: PayoutKind;
  address: string;
  /** USDC, 6 decimals. */
  amount: string;
  status: PayoutStatus;
  transactionHash: string | null;
}

/** A rejected claim of a resolved challenge (GET /api/responses?challengeId=N&status=rejected),
 * published with its text and salt so its rejection can be re-checked. */
export interface RejectedClaim extends ChallengeResponse {
  /** Read as a string by the in-browser verifier (lib/verify-outcomes.ts), whose part it is to read
   * an authorization claim rejected before any transaction used it (null there: docs/protocol.md 3.5). */
  transactionHash: string;
  submissionSalt: string | null;
}

/** A USDC transfer to the treasury naming a challenge whose claim never reached the site
 * (GET /api/challenges/N/unclaimed). */
export interface UnclaimedPayment {
  transactionHash: string;
  logIndex: number;
  blockNumber: number;
  transactionIndex: number;
  fromAddress: string;
  /** USDC, 6 decimals. */
  amount: string;
}

interface ClaimBody {
  challengeId: number;
  submissionText: string;
  submissionStake: string;
  submitterAddress: string;
  submissionSalt: string;
}

/** The signed authorization a claim carries instead of a transaction hash (docs/protocol.md 3.3a). */
export interface AuthorizationBody {
  validAfter: number;
  validBefore: number;
  /** 0x + r ‖ s ‖ v, as eth_signTypedData_v4 returns it. */
  signature: string;
}

/** The body of POST /api/responses: the spec's five fields plus the salt, or, for a stake paid by
 * signature, the authorization in place of the transaction hash (exactly one of the two). */
export type ResponseCreate =
  | (ClaimBody & { transactionHash: string; authorization?: never })
  | (ClaimBody & { authorization: AuthorizationBody; transactionHash?: never });

/** The treasury design's addresses the old verifier takes, read from the embedded configuration
 * (the page's own config no longer has them). Goes with verify-outcomes.ts. */
export function legacyVerifierAddresses(doc: Document = document): {
  treasuryAddress: string;
  registryAddress: string | null;
  operationsAddress: string | null;
} {
  let raw: Record<string, unknown> = {};
  try {
    raw = JSON.parse(doc.getElementById("geopoem-config")?.textContent ?? "{}") as Record<string, unknown>;
  } catch {
    raw = {};
  }
  const text = (v: unknown) => (typeof v === "string" && v ? v : null);
  return {
    treasuryAddress: text(raw.treasuryAddress) ?? "",
    registryAddress: text(raw.registryAddress),
    operationsAddress: text(raw.operationsAddress),
  };
}

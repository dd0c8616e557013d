/** The API's JSON (docs/protocol.md section 3). Money is a decimal string; times are epoch seconds. */

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
  transactionHash: string;
  submitterAddress: string;
  /** The guess commitment (64 hex characters) the stake's calldata must carry: names the claim
   * among any others on the same transaction. */
  commitment: string;
  status: ResponseStatus;
  rejectionCode: string;
  rejectionReason: string;
  /** After resolution, a confirmed claim's result (docs/protocol.md section 6, "What the player
   * sees"); null before, and for a claim that is not confirmed. Only the claim look-ups carry it. */
  outcome?: ClaimOutcome | null;
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

/** The body of POST /api/responses: the spec's five fields plus the salt. */
export interface ResponseCreate {
  challengeId: number;
  submissionText: string;
  submissionStake: string;
  transactionHash: string;
  submitterAddress: string;
  submissionSalt: string;
}

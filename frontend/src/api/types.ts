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

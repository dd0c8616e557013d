/** The API's JSON (docs/protocol.md section 3). Money is a decimal string of USDC; times are Unix
 * seconds; a commitment is 64 lowercase hex characters without 0x. */

/** A challenge's phase as the site read it from the pot (docs/protocol.md 3.6). */
export type ChallengePhase = "open" | "closed" | "revealing" | "final" | "paid" | "aborted";

/** GET /api/challenges/active, /api/challenges/resolved, /api/challenges/{id} (docs/protocol.md 3.6). */
export interface Challenge {
  id: number;
  poemTitle: string;
  poemText: string;
  instructionsText: string;
  /** Metres (the pot's `thresholdM`). */
  proximityThreshold: number | null;
  /** The solution commitment (v2). */
  solutionSha256: string;
  /** Null until the pot shows the solution revealed. */
  solutionReveal: string | null;
  solutionSalt: string | null;
  /** The confirmed pot and number of stakes. */
  stakedSum: string;
  responseCount: number;
  /** The pot's `opensAt`. */
  startTimestamp: number | null;
  closesTimestamp: number;
  solutionDeadline: number;
  guessWindowSeconds: number;
  /** Null until the solution's reveal. */
  guessDeadline: number | null;
  /** USDC, decimal strings. */
  minStake: string;
  bond: string;
  /** Null until the site has opened it on chain. */
  termsSha256: string | null;
  termsDigest: string | null;
  openTransactionHash: string | null;
  openBlockNumber: number | null;
  phase: ChallengePhase;
}

/** A stake's state on the site (docs/protocol.md 3.4). */
export type StakeStatus = "relaying" | "refused" | "failed" | "pending" | "confirmed";

export type PaymentMethod = "authorization" | "approval";

/** What the relayer does with a signed stake (docs/protocol.md 3.4). */
export type RelayStatus = "queued" | "sent" | "refused" | "not_needed" | "failed";

/** A signed stake's relay as the API shows it: never the signature. */
export interface StakeAuthorization {
  /** Unix seconds: the token refuses it from then on. */
  validBefore: number;
  relayStatus: RelayStatus;
  /** The same as a code ("lost", "token_paused", "expired", ...); empty while queued or sent. */
  relayCode: string;
  /** Why it refused or failed, a sentence for the player; else empty. */
  relayReason: string;
  relayTransactionHash: string | null;
}

/** A challenge's settlement as it concerns one stake (docs/protocol.md 3.4), once final. */
export interface StakeOutcome {
  /** USDC won, "0.000000" when nothing. */
  prize: string;
  /** Which prizes: 0 the earliest correct, 1 the highest staked correct. */
  prizes: (number | string)[];
  paid: boolean;
  /** USDC refunded (with its bond share), or null. */
  refund: string | null;
}

/** GET /api/responses/{commitment}, GET /api/responses?address=… and ?challengeId=…, and the 201 of
 * POST /api/responses (docs/protocol.md 3.4). */
export interface Stake {
  /** The sequence number in the pot; null until on chain. */
  id: number | null;
  challengeId: number;
  submitterAddress: string;
  /** USDC, 6 decimals. */
  submissionStake: string;
  commitment: string;
  status: StakeStatus;
  transactionHash: string | null;
  blockNumber: number | null;
  logIndex: number | null;
  /** Block time; null until on chain. */
  submissionTimestamp: number | null;
  paymentMethod: PaymentMethod;
  /** Null for a stake by approval. */
  authorization: StakeAuthorization | null;
  /** The site holds its guess. */
  guessReceived: boolean;
  /** Null until the solution is revealed on chain (and when the site never got the guess). */
  submissionText: string | null;
  submissionSalt: string | null;
  /** Its guess is revealed on chain. */
  revealed: boolean;
  isCorrect: boolean | null;
  /** Metres with 2 decimals (the site writes a decimal string). */
  distanceMeters: number | string | null;
  outcome: StakeOutcome | null;
}

/** A payment or refund the pot made (docs/protocol.md 3.5). */
export interface PotPayment {
  /** 0 earliest prize, 1 highest prize, 2 the share (with the bond); "refund" for a refund. */
  kind: number | string;
  seq: number | null;
  to: string;
  /** USDC, 6 decimals. */
  amount: string;
  transactionHash: string;
}

/** GET /api/challenges/{id}/winners (docs/protocol.md 3.5): the winners as the pot holds them. */
export interface Winners {
  challengeId: number;
  phase: ChallengePhase;
  final: boolean;
  guessDeadline: number | null;
  earliest: Stake | null;
  highest: Stake | null;
  /** USDC, 6 decimals: each prize and the share ("0.000000" without a winner). */
  prizes: { earliest: string; highest: string; share: string };
  payments: PotPayment[];
}

/** The token's EIP-712 domain as the server read it from the chain (docs/protocol.md 3.3). */
export interface TokenDomain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: string;
}

/** GET /api/payments/authorization (docs/protocol.md 3.3). */
export interface PaymentsAuthorization {
  /** Null when the token's domain cannot be used: the stake by approval alone. */
  token: TokenDomain | null;
  relay: { available: boolean; reason: string; address: string };
  validitySeconds: number;
  minRemainingSeconds: number;
}

/** The signed authorization a relayed stake carries (docs/protocol.md 3.1). */
export interface AuthorizationBody {
  validAfter: number;
  validBefore: number;
  /** 0x + r ‖ s ‖ v. */
  signature: string;
}

/** POST /api/responses: a signed stake to relay. No coordinates and no salt. */
export interface StakeCreate {
  challengeId: number;
  submitterAddress: string;
  submissionStake: string;
  commitment: string;
  authorization: AuthorizationBody;
}

/** POST /api/responses/guess: the guess of a stake in the pot (docs/protocol.md 3.2). */
export interface GuessCreate {
  challengeId: number;
  submitterAddress: string;
  commitment: string;
  submissionText: string;
  submissionSalt: string;
}

import { ApiError, apiErrorDetail } from "@/api/http";
import { postResponse } from "@/api/responses";
import type { ResponseCreate } from "@/api/types";
import { isSigned, listSubmissions, parseBlockNumber, updateSubmission, type StoredSubmission } from "./pending";
import { checkStake } from "./replacement";
import type { EIP1193Provider } from "./types";

/** Keeping a paid claim until Geopoem gives a definite answer (docs/chain.md, "A paid claim the
 * page keeps"). A claim whose payment is on chain is posted again, with a growing delay, while a
 * page is open and at once on the next load, until the server stores it (201/200) or refuses it for
 * good. A claim whose transaction the page has not seen mined is first followed on chain through
 * the player's wallet (a replaced transaction is followed to its new hash: replacement.ts). */

/** The first retry waits this long; each later one twice as long, up to RETRY_MAX_MS. */
export const RETRY_FIRST_MS = 2000;
export const RETRY_MAX_MS = 60_000;
/** How often a sent transaction without a receipt is looked at again. */
export const SENT_FOLLOW_MS = 5000;

export type PostVerdict =
  /** The claim can never be accepted: not posted again. */
  | "refused"
  /** It may pass later (no answer, 403 before the CSRF cookie, 429, 5xx, ...). */
  | "retry"
  /** The challenge turned it away (409 "not accepting"): it may pass until the challenge is resolved. */
  | "retry-unless-resolved";

/** Definite answers: a malformed body (400), no such challenge (404), the transaction used by
 * another claim or this guess with another stake (409 "already been used"), and a 422 that names
 * why the transaction can never match (with its `code`). Any other 409 is the challenge not
 * accepting claims now, which a closed challenge does until its resolution starts. */
export function postVerdict(error: unknown): PostVerdict {
  if (!(error instanceof ApiError)) return "retry";
  const body = error.body as { code?: unknown } | null;
  switch (error.status) {
    case 400:
    case 404:
      return "refused";
    case 409:
      // "already been used" (a transaction, or an authorization: docs/protocol.md 3.3a) and a token
      // without transfer authorizations are final; the challenge not accepting claims may pass.
      return /already been used|does not accept payment authorizations/i.test(apiErrorDetail(error) ?? "")
        ? "refused"
        : "retry-unless-resolved";
    case 422:
      return typeof body === "object" && body !== null && typeof body.code === "string" ? "refused" : "retry";
    default:
      return "retry";
  }
}

/** The delay before retry number `attempt` (1 for the first), with up to 20% added at random so
 * that many pages turned away at once (a 429 in a burst) do not all come back together. */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(RETRY_FIRST_MS * 2 ** Math.max(0, attempt - 1), RETRY_MAX_MS);
  return Math.round(base * (1 + 0.2 * random()));
}

/** When each record may be posted (or looked at on chain) again, in this page: empty on load, so
 * a reload tries every kept claim at once. */
const notBefore = new Map<string, number>();
/** Records whose payment flow runs in this page right now: the flow posts their claim itself. */
const inFlight = new Set<string>();

export function deferClaim(salt: string, delayMs: number, now: number = Date.now()): void {
  notBefore.set(salt, now + delayMs);
}

export function markInFlight(salt: string, running: boolean): void {
  if (running) inFlight.add(salt);
  else inFlight.delete(salt);
}

export function resetKeeperForTests(): void {
  notBefore.clear();
  inFlight.clear();
}

export interface KeepDeps {
  /** Whether the challenge is resolved (GET /api/challenges/resolved lists it). */
  isResolved: (challengeId: number) => Promise<boolean>;
  /** The wallet's provider when it is on the configured chain; null otherwise. */
  provider: EIP1193Provider | null;
  /** The token the stakes are sent to. */
  tokenAddress: string;
  now?: () => number;
  random?: () => number;
}

export interface PostResult {
  outcome: "recorded" | "refused" | "retry";
  message?: string;
}

/** The sentence kept when the server turned a claim away until its challenge was resolved (a
 * server from before claims were accepted after close). */
export const RESOLVED_BEFORE_RECORDED = "The challenge was resolved before Geopoem could record this payment.";

/** The claim a kept record posts: its transaction, or its signed authorization (docs/protocol.md
 * 3.3a); null when the record has neither (nothing to post). */
export function claimBody(record: StoredSubmission): ResponseCreate | null {
  if (!record.submitterAddress) return null;
  const fields = {
    challengeId: record.challengeId,
    submissionText: record.text,
    submissionStake: record.stake,
    submitterAddress: record.submitterAddress,
    submissionSalt: record.salt,
  };
  if (isSigned(record)) {
    const signed = record.authorization;
    if (!signed?.signature) return null;
    return {
      ...fields,
      authorization: { validAfter: signed.validAfter, validBefore: signed.validBefore, signature: signed.signature },
    };
  }
  return record.transactionHash ? { ...fields, transactionHash: record.transactionHash } : null;
}

/** Posts a kept claim once and records the answer. */
export async function postKeptClaim(record: StoredSubmission, deps: KeepDeps): Promise<PostResult> {
  const { now = Date.now, random = Math.random } = deps;
  const body = claimBody(record);
  if (!body) return { outcome: "refused" };
  try {
    await postResponse(body);
    updateSubmission(record.salt, {
      state: "submitted",
      lastError: undefined,
      postAttempts: undefined,
      // A stake paid by signature: from now on the relay has it (My submissions, "Send it yourself").
      ...(isSigned(record) ? { postedAt: now() } : {}),
    });
    notBefore.delete(record.salt);
    return { outcome: "recorded" };
  } catch (error) {
    const message = error instanceof Error && error.message ? error.message : "Failed to submit solution";
    let verdict = postVerdict(error);
    if (verdict === "retry-unless-resolved") {
      const resolved = await deps.isResolved(record.challengeId).catch(() => false);
      if (resolved) {
        updateSubmission(record.salt, { state: "refused", lastError: RESOLVED_BEFORE_RECORDED });
        return { outcome: "refused", message: RESOLVED_BEFORE_RECORDED };
      }
      verdict = "retry";
    }
    if (verdict === "refused") {
      updateSubmission(record.salt, { state: "refused", lastError: message, postAttempts: undefined });
      return { outcome: "refused", message };
    }
    const attempts = (record.postAttempts ?? 0) + 1;
    updateSubmission(record.salt, { state: "post-failed", lastError: message, postAttempts: attempts });
    deferClaim(record.salt, retryDelayMs(attempts, random), now());
    return { outcome: "retry", message };
  }
}

/** A sent transaction without a receipt: looked at on chain. Returns whether its claim is to be
 * posted now (mined with status 0x1, also under a sped-up hash). */
async function followSent(record: StoredSubmission, deps: KeepDeps): Promise<boolean> {
  const { provider, now = Date.now } = deps;
  if (!provider || !record.transactionHash || !record.submitterAddress) return true;
  let state;
  try {
    state = await checkStake(provider, {
      hash: record.transactionHash,
      from: record.submitterAddress,
      to: deps.tokenAddress,
      data: record.calldata ?? "",
      nonce: record.nonce,
      fromBlock: record.sentFromBlock,
    });
  } catch {
    state = { kind: "pending" as const };
  }
  switch (state.kind) {
    case "pending":
      if (state.nonce !== undefined && record.nonce === undefined)
        updateSubmission(record.salt, { nonce: state.nonce });
      deferClaim(record.salt, SENT_FOLLOW_MS, now());
      return false;
    case "cancelled":
      updateSubmission(record.salt, { state: "cancelled" });
      return false;
    case "mined":
    case "replaced": {
      const changes: Partial<StoredSubmission> = {};
      if (state.kind === "replaced") {
        // Without its calldata the page cannot tell a speed-up from a cancel: never the case for a
        // record this version sent, so an older record is not moved.
        if (!record.calldata) return true;
        changes.transactionHash = state.hash;
        changes.replacedHashes = [...(record.replacedHashes ?? []), record.transactionHash];
      }
      const block = parseBlockNumber(state.receipt.blockNumber);
      if (block !== null) changes.inclusionBlock = block;
      const ok = state.receipt.status === "0x1";
      updateSubmission(record.salt, { ...changes, state: ok ? "confirmed" : "failed" });
      return ok;
    }
  }
}

export interface KeepResult {
  recorded: number;
  refused: string[];
}

/** The kept claims this page may handle now: not in a payment flow of this page, and not waiting
 * out their delay. */
export function dueClaims(records: StoredSubmission[], now: number = Date.now()): StoredSubmission[] {
  return records.filter((record) => !inFlight.has(record.salt) && (notBefore.get(record.salt) ?? 0) <= now);
}

/** One pass over this browser's kept claims: each that is due is followed on chain or posted. */
export async function keepClaims(records: StoredSubmission[], deps: KeepDeps): Promise<KeepResult> {
  const now = deps.now ?? Date.now;
  const result: KeepResult = { recorded: 0, refused: [] };
  for (const record of dueClaims(records, now())) {
    if (record.state === "sent" && !(await followSent(record, deps))) continue;
    // Following it on chain may have moved its hash.
    const current = listSubmissions().find((r) => r.salt === record.salt) ?? record;
    const posted = await postKeptClaim(current, deps);
    if (posted.outcome === "recorded") result.recorded += 1;
    if (posted.outcome === "refused" && posted.message) result.refused.push(posted.message);
  }
  return result;
}

import { ApiError, apiErrorDetail } from "@/api/http";
import { postGuess, postStake } from "@/api/responses";
import type { Stake } from "@/api/types";
import { listStakes, updateStake, type StoredStake } from "./pending";

/** Keeping a stake until Geopoem holds its guess (docs/protocol.md 3.1, 3.2): the signed stake is
 * posted again until Geopoem stores or refuses it; then the stake is followed by its commitment
 * (GET /api/responses/{commitment}) through relaying and pending to confirmed, and only then is the
 * guess posted, again while the answers may pass (409 stake_not_confirmed, 503, no answer), with a
 * growing delay, while a page is open and at once on the next load, until Geopoem stores it
 * (201/200), refuses it (422) or says the guess window ends too soon (409 guess_window_closing). */

/** The first retry waits this long; each later one twice as long, up to RETRY_MAX_MS. */
export const RETRY_FIRST_MS = 2000;
export const RETRY_MAX_MS = 60_000;
/** How often a stake on its way to the pot is looked up again. */
export const FOLLOW_MS = 2000;

/** The delay before retry number `attempt` (1 for the first), with up to 20% added at random so
 * that many pages turned away at once (a 429 in a burst) do not all come back together. */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(RETRY_FIRST_MS * 2 ** Math.max(0, attempt - 1), RETRY_MAX_MS);
  return Math.round(base * (1 + 0.2 * random()));
}

/** When each record may be looked at again, in this page: empty on load, so a reload tries every
 * kept stake at once. */
const notBefore = new Map<string, number>();
/** Records whose stake flow runs in this page right now: the flow posts them itself. */
const inFlight = new Set<string>();

export function deferStake(salt: string, delayMs: number, now: number = Date.now()): void {
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

/** The sentence of an API refusal, without its HTTP status (the player reads it). */
export function refusalText(error: unknown, fallback: string): string {
  return apiErrorDetail(error) ?? (error instanceof Error && error.message ? error.message : fallback);
}

function errorCode(error: unknown): string {
  if (!(error instanceof ApiError)) return "";
  const body = error.body as { code?: unknown } | null;
  return typeof body === "object" && body !== null && typeof body.code === "string" ? body.code : "";
}

/** A signed stake's POST answered with an error: "refused" when it can never pass (a malformed body,
 * no such challenge, the challenge not open, the commitment taken with another signature, the
 * signature or the chain refusing it: 400, 404, 409, 413, 415, 422), else "retry" (no answer, the
 * CSRF cookie not set yet, 429, 5xx). */
export function stakePostVerdict(error: unknown): "refused" | "retry" {
  if (!(error instanceof ApiError)) return "retry";
  return [400, 404, 409, 413, 415, 422].includes(error.status) ? "refused" : "retry";
}

export type GuessVerdict = "refused" | "closing" | "retry";

/** A guess's POST answered with an error: 422 (it does not open the commitment) and 400 or 404 are
 * final; 409 guess_window_closing means only the player's wallet can reveal it now; everything else
 * may pass (409 stake_not_confirmed, 403, 429, 5xx, no answer). A 409 is told by its code, never by
 * its sentence: the sentence is for the player and may be reworded. */
export function guessPostVerdict(error: unknown): GuessVerdict {
  if (!(error instanceof ApiError)) return "retry";
  if (error.status === 409) return errorCode(error) === "guess_window_closing" ? "closing" : "retry";
  return [400, 404, 422].includes(error.status) ? "refused" : "retry";
}

export const STAKE_POST_FAILED = "Geopoem could not store the signed stake.";

/** Posts a signed stake (docs/protocol.md 3.1) and records the answer. */
export async function postSignedStake(
  record: StoredStake,
  { now = Date.now, random = Math.random }: { now?: () => number; random?: () => number } = {},
): Promise<{ outcome: "relayed" | "refused" | "retry"; stake?: Stake; message?: string }> {
  const signed = record.authorization;
  if (!signed?.signature) return { outcome: "refused" };
  try {
    const stake = await postStake({
      challengeId: record.challengeId,
      submitterAddress: record.submitterAddress,
      submissionStake: record.stake,
      commitment: record.commitment,
      authorization: { validAfter: signed.validAfter, validBefore: signed.validBefore, signature: signed.signature },
    });
    updateStake(record.salt, { state: "relayed", postedAt: now(), postAttempts: undefined, lastError: undefined });
    notBefore.delete(record.salt);
    return { outcome: "relayed", stake };
  } catch (error) {
    const message = refusalText(error, STAKE_POST_FAILED);
    if (stakePostVerdict(error) === "refused") {
      updateStake(record.salt, { state: "refused", lastError: message, postAttempts: undefined });
      return { outcome: "refused", message };
    }
    const attempts = (record.postAttempts ?? 0) + 1;
    updateStake(record.salt, { state: "signed", lastError: message, postAttempts: attempts });
    deferStake(record.salt, retryDelayMs(attempts, random), now());
    return { outcome: "retry", message };
  }
}

/** Posts the guess of a stake in the pot (docs/protocol.md 3.2) and records the answer. */
export async function postKeptGuess(
  record: StoredStake,
  { now = Date.now, random = Math.random }: { now?: () => number; random?: () => number } = {},
): Promise<GuessVerdict | "received"> {
  try {
    await postGuess({
      challengeId: record.challengeId,
      submitterAddress: record.submitterAddress,
      commitment: record.commitment,
      submissionText: record.text,
      submissionSalt: record.salt,
    });
    updateStake(record.salt, { guess: { state: "received" } });
    notBefore.delete(record.salt);
    return "received";
  } catch (error) {
    const verdict = guessPostVerdict(error);
    const lastError = refusalText(error, "Geopoem did not answer.");
    if (verdict === "retry") {
      const attempts = (record.guess.attempts ?? 0) + 1;
      updateStake(record.salt, { guess: { state: "waiting", attempts, lastError } });
      deferStake(record.salt, retryDelayMs(attempts, random), now());
    } else {
      updateStake(record.salt, { guess: { state: verdict, lastError } });
    }
    return verdict;
  }
}

export interface KeepDeps {
  /** GET /api/responses/{commitment}: the stake as Geopoem sees it, null while it knows none. */
  stakeStatus: (commitment: string) => Promise<Stake | null>;
  now?: () => number;
  random?: () => number;
}

/** The kept stakes this page may handle now: not in a flow of this page, not waiting out a delay. */
export function dueStakes(records: StoredStake[], now: number = Date.now()): StoredStake[] {
  return records.filter((record) => !inFlight.has(record.salt) && (notBefore.get(record.salt) ?? 0) <= now);
}

/** Whether a record still needs the keeper: a signed stake not stored by Geopoem (unless the player
 * chose to send it themselves: nobody in between), or a stake that may be in the pot whose guess
 * Geopoem does not hold yet. */
export function needsKeeping(record: StoredStake): boolean {
  if (record.state === "signed") return Boolean(record.authorization?.signature) && !record.selfSent;
  if (record.guess.state !== "waiting") return false;
  return ["relayed", "sent", "staked"].includes(record.state) || record.selfSent?.state === "mined";
}

export interface KeepResult {
  /** Signed stakes Geopoem stored in this pass, and guesses it now holds. */
  relayed: number;
  guesses: number;
  refused: string[];
}

/** One pass over this browser's kept stakes. */
export async function keepStakes(records: StoredStake[], deps: KeepDeps): Promise<KeepResult> {
  const now = deps.now ?? Date.now;
  const result: KeepResult = { relayed: 0, guesses: 0, refused: [] };
  for (const record of dueStakes(records.filter(needsKeeping), now())) {
    if (record.state === "signed") {
      const posted = await postSignedStake(record, deps);
      if (posted.outcome === "relayed") result.relayed += 1;
      if (posted.outcome === "refused" && posted.message) result.refused.push(posted.message);
      continue;
    }
    let stake: Stake | null;
    try {
      stake = await deps.stakeStatus(record.commitment);
    } catch {
      stake = null;
    }
    if (stake?.id && (record.seq !== stake.id || !record.transactionHash)) {
      updateStake(record.salt, {
        seq: stake.id,
        ...(stake.transactionHash ? { transactionHash: stake.transactionHash } : {}),
      });
    }
    if (stake?.guessReceived) {
      updateStake(record.salt, { guess: { state: "received" } });
      continue;
    }
    if (stake?.status !== "confirmed") {
      deferStake(record.salt, FOLLOW_MS, now());
      continue;
    }
    const current = listStakes().find((r) => r.salt === record.salt) ?? record;
    const verdict = await postKeptGuess(current, deps);
    if (verdict === "received") result.guesses += 1;
  }
  return result;
}

import { useSyncExternalStore } from "react";
import type { Challenge } from "@/api/types";

/** This browser's guesses, kept in localStorage so nothing a player paid for is lost: the record
 * is written before the transaction is sent (text, salt, stake, challenge), gains the hash once
 * the wallet returns it, and is marked submitted once the server stored the claim. A record with
 * a hash that never reached the server is posted again on the next load. */

export const STORAGE_KEY = "geopoem:submissions:v1";

export type SubmissionState =
  /** Saved before eth_sendTransaction; no hash known (the wallet was cancelled or the page closed). */
  | "prepared"
  /** The wallet returned a hash; the receipt is not confirmed yet. */
  | "sent"
  /** Receipt status 0x1; the POST has not succeeded yet. */
  | "confirmed"
  /** The POST failed after a transaction was sent, for a reason that may pass (no answer, a 5xx, a
   * 429, the challenge not accepting claims while it is not resolved): posted again with a growing
   * delay while a page is open, and at once on the next load (keeper.ts). */
  | "post-failed"
  /** The server refused the claim for good (400, 404, 409 "already been used", 422 with a code: e.g.
   * the transaction pays for another guess), or the challenge was resolved while the server still
   * turned it away: sending it again cannot change the answer, so it is not retried
   * (docs/protocol.md 3). */
  | "refused"
  /** The transaction was mined with a failing status: no payment was made. */
  | "failed"
  /** The wallet replaced the transaction with one that is not this stake (its "cancel"): no payment
   * was made (replacement.ts). */
  | "cancelled"
  /** The server stored the claim. */
  | "submitted"
  /** A stake paid by signature: signed in the wallet, the claim not posted yet (or its POST's
   * answer lost). Posted again like a "post-failed" one. */
  | "signed";

/** The anchor of the challenge's terms as the player saw it when paying (docs/protocol.md
 * section 6): `verify_challenge.py --record` checks it is the anchor on chain. */
export interface RecordAnchor {
  registry: string;
  transactionHash: string;
  blockNumber: number;
  solutionSha256: string;
  termsSha256: string;
}

/** The record's anchor of a challenge as the page shows it; undefined for an unanchored one (a
 * demonstration challenge): the record then has no `anchor` at all. */
export function recordAnchor(challenge: Pick<Challenge, "anchor" | "solutionSha256">): RecordAnchor | undefined {
  const anchor = challenge.anchor;
  if (!anchor) return undefined;
  return {
    registry: anchor.registry,
    transactionHash: anchor.transactionHash,
    blockNumber: anchor.blockNumber,
    solutionSha256: challenge.solutionSha256,
    termsSha256: anchor.termsSha256,
  };
}

/** How a stake is paid (docs/protocol.md section 2 and 2a). */
export type PaymentMethod = "transfer" | "authorization";

/** The typed data's values of a stake paid by signature (docs/protocol.md 2a, "What the player
 * signs"), kept before the wallet is asked, and its signature once given: "Send it yourself" and a
 * re-post need it, and it never leaves this browser but in the claim's POST. `from` is the record's
 * `submitterAddress` and `nonce` its `commitment`. */
export interface StoredAuthorization {
  /** The token's EIP-712 domain the player signed under. */
  token: { name: string; version: string; chainId: number; verifyingContract: string };
  /** The treasury. */
  to: string;
  /** The stake in token units, a decimal string. */
  value: string;
  validAfter: number;
  validBefore: number;
  /** 0x + r ‖ s ‖ v; absent until the wallet signed. */
  signature?: string;
}

/** What happened to the player's own submission of a signed authorization ("Send it yourself"). */
export interface SelfSent {
  /** The transaction the wallet sent, once it returned one. */
  hash?: string;
  /** sent: waiting for the chain; mined: status 1; failed: mined with status 0 (someone used the
   * authorization first, or it expired); error: the wallet refused or could not send. */
  state: "sending" | "sent" | "mined" | "failed" | "error";
  /** The wallet's error, for "error". */
  message?: string;
}

export interface StoredSubmission {
  /** The salt doubles as the record's id: it is random and unique per guess. */
  salt: string;
  challengeId: number;
  text: string;
  stake: string;
  chainId: number;
  submitterAddress?: string;
  /** The guess commitment the payment carries: names this guess's claim among any others posted
   * on the same transaction (GET /api/responses/{hash}?commitment=). Records saved before it was
   * kept have none; the page computes it then. */
  commitment?: string;
  transactionHash?: string;
  /** The stake's nonce and the head just before it was sent, and its calldata: a transaction from
   * the same sender with this nonce and calldata is the same payment under a new hash, one with
   * other calldata a cancellation (replacement.ts). Records saved before they were kept have none. */
  nonce?: number;
  sentFromBlock?: number;
  calldata?: string;
  /** Hashes this payment had before the wallet replaced it (sped it up), oldest first. */
  replacedHashes?: string[];
  /** How many times the claim was posted without a definite answer: the next retry waits longer. */
  postAttempts?: number;
  /** The block of the payment's receipt (the wallet's eth_getTransactionReceipt): the page watches
   * the head from it to ask the claim's status quickly once the payment is deep enough. Records
   * saved before it was kept have none. */
  inclusionBlock?: number;
  /** The anchor of the terms shown when the player paid; absent for an unanchored challenge (and in
   * records saved before it was kept). */
  anchor?: RecordAnchor;
  /** Absent in records of a transfer (and in every record saved before it was kept). */
  paymentMethod?: PaymentMethod;
  /** A stake paid by signature: what the player signs, and the signature. */
  authorization?: StoredAuthorization;
  /** Epoch milliseconds of the POST Geopoem stored (a stake paid by signature): a minute later
   * without a transaction, the player is offered to send it themselves. */
  postedAt?: number;
  selfSent?: SelfSent;
  state: SubmissionState;
  /** Epoch milliseconds. */
  createdAt: number;
  lastError?: string;
}

/** Whether the record's stake is paid by a signed authorization. */
export function isSigned(record: Pick<StoredSubmission, "paymentMethod">): boolean {
  return record.paymentMethod === "authorization";
}

/** A JSON-RPC quantity ("0x1b4") as a block number; null for anything else. */
export function parseBlockNumber(value: unknown): number | null {
  if (typeof value !== "string" || !/^0x[0-9a-f]+$/i.test(value)) return null;
  const n = Number.parseInt(value, 16);
  return Number.isSafeInteger(n) ? n : null;
}

type Listener = () => void;
const listeners = new Set<Listener>();
// The parsed list and the stored text it came from: React's useSyncExternalStore needs the same
// array back while nothing changed, and a change by any writer (another tab, a cleared storage)
// shows as different text.
let snapshot: { raw: string | null; list: StoredSubmission[] } | null = null;

function parse(raw: string | null): StoredSubmission[] {
  try {
    const parsed: unknown = raw ? JSON.parse(raw) : [];
    return Array.isArray(parsed) ? (parsed as StoredSubmission[]) : [];
  } catch {
    return [];
  }
}

function read(): StoredSubmission[] {
  return parse(localStorage.getItem(STORAGE_KEY));
}

function write(list: StoredSubmission[]): void {
  localStorage.setItem(STORAGE_KEY, JSON.stringify(list));
  for (const listener of listeners) listener();
}

export function listSubmissions(): StoredSubmission[] {
  const raw = localStorage.getItem(STORAGE_KEY);
  if (snapshot?.raw !== raw) snapshot = { raw, list: parse(raw) };
  return snapshot.list;
}

export function saveSubmission(record: StoredSubmission): void {
  write([record, ...read().filter((r) => r.salt !== record.salt)]);
}

export function updateSubmission(salt: string, changes: Partial<StoredSubmission>): StoredSubmission | undefined {
  let updated: StoredSubmission | undefined;
  write(
    read().map((r) => {
      if (r.salt !== salt) return r;
      updated = { ...r, ...changes };
      return updated;
    }),
  );
  return updated;
}

export function removeSubmission(salt: string): void {
  write(read().filter((r) => r.salt !== salt));
}

/** The answer a page before this one kept as final although it may pass: a claim the server turned
 * away while its challenge was closed but not resolved. Such a record is posted again. */
export const NOT_ACCEPTING_MESSAGE = "This challenge is not accepting submissions.";

/** Records whose transaction was sent, or whose authorization was signed, but whose claim the
 * server has not acknowledged. */
export function unpostedSubmissions(): StoredSubmission[] {
  return read().filter((r) => {
    if (!r.submitterAddress) return false;
    if (isSigned(r)) return Boolean(r.authorization?.signature) && ["signed", "post-failed"].includes(r.state);
    return (
      Boolean(r.transactionHash) &&
      (["sent", "confirmed", "post-failed"].includes(r.state) ||
        (r.state === "refused" && r.lastError === `409: ${NOT_ACCEPTING_MESSAGE}`))
    );
  });
}

function subscribe(listener: Listener): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key === STORAGE_KEY) listener();
  };
  window.addEventListener("storage", onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", onStorage);
  };
}

export function useSubmissions(): StoredSubmission[] {
  return useSyncExternalStore(subscribe, listSubmissions, listSubmissions);
}

/** The "recommended offline record": everything needed to prove the guess later. */
export function offlineRecord(
  record: Pick<StoredSubmission, "challengeId" | "text" | "salt" | "stake"> & {
    chainId: number;
    transactionHash?: string | null | undefined;
    submitterAddress?: string | undefined;
    anchor?: RecordAnchor | undefined;
    paymentMethod?: PaymentMethod | undefined;
    authorization?: StoredAuthorization | undefined;
  },
) {
  // A stake paid by signature: how, and once signed the authorization verify_challenge.py --record
  // finds on chain by its AuthorizationUsed log (docs/protocol.md section 5, the verifier's check 6).
  const signed = record.authorization?.signature ? record.authorization : undefined;
  return {
    product: "Geopoem",
    challengeId: record.challengeId,
    coordinates: record.text,
    salt: record.salt,
    stakeUsdc: record.stake,
    chainId: record.chainId,
    paymentMethod: record.paymentMethod ?? "transfer",
    ...(record.submitterAddress ? { submitterAddress: record.submitterAddress } : {}),
    ...(record.transactionHash ? { transactionHash: record.transactionHash } : {}),
    ...(signed
      ? {
          authorization: {
            validAfter: signed.validAfter,
            validBefore: signed.validBefore,
            signature: signed.signature,
          },
        }
      : {}),
    ...(record.anchor
      ? {
          anchor: {
            registry: record.anchor.registry,
            transactionHash: record.anchor.transactionHash,
            blockNumber: record.anchor.blockNumber,
            solutionSha256: record.anchor.solutionSha256,
            termsSha256: record.anchor.termsSha256,
          },
        }
      : {}),
    note: 'Keep this file private until the challenge is resolved. The salt proves your guess: sha256("geopoem:guess:v1|chainId|challengeId|address|coordinates|salt").',
  };
}

/** Offers the offline record as a JSON file download. */
export function downloadOfflineRecord(record: Parameters<typeof offlineRecord>[0]): void {
  const blob = new Blob([JSON.stringify(offlineRecord(record), null, 2)], { type: "application/json" });
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = `geopoem-challenge-${record.challengeId}-${record.salt.slice(0, 8)}.json`;
  document.body.appendChild(link);
  link.click();
  link.remove();
  // Revoke later: some browsers start the download asynchronously after click().
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

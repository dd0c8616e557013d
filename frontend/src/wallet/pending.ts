import { useSyncExternalStore } from "react";
import type { PaymentMethod } from "@/api/types";

/** This browser's stakes, kept in localStorage so nothing a player signed or paid for is lost: the
 * record (docs/protocol.md 3.7) is written before the wallet is asked to sign or send, with the
 * guess and its salt, which never leave this browser until the stake is confirmed in the pot; it
 * gains the signature or the transaction as they come, and what Geopoem answered. */

export const STORAGE_KEY = "geopoem:stakes:v2";

export type { PaymentMethod };

export type StakeState =
  /** Saved before the wallet was asked; nothing signed or sent (refused in the wallet, or the page closed). */
  | "prepared"
  /** Signed; Geopoem has not stored the signed stake yet (no answer, or one that may pass): posted again. */
  | "signed"
  /** Geopoem stored the signed stake: its relayer sends it (or the player does: selfSent). */
  | "relayed"
  /** Geopoem refused the signed stake for good (the signature or the chain shows it can never be
   * taken): nothing was paid. */
  | "refused"
  /** A stake by approval: its transaction was sent from the wallet. */
  | "sent"
  /** A stake by approval whose transaction failed, or was never sent after the approval: nothing paid. */
  | "failed"
  /** The page saw the stake in the pot (its Staked event). */
  | "staked";

/** Where the guess is (docs/protocol.md 3.2). */
export type GuessState =
  /** Kept here: sent once the stake is confirmed in the pot, and again while the answers may pass. */
  | "waiting"
  /** Geopoem holds it (201 or 200). */
  | "received"
  /** Geopoem says it does not open the stake's commitment (422): never the case for a guess this page made. */
  | "refused"
  /** The guess window ends too soon for Geopoem's worker (409 guess_window_closing): only the
   * player's wallet can reveal it now. */
  | "closing";

export interface StoredAuthorization {
  /** The token's EIP-712 domain the player signed under. */
  token: { name: string; version: string; chainId: number; verifyingContract: string };
  validAfter: number;
  validBefore: number;
  /** The stake nonce, 0x + 64 hex. */
  nonce: string;
  /** 0x + r ‖ s ‖ v; absent until the wallet signed. */
  signature?: string;
}

/** A transaction the player's own wallet sent for this stake: "Send it yourself", or "Reveal my guess". */
export interface OwnTransaction {
  hash?: string;
  /** sending: the wallet is asked; sent: waiting for the chain; mined: status 1; failed: status 0;
   * error: the wallet refused or could not send (`message`). */
  state: "sending" | "sent" | "mined" | "failed" | "error";
  message?: string;
}

export interface StoredStake {
  /** The salt doubles as the record's id: it is random and unique per guess. */
  salt: string;
  site: string;
  chainId: number;
  pot: string;
  challengeId: number;
  /** The terms the player saw, checked against the pot's before the wallet was asked. */
  termsDigest: string;
  termsSha256: string;
  submitterAddress: string;
  /** USDC as a decimal string, and in token units (a decimal string). */
  stake: string;
  amountUnits: string;
  /** The canonical "lat, lon" and its micro-degrees (decimal strings). */
  text: string;
  latE6: string;
  lonE6: string;
  /** The guess commitment v2, 64 lowercase hex characters. */
  commitment: string;
  paymentMethod: PaymentMethod;
  /** A stake by signature: what the player signed, and the signature. */
  authorization?: StoredAuthorization;
  /** The stake's transaction, once known, and its sequence in the pot. */
  transactionHash?: string;
  seq?: number;
  state: StakeState;
  guess: { state: GuessState; attempts?: number; lastError?: string };
  /** How many times the signed stake was posted without a definite answer. */
  postAttempts?: number;
  /** Epoch milliseconds when Geopoem stored the signed stake. */
  postedAt?: number;
  selfSent?: OwnTransaction;
  reveal?: OwnTransaction;
  /** Epoch milliseconds. */
  createdAt: number;
  /** The last refusal, in the player's words (no HTTP status). */
  lastError?: string;
}

type Listener = () => void;
const listeners = new Set<Listener>();
// The parsed list and the stored text it came from: useSyncExternalStore needs the same array back
// while nothing changed, and a change by any writer (another tab) shows as different text.
let snapshot: { raw: string | null; list: StoredStake[] } | null = null;

function parse(raw: string | null): StoredStake[] {
  try {
    const parsed: unknown = raw ? JSON.parse(raw) : [];
    return Array.isArray(parsed) ? (parsed as StoredStake[]) : [];
  } catch {
    return [];
  }
}

const read = () => parse(localStorage.getItem(STORAGE_KEY));

function write(list: StoredStake[]): void {
  localStorage.setItem(STORAGE_KEY, JSON.stringify(list));
  for (const listener of listeners) listener();
}

export function listStakes(): StoredStake[] {
  const raw = localStorage.getItem(STORAGE_KEY);
  if (snapshot?.raw !== raw) snapshot = { raw, list: parse(raw) };
  return snapshot.list;
}

export function findStake(salt: string): StoredStake | undefined {
  return read().find((r) => r.salt === salt);
}

export function saveStake(record: StoredStake): void {
  write([record, ...read().filter((r) => r.salt !== record.salt)]);
}

export function updateStake(salt: string, changes: Partial<StoredStake>): StoredStake | undefined {
  let updated: StoredStake | undefined;
  write(
    read().map((r) => {
      if (r.salt !== salt) return r;
      updated = { ...r, ...changes };
      return updated;
    }),
  );
  return updated;
}

export function removeStake(salt: string): void {
  write(read().filter((r) => r.salt !== salt));
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

export function useStakes(): StoredStake[] {
  return useSyncExternalStore(subscribe, listStakes, listStakes);
}

/** A JSON-RPC quantity ("0x1b4") as a number; null for anything else. */
export function parseBlockNumber(value: unknown): number | null {
  if (typeof value !== "string" || !/^0x[0-9a-f]+$/i.test(value)) return null;
  const n = Number.parseInt(value, 16);
  return Number.isSafeInteger(n) ? n : null;
}

/** The player's record as a file (docs/protocol.md 3.7): what `verify_challenge.py --record` reads.
 * Before the wallet gave an account, the payer and what depends on it (the commitment, the
 * authorization) are null. */
export type RecordDraft = Pick<StoredStake, "site" | "chainId" | "pot" | "challengeId" | "stake" | "amountUnits"> & {
  termsDigest: string | null;
  termsSha256: string | null;
} & Pick<StoredStake, "text" | "latE6" | "lonE6" | "salt" | "paymentMethod"> &
  Partial<Pick<StoredStake, "submitterAddress" | "commitment" | "authorization" | "transactionHash" | "seq">>;

export function offlineRecord(record: RecordDraft) {
  const signed = record.authorization;
  return {
    version: 2,
    site: record.site,
    chainId: record.chainId,
    pot: record.pot,
    challengeId: record.challengeId,
    termsDigest: record.termsDigest,
    termsSha256: record.termsSha256,
    submitterAddress: record.submitterAddress ?? null,
    stakeUsdc: record.stake,
    amountUnits: record.amountUnits,
    coordinates: record.text,
    latE6: record.latE6,
    lonE6: record.lonE6,
    salt: record.salt,
    commitment: record.commitment ?? null,
    paymentMethod: record.paymentMethod,
    authorization:
      record.paymentMethod === "authorization" && signed
        ? {
            validAfter: signed.validAfter,
            validBefore: signed.validBefore,
            nonce: signed.nonce,
            signature: signed.signature ?? null,
          }
        : null,
    transactionHash: record.transactionHash ?? null,
    seq: record.seq ?? null,
  };
}

/** Offers the record as a JSON file download. */
export function downloadOfflineRecord(record: RecordDraft): void {
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

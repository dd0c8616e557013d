/** The v2 commitments the pot recomputes from a reveal (docs/protocol.md section 1): SHA-256 of
 * ABI-encoded integers, never of the decimal text. Returned as the API writes them: 64 lowercase
 * hex characters without 0x. SHA-256 is the browser's Web Crypto where it has one, else the plain
 * TypeScript of lib/commitment.ts (a page served over plain http has no crypto.subtle). */
import { sha256Bytes, SALT_PATTERN } from "@/lib/commitment";
import { addressWord, bytes32Word, intWord, tagWord, uintWord } from "./encoding";

export const GUESS_TAG = "geopoem:guess:v2";
export const SOLUTION_TAG = "geopoem:solution:v2";

function wordsToBytes(words: string[]): Uint8Array<ArrayBuffer> {
  const hex = words.join("");
  const bytes = new Uint8Array(new ArrayBuffer(hex.length / 2));
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

async function sha256Words(words: string[]): Promise<string> {
  const bytes = wordsToBytes(words);
  const subtle = globalThis.crypto?.subtle;
  const digest = subtle ? new Uint8Array(await subtle.digest("SHA-256", bytes)) : sha256Bytes(bytes);
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

function saltWord(salt: string): string {
  if (!SALT_PATTERN.test(salt)) throw new Error("a salt is 64 lowercase hex characters");
  return bytes32Word(salt);
}

export interface GuessCommitmentInput {
  chainId: number;
  pot: string;
  challengeId: number | bigint;
  payer: string;
  latE6: bigint;
  lonE6: bigint;
  salt: string;
}

/** sha256(abi.encode(bytes32 "geopoem:guess:v2", chainId, pot, challengeId, payer, int256 latE6,
 * int256 lonE6, bytes32 salt)): the payer is bound in, so a commitment copied and staked from another
 * wallet can never be opened with this player's reveal. */
export function guessCommitment({ chainId, pot, challengeId, payer, latE6, lonE6, salt }: GuessCommitmentInput) {
  return sha256Words([
    tagWord(GUESS_TAG),
    uintWord(chainId),
    addressWord(pot),
    uintWord(challengeId),
    addressWord(payer),
    intWord(latE6),
    intWord(lonE6),
    saltWord(salt),
  ]);
}

export interface SolutionCommitmentInput {
  chainId: number;
  pot: string;
  challengeId: number | bigint;
  latE6: bigint;
  lonE6: bigint;
  salt: string;
}

/** sha256(abi.encode(bytes32 "geopoem:solution:v2", chainId, pot, challengeId, int256 latE6, int256
 * lonE6, bytes32 salt)). */
export function solutionCommitment({ chainId, pot, challengeId, latE6, lonE6, salt }: SolutionCommitmentInput) {
  return sha256Words([
    tagWord(SOLUTION_TAG),
    uintWord(chainId),
    addressWord(pot),
    uintWord(challengeId),
    intWord(latE6),
    intWord(lonE6),
    saltWord(salt),
  ]);
}

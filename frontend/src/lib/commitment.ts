import { loadEthers } from "./ethers-lazy";

/** Salted SHA-256 commitments (docs/protocol.md section 1); lowercase hex without 0x. Mirrors
 * challenges/commitments.py. */

export const SALT_PATTERN = /^[0-9a-f]{64}$/;

/** 32 bytes from the browser's CSPRNG as 64 lowercase hex characters. */
export function newSalt(): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function sha256Hex(text: string): Promise<string> {
  const { sha256, toUtf8Bytes } = await loadEthers();
  return sha256(toUtf8Bytes(text)).slice(2);
}

export interface GuessCommitmentInput {
  chainId: number;
  challengeId: number;
  submitterAddress: string;
  text: string;
  salt: string;
}

export function guessCommitment({ chainId, challengeId, submitterAddress, text, salt }: GuessCommitmentInput) {
  return sha256Hex(`geopoem:guess:v1|${chainId}|${challengeId}|${submitterAddress.toLowerCase()}|${text}|${salt}`);
}

export function solutionCommitment({ challengeId, text, salt }: { challengeId: number; text: string; salt: string }) {
  return sha256Hex(`geopoem:solution:v1|${challengeId}|${text}|${salt}`);
}

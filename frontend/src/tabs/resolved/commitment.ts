/** The solution commitment of design section 5, recomputed in the visitor's browser so anyone
 * can check a reveal without trusting the server:
 *   solutionSha256 = sha256("geopoem:solution:v1|{challengeId}|{text}|{salt}")
 * as lowercase hex of SHA-256 over the UTF-8 bytes. */

import { sha256Bytes } from "./sha256";

export const SOLUTION_COMMITMENT_TAG = "geopoem:solution:v1";

/** The exact string that is hashed. */
export function solutionPreimage(challengeId: number, text: string, salt: string): string {
  return `${SOLUTION_COMMITMENT_TAG}|${challengeId}|${text}|${salt}`;
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Lowercase hex SHA-256 of a UTF-8 string: the browser's own Web Crypto when it offers it (an
 * implementation independent of this site's code), else the small one in ./sha256. */
export async function sha256Hex(message: string): Promise<string> {
  const bytes = new TextEncoder().encode(message);
  const subtle = globalThis.crypto?.subtle;
  if (subtle) {
    return toHex(new Uint8Array(await subtle.digest("SHA-256", bytes)));
  }
  return toHex(sha256Bytes(bytes));
}

export function solutionCommitment(challengeId: number, text: string, salt: string): Promise<string> {
  return sha256Hex(solutionPreimage(challengeId, text, salt));
}

/** The solution commitment (docs/protocol.md section 1), recomputed in the visitor's browser so anyone
 * can check a reveal without trusting the server:
 *   solutionSha256 = sha256("geopoem:solution:v1|{challengeId}|{text}|{salt}")
 * as lowercase hex of SHA-256 over the UTF-8 bytes. */

import { sha256Utf8Hex } from "@/lib/sha256";

export const SOLUTION_COMMITMENT_TAG = "geopoem:solution:v1";

/** The exact string that is hashed. */
export function solutionPreimage(challengeId: number, text: string, salt: string): string {
  return `${SOLUTION_COMMITMENT_TAG}|${challengeId}|${text}|${salt}`;
}

/** Lowercase hex SHA-256 of a UTF-8 string (Web Crypto, or the plain implementation without it). */
export function sha256Hex(message: string): Promise<string> {
  return sha256Utf8Hex(message);
}

export function solutionCommitment(challengeId: number, text: string, salt: string): Promise<string> {
  return sha256Hex(solutionPreimage(challengeId, text, salt));
}

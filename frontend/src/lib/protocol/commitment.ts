/** The pot's v2 commitments (docs/protocol.md section 1; contracts/GeopoemPot.sol, guessCommitment and
 * solutionCommitment), mirroring challenges/commitments.py: SHA-256 of ABI-encoded integers, not of
 * the decimal text, because the contract recomputes them from a reveal. Hashed with the page's own
 * SHA-256 (../commitment.ts), synchronously and in any context. Lowercase hex without 0x. */
import { SALT_PATTERN, sha256Bytes } from "../commitment";
import { addressWord, bytes32Word, concat, intWord, tagWord, toHex, uintWord } from "./abi";

export const GUESS_TAG = "geopoem:guess:v2";
export const SOLUTION_TAG = "geopoem:solution:v2";

function saltWord(salt: string): Uint8Array {
  if (!SALT_PATTERN.test(salt)) throw new RangeError("a salt is 64 lowercase hex characters");
  return bytes32Word(salt);
}

export interface GuessInput {
  chainId: bigint;
  pot: string;
  challengeId: bigint;
  payer: string;
  latE6: bigint;
  lonE6: bigint;
  salt: string;
}

/** sha256(abi.encode(bytes32 "geopoem:guess:v2", chainId, pot, challengeId, payer, int256 latE6,
 * int256 lonE6, bytes32 salt)). The payer is in it, so a commitment copied and staked by someone else
 * can never be opened with the first player's reveal. */
export function guessCommitment(input: GuessInput): string {
  const words = [
    tagWord(GUESS_TAG),
    uintWord(input.chainId),
    addressWord(input.pot),
    uintWord(input.challengeId),
    addressWord(input.payer),
    intWord(input.latE6),
    intWord(input.lonE6),
    saltWord(input.salt),
  ];
  return toHex(sha256Bytes(concat(words)));
}

export type SolutionInput = Omit<GuessInput, "payer">;

/** sha256(abi.encode(bytes32 "geopoem:solution:v2", chainId, pot, challengeId, int256 latE6,
 * int256 lonE6, bytes32 salt)). */
export function solutionCommitment(input: SolutionInput): string {
  const words = [
    tagWord(SOLUTION_TAG),
    uintWord(input.chainId),
    addressWord(input.pot),
    uintWord(input.challengeId),
    intWord(input.latE6),
    intWord(input.lonE6),
    saltWord(input.salt),
  ];
  return toHex(sha256Bytes(concat(words)));
}

/** The pot's keccak encodings (contracts/GeopoemPot.sol; docs/protocol.md section 1), mirroring
 * chain/pot/encoding.py: keccak256 of `abi.encode` of static types, the words written by ./abi.ts.
 * keccak256 is ethers', loaded lazily (../ethers-lazy.ts) so the first paint never waits for it.
 * Hashes are lowercase hex without 0x, as the commitments. */
import { loadEthers } from "../ethers-lazy";
import { addressWord, bytes32Word, concat, tagWord, uintWord } from "./abi";

export const STAKE_TAG = "geopoem:stake:v1";

/** GeopoemPot.Terms, field for field. Times are Unix seconds, amounts token units; the two hashes are
 * 64 hex digits (with or without 0x). */
export interface Terms {
  solutionCommitment: string;
  termsHash: string;
  thresholdM: bigint;
  opensAt: bigint;
  closesAt: bigint;
  solutionDeadline: bigint;
  guessWindow: bigint;
  minStake: bigint;
  bond: bigint;
}

async function keccakHex(words: Uint8Array[]): Promise<string> {
  const { keccak256 } = await loadEthers();
  return keccak256(concat(words)).slice(2);
}

/** The struct as abi.encode writes a static tuple: its fields in order, one word each, refused when a
 * field's Solidity type cannot hold it. */
function termsWords(terms: Terms): Uint8Array[] {
  return [
    bytes32Word(terms.solutionCommitment),
    bytes32Word(terms.termsHash),
    uintWord(terms.thresholdM, 32),
    uintWord(terms.opensAt, 32),
    uintWord(terms.closesAt, 32),
    uintWord(terms.solutionDeadline, 32),
    uintWord(terms.guessWindow, 32),
    uintWord(terms.minStake, 64),
    uintWord(terms.bond, 96),
  ];
}

/** keccak256(abi.encode(uint256 challengeId, Terms)): what a stake's nonce binds, so a signature funds
 * a stake only on the terms the player read. */
export async function termsDigest(challengeId: bigint, terms: Terms): Promise<string> {
  return keccakHex([uintWord(challengeId), ...termsWords(terms)]);
}

export interface StakeNonceInput {
  chainId: bigint;
  pot: string;
  challengeId: bigint;
  termsDigest: string;
  commitment: string;
  amount: bigint;
}

/** keccak256(abi.encode(bytes32 "geopoem:stake:v1", chainId, pot, challengeId, termsDigest,
 * commitment, uint256 amount)): the `nonce` the player's ReceiveWithAuthorization signs. */
export async function stakeNonce(input: StakeNonceInput): Promise<string> {
  return keccakHex([
    tagWord(STAKE_TAG),
    uintWord(input.chainId),
    addressWord(input.pot),
    uintWord(input.challengeId),
    bytes32Word(input.termsDigest),
    bytes32Word(input.commitment),
    uintWord(input.amount),
  ]);
}

export interface StakeHashInput {
  payer: string;
  amount: bigint;
  commitment: string;
}

/** keccak256(abi.encode(address payer, uint256 amount, bytes32 commitment)): the slot the pot keeps
 * per stake. */
export async function stakeHash(input: StakeHashInput): Promise<string> {
  return keccakHex([addressWord(input.payer), uintWord(input.amount), bytes32Word(input.commitment)]);
}

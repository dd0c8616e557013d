/** The ABI words and the keccak values every implementation of the protocol must compute bit for bit
 * (docs/protocol.md sections 1 and 2; contracts/GeopoemPot.sol is normative): the terms digest a
 * signed stake binds, the stake nonce the player signs, and the stake hash the pot keeps. Words are
 * 64 lowercase hex characters without 0x; a keccak value is returned as 0x + 64 hex, the form the
 * chain and the wallet take. Keccak comes from ethers' lazy chunk (loaded once the wallet is used),
 * so these are async. */
import { loadEthers } from "@/lib/ethers-lazy";

const TWO_256 = 1n << 256n;
const HEX64 = /^[0-9a-f]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** A uint256 word. */
export function uintWord(value: bigint | number): string {
  const n = BigInt(value);
  if (n < 0n || n >= TWO_256) throw new RangeError(`not a uint256: ${n}`);
  return n.toString(16).padStart(64, "0");
}

/** An int256 word, two's complement. */
export function intWord(value: bigint | number): string {
  const n = BigInt(value);
  if (n < -(1n << 255n) || n >= 1n << 255n) throw new RangeError(`not an int256: ${n}`);
  return (n < 0n ? TWO_256 + n : n).toString(16).padStart(64, "0");
}

/** An address, left-padded. */
export function addressWord(address: string): string {
  if (!ADDRESS.test(address)) throw new Error(`not an address: ${address}`);
  return address.slice(2).toLowerCase().padStart(64, "0");
}

/** A bytes32, written with or without 0x. */
export function bytes32Word(value: string): string {
  const hex = value.replace(/^0x/, "").toLowerCase();
  if (!HEX64.test(hex)) throw new Error(`not 32 bytes: ${value}`);
  return hex;
}

/** Solidity's `bytes32 "text"`: the ASCII left-aligned, zero-padded. */
export function tagWord(tag: string): string {
  if (!/^[\x20-\x7e]{1,32}$/.test(tag)) throw new Error(`not a short ASCII tag: ${tag}`);
  return Array.from(tag, (c) => c.charCodeAt(0).toString(16).padStart(2, "0"))
    .join("")
    .padEnd(64, "0");
}

export const STAKE_TAG = "geopoem:stake:v1";

/** What `open` fixes (GeopoemPot.Terms), in the contract's units: times in Unix seconds, amounts in
 * token units, the two hashes as 64 hex characters (with or without 0x). */
export interface PotTerms {
  solutionCommitment: string;
  termsHash: string;
  thresholdM: number;
  opensAt: number;
  closesAt: number;
  solutionDeadline: number;
  guessWindow: number;
  minStake: bigint;
  bond: bigint;
}

/** abi.encode(Terms): the static tuple's nine words. */
export function termsWords(terms: PotTerms): string[] {
  return [
    bytes32Word(terms.solutionCommitment),
    bytes32Word(terms.termsHash),
    uintWord(terms.thresholdM),
    uintWord(terms.opensAt),
    uintWord(terms.closesAt),
    uintWord(terms.solutionDeadline),
    uintWord(terms.guessWindow),
    uintWord(terms.minStake),
    uintWord(terms.bond),
  ];
}

async function keccakWords(words: string[]): Promise<string> {
  const { keccak256 } = await loadEthers();
  return keccak256(`0x${words.join("")}`).toLowerCase();
}

/** keccak256(abi.encode(uint256 challengeId, Terms)): ten words. */
export function termsDigest(challengeId: number | bigint, terms: PotTerms): Promise<string> {
  return keccakWords([uintWord(challengeId), ...termsWords(terms)]);
}

export interface StakeNonceInput {
  chainId: number;
  pot: string;
  challengeId: number | bigint;
  termsDigest: string;
  /** The guess commitment, 64 hex characters with or without 0x. */
  commitment: string;
  /** Token units. */
  amount: bigint;
}

/** The nonce of the player's ReceiveWithAuthorization: keccak256(abi.encode(bytes32
 * "geopoem:stake:v1", chainId, pot, challengeId, termsDigest, commitment, uint256 amount)). */
export function stakeNonce({ chainId, pot, challengeId, termsDigest, commitment, amount }: StakeNonceInput) {
  return keccakWords([
    tagWord(STAKE_TAG),
    uintWord(chainId),
    addressWord(pot),
    uintWord(challengeId),
    bytes32Word(termsDigest),
    bytes32Word(commitment),
    uintWord(amount),
  ]);
}

/** The one storage slot of a stake: keccak256(abi.encode(address payer, uint256 amount, bytes32 commitment)). */
export function stakeHash({ payer, amount, commitment }: { payer: string; amount: bigint; commitment: string }) {
  return keccakWords([addressWord(payer), uintWord(amount), bytes32Word(commitment)]);
}

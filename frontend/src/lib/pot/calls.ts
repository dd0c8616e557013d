/** The pot's and the token's functions the page calls, encoded by hand (static ABI words only, so no
 * ABI library in the page), and the views it reads (contracts/GeopoemPot.sol). Selectors are the
 * first 4 bytes of keccak256 of each signature; calls.test.ts checks them against the compiled ABI. */
import * as abi from "@/lib/protocol/abi";
import type { Terms } from "@/lib/protocol/encoding";
import { toQuantity, type Rpc } from "./rpc";

export const SELECTORS = {
  termsOf: "0xbadc2dff",
  stateOf: "0x131a7e24",
  stake: "0x19f2de18",
  stakeWithAuthorization: "0x9ee4741f",
  revealGuess: "0x7c7758d2",
  balanceOf: "0x70a08231",
  allowance: "0xdd62ed3e",
  approve: "0x095ea7b3",
} as const;

// The ABI words as hex (lib/protocol/abi.ts writes them; a call is their concatenation after the selector).
const uintWord = (value: number | bigint) => abi.toHex(abi.uintWord(BigInt(value)));
const intWord = (value: bigint) => abi.toHex(abi.intWord(value));
const addressWord = (address: string) => abi.toHex(abi.addressWord(address));
const bytes32Word = (value: string) => abi.toHex(abi.bytes32Word(value));

const call = (selector: string, words: string[]) => selector + words.join("");

/** The terms as termsOf answers them, times and the threshold as numbers. */
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

/** The same terms as lib/protocol/encoding.ts hashes them. */
export function toTerms(terms: PotTerms): Terms {
  return {
    ...terms,
    thresholdM: BigInt(terms.thresholdM),
    opensAt: BigInt(terms.opensAt),
    closesAt: BigInt(terms.closesAt),
    solutionDeadline: BigInt(terms.solutionDeadline),
    guessWindow: BigInt(terms.guessWindow),
  };
}

export function termsOfData(challengeId: number): string {
  return call(SELECTORS.termsOf, [uintWord(challengeId)]);
}

export function stateOfData(challengeId: number): string {
  return call(SELECTORS.stateOf, [uintWord(challengeId)]);
}

export function balanceOfData(owner: string): string {
  return call(SELECTORS.balanceOf, [addressWord(owner)]);
}

export function allowanceData(owner: string, spender: string): string {
  return call(SELECTORS.allowance, [addressWord(owner), addressWord(spender)]);
}

export function approveData(spender: string, amount: bigint): string {
  return call(SELECTORS.approve, [addressWord(spender), uintWord(amount)]);
}

/** stake(challengeId, commitment, amount): the stake by approval, the caller its payer. */
export function stakeData(challengeId: number, commitment: string, amount: bigint): string {
  return call(SELECTORS.stake, [uintWord(challengeId), bytes32Word(commitment), uintWord(amount)]);
}

export interface SignedStake {
  challengeId: number;
  commitment: string;
  payer: string;
  amount: bigint;
  validAfter: number;
  validBefore: number;
  /** 0x + r ‖ s ‖ v, v 27 or 28. */
  signature: string;
}

/** stakeWithAuthorization(challengeId, commitment, payer, amount, validAfter, validBefore, v, r, s):
 * what the relayer sends, and the player's "Send it yourself". */
export function stakeWithAuthorizationData(stake: SignedStake): string {
  const hex = stake.signature.replace(/^0x/, "");
  if (!/^[0-9a-fA-F]{130}$/.test(hex)) throw new Error("not a 65-byte signature");
  const v = Number.parseInt(hex.slice(128, 130), 16);
  return call(SELECTORS.stakeWithAuthorization, [
    uintWord(stake.challengeId),
    bytes32Word(stake.commitment),
    addressWord(stake.payer),
    uintWord(stake.amount),
    uintWord(stake.validAfter),
    uintWord(stake.validBefore),
    uintWord(v < 27 ? v + 27 : v),
    bytes32Word(hex.slice(0, 64)),
    bytes32Word(hex.slice(64, 128)),
  ]);
}

export interface GuessReveal {
  challengeId: number;
  seq: number;
  payer: string;
  amount: bigint;
  latE6: bigint;
  lonE6: bigint;
  salt: string;
}

/** revealGuess(challengeId, seq, payer, amount, latE6, lonE6, salt), by anyone in the guess window. */
export function revealGuessData(reveal: GuessReveal): string {
  return call(SELECTORS.revealGuess, [
    uintWord(reveal.challengeId),
    uintWord(reveal.seq),
    addressWord(reveal.payer),
    uintWord(reveal.amount),
    intWord(reveal.latE6),
    intWord(reveal.lonE6),
    bytes32Word(reveal.salt),
  ]);
}

/** The 32-byte words of an answer. */
export function words(data: unknown): string[] {
  if (typeof data !== "string" || !/^0x([0-9a-f]{64})*$/i.test(data)) throw new Error("not an ABI answer");
  return data.slice(2).toLowerCase().match(/.{64}/g) ?? [];
}

const big = (word: string | undefined) => BigInt(`0x${word ?? "0"}`);
const num = (word: string | undefined) => Number(big(word));

export interface TermsOnChain {
  terms: PotTerms;
  termsDigest: string;
  /** `open` never ran for this id (closesAt 0). */
  opened: boolean;
}

export function decodeTerms(data: unknown): TermsOnChain {
  const w = words(data);
  if (w.length < 10) throw new Error("termsOf answered too few words");
  const terms: PotTerms = {
    solutionCommitment: w[0]!,
    termsHash: w[1]!,
    thresholdM: num(w[2]),
    opensAt: num(w[3]),
    closesAt: num(w[4]),
    solutionDeadline: num(w[5]),
    guessWindow: num(w[6]),
    minStake: big(w[7]),
    bond: big(w[8]),
  };
  return { terms, termsDigest: `0x${w[9]}`, opened: terms.closesAt !== 0 };
}

export interface PotState {
  stakeCount: number;
  pot: bigint;
  guessDeadline: number;
  earliestSeq: number;
  highestSeq: number;
  highestAmount: bigint;
  finalized: boolean;
  earliestPaid: boolean;
  highestPaid: boolean;
  sharePaid: boolean;
  aborted: boolean;
  refundedStake: bigint;
  refundedBond: bigint;
}

export function decodeState(data: unknown): PotState {
  const w = words(data);
  if (w.length < 14) throw new Error("stateOf answered too few words");
  return {
    stakeCount: num(w[0]),
    pot: big(w[1]),
    guessDeadline: num(w[2]),
    earliestSeq: num(w[3]),
    highestSeq: num(w[4]),
    highestAmount: big(w[5]),
    finalized: big(w[6]) !== 0n,
    earliestPaid: big(w[7]) !== 0n,
    highestPaid: big(w[8]) !== 0n,
    sharePaid: big(w[9]) !== 0n,
    aborted: big(w[10]) !== 0n,
    refundedStake: big(w[11]),
    refundedBond: big(w[12]),
  };
}

const ethCall = (rpc: Rpc, to: string, data: string) => rpc("eth_call", [{ to, data }, "latest"]);

export async function readTerms(rpc: Rpc, pot: string, challengeId: number): Promise<TermsOnChain> {
  return decodeTerms(await ethCall(rpc, pot, termsOfData(challengeId)));
}

export async function readState(rpc: Rpc, pot: string, challengeId: number): Promise<PotState> {
  return decodeState(await ethCall(rpc, pot, stateOfData(challengeId)));
}

export async function readTokenBalance(rpc: Rpc, token: string, owner: string): Promise<bigint> {
  return big(words(await ethCall(rpc, token, balanceOfData(owner)))[0]);
}

export async function readAllowance(rpc: Rpc, token: string, owner: string, spender: string): Promise<bigint> {
  return big(words(await ethCall(rpc, token, allowanceData(owner, spender)))[0]);
}

export async function readEthBalance(rpc: Rpc, owner: string): Promise<bigint> {
  const value = await rpc("eth_getBalance", [owner, "latest"]);
  return typeof value === "string" ? BigInt(value) : 0n;
}

/** The latest block's number and timestamp: the chain's time, the one that counts. */
export async function readHead(rpc: Rpc): Promise<{ number: number; timestamp: number }> {
  const block = (await rpc("eth_getBlockByNumber", ["latest", false])) as {
    number?: string;
    timestamp?: string;
  } | null;
  if (!block?.number || !block.timestamp) throw new Error("the node gave no latest block");
  return { number: Number(BigInt(block.number)), timestamp: Number(BigInt(block.timestamp)) };
}

/** A call simulated from `from` (eth_call): resolves when it would pass, rejects with the node's
 * error (its revert data) when it would revert. */
export async function simulate(rpc: Rpc, tx: { from: string; to: string; data: string }): Promise<void> {
  await rpc("eth_call", [{ ...tx, value: toQuantity(0) }, "latest"]);
}

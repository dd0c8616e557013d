/** Solidity ABI words written by hand: what `abi.encode` makes of the static types the pot hashes
 * (contracts/GeopoemPot.sol), one 32-byte word each. Mirrors challenges/abi.py. Spelled out rather
 * than taken from ethers so that a commitment needs no library chunk; each function refuses a value its
 * Solidity type cannot hold rather than wrapping it (a wrapped value hashes to a commitment the contract
 * can never reproduce). */

export const WORD = 32;
const ADDRESS = /^(?:0x)?[0-9a-fA-F]{40}$/;
const BYTES32 = /^(?:0x)?[0-9a-fA-F]{64}$/;

function fromHex(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function word(value: bigint): Uint8Array {
  // value is in [0, 2^256): 64 hex digits, big-endian.
  return fromHex(value.toString(16).padStart(2 * WORD, "0"));
}

/** uintN, big-endian, left-padded with zeros. */
export function uintWord(value: bigint, bits = 256): Uint8Array {
  if (value < 0n || value >= 1n << BigInt(bits)) throw new RangeError(`not a uint${bits}: ${value}`);
  return word(value);
}

/** intN in two's complement over the whole word (a negative value is padded with 0xff). */
export function intWord(value: bigint, bits = 256): Uint8Array {
  const half = 1n << BigInt(bits - 1);
  if (value < -half || value >= half) throw new RangeError(`not an int${bits}: ${value}`);
  return word(value < 0n ? (1n << 256n) + value : value);
}

/** An address ("0x" and 40 hex digits, any case: the bytes count, not the checksum), left-padded. */
export function addressWord(address: string): Uint8Array {
  if (!ADDRESS.test(address)) throw new RangeError(`not an address: ${address}`);
  const bytes = new Uint8Array(WORD);
  bytes.set(fromHex(address.replace(/^0x/, "")), WORD - 20);
  return bytes;
}

/** A bytes32 given as 64 hex digits, with or without "0x". */
export function bytes32Word(value: string): Uint8Array {
  if (!BYTES32.test(value)) throw new RangeError(`not a bytes32: ${value}`);
  return fromHex(value.replace(/^0x/, "").toLowerCase());
}

/** A Solidity bytes32 string literal: the ASCII bytes left-aligned, zero-padded on the right. */
export function tagWord(tag: string): Uint8Array {
  if (!/^[\x20-\x7e]*$/.test(tag) || tag.length > WORD) throw new RangeError(`not a bytes32 literal: ${tag}`);
  const bytes = new Uint8Array(WORD);
  bytes.set(new TextEncoder().encode(tag));
  return bytes;
}

export function concat(words: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(words.reduce((sum, w) => sum + w.length, 0));
  let offset = 0;
  for (const w of words) {
    out.set(w, offset);
    offset += w.length;
  }
  return out;
}

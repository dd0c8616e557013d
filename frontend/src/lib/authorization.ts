/** The EIP-3009 ReceiveWithAuthorization a player signs to stake into the pot (docs/protocol.md
 * section 2, "What the player signs"), as the JSON eth_signTypedData_v4 takes: the token's domain
 * read from the chain by the server (never written here), from the player to the pot, the stake in
 * token units, valid from 0 until `validBefore`, with the stake nonce (lib/protocol/encoding.ts),
 * which binds the chain, the pot, the challenge and its terms, the commitment and the amount. Only
 * the payee (the pot) can use a receive authorization, so a copy taken from the mempool cannot move
 * the USDC without the pot's function running. Plain data, no library: the wallet hashes it. */

export interface AuthorizationDomain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: string;
}

export interface ReceiveAuthorization {
  from: string;
  to: string;
  /** Token units. */
  value: bigint;
  /** Unix seconds; the page signs 0. */
  validAfter: number;
  /** Unix seconds: the token refuses it from then on. */
  validBefore: number;
  /** The stake nonce, 64 hex characters with or without 0x. */
  nonce: string;
}

export const RECEIVE_WITH_AUTHORIZATION_TYPES = {
  EIP712Domain: [
    { name: "name", type: "string" },
    { name: "version", type: "string" },
    { name: "chainId", type: "uint256" },
    { name: "verifyingContract", type: "address" },
  ],
  ReceiveWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

const bytes32 = (hex: string) => `0x${hex.replace(/^0x/, "").toLowerCase()}`;

/** The typed data of one `ReceiveWithAuthorization`. The uint256 fields are decimal strings (exact
 * for any amount; wallets read them as numbers), the chain id a number, as in the domain the API gives. */
export function receiveAuthorizationTypedData(domain: AuthorizationDomain, authorization: ReceiveAuthorization) {
  return {
    types: RECEIVE_WITH_AUTHORIZATION_TYPES,
    primaryType: "ReceiveWithAuthorization" as const,
    domain: {
      name: domain.name,
      version: domain.version,
      chainId: domain.chainId,
      verifyingContract: domain.verifyingContract,
    },
    message: {
      from: authorization.from,
      to: authorization.to,
      value: authorization.value.toString(),
      validAfter: String(authorization.validAfter),
      validBefore: String(authorization.validBefore),
      nonce: bytes32(authorization.nonce),
    },
  };
}

export interface SignatureParts {
  v: number;
  r: string;
  s: string;
}

const SIGNATURE = /^0x[0-9a-f]{130}$/i;

/** `0x` + r ‖ s ‖ v, as eth_signTypedData_v4 returns it; a `v` of 0 or 1 (some hardware wallets)
 * is read as 27 or 28, the only values the token's ECRecover takes. Null for anything else. */
export function splitSignature(signature: string): SignatureParts | null {
  if (!SIGNATURE.test(signature)) return null;
  const hex = signature.slice(2).toLowerCase();
  let v = Number.parseInt(hex.slice(128, 130), 16);
  if (v === 0 || v === 1) v += 27;
  if (v !== 27 && v !== 28) return null;
  return { r: `0x${hex.slice(0, 64)}`, s: `0x${hex.slice(64, 128)}`, v };
}

/** The signature in the form the protocol names (`v` 27 or 28), or null when it is not one. */
export function normalizeSignature(signature: string): string | null {
  const parts = splitSignature(signature);
  if (!parts) return null;
  return `0x${parts.r.slice(2)}${parts.s.slice(2)}${parts.v.toString(16)}`;
}

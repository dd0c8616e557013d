import { loadEthers } from "./ethers-lazy";

/** ERC-20 transfer(address,uint256). */
export const TRANSFER_SELECTOR = "0xa9059cbb";

export interface StakeCalldataInput {
  treasury: string;
  amountUnits: bigint;
  /** 64 hex characters, with or without 0x. */
  commitment: string;
  challengeId: number;
  /** Unix seconds when the player confirmed. */
  timestamp: number;
}

/** The stake transfer's data (docs/protocol.md section 2):
 * 0xa9059cbb ‖ pad32(treasury) ‖ uint256(amount) ‖ bytes32(commitment) ‖ uint256(challengeId) ‖ uint256(unixSeconds).
 * ERC-20 transfer ignores the trailing words; the server reads them back from the input. */
export async function stakeCalldata({ treasury, amountUnits, commitment, challengeId, timestamp }: StakeCalldataInput) {
  const { AbiCoder, getAddress } = await loadEthers();
  const words = AbiCoder.defaultAbiCoder().encode(
    ["address", "uint256", "bytes32", "uint256", "uint256"],
    [
      getAddress(treasury.toLowerCase()),
      amountUnits,
      `0x${commitment.replace(/^0x/, "")}`,
      BigInt(challengeId),
      BigInt(timestamp),
    ],
  );
  return TRANSFER_SELECTOR + words.slice(2);
}

/** transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32). */
export const TRANSFER_WITH_AUTHORIZATION_SELECTOR = "0xe3ee160e";

export interface RelayedStakeInput {
  from: string;
  to: string;
  value: bigint;
  validAfter: number;
  validBefore: number;
  /** The guess commitment, 64 hex characters with or without 0x. */
  nonce: string;
  v: number;
  r: string;
  s: string;
  challengeId: number;
}

/** The relayed stake's 324 bytes (docs/protocol.md section 2a, "The relayed transaction"): the
 * token's transferWithAuthorization with its nine ABI words, then Geopoem's challenge id, which the
 * token ignores and the ledger and verifiers read. What the relayer sends, and the page's "Send it
 * yourself" (chain/authorization.py, encode_relayed_stake). */
export async function relayedStakeCalldata(input: RelayedStakeInput) {
  const { AbiCoder, getAddress } = await loadEthers();
  const words = AbiCoder.defaultAbiCoder().encode(
    ["address", "address", "uint256", "uint256", "uint256", "bytes32", "uint8", "bytes32", "bytes32", "uint256"],
    [
      getAddress(input.from.toLowerCase()),
      getAddress(input.to.toLowerCase()),
      input.value,
      BigInt(input.validAfter),
      BigInt(input.validBefore),
      `0x${input.nonce.replace(/^0x/, "")}`,
      input.v,
      input.r,
      input.s,
      BigInt(input.challengeId),
    ],
  );
  return TRANSFER_WITH_AUTHORIZATION_SELECTOR + words.slice(2);
}

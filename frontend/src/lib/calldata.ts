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

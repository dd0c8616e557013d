import vectors from "../../tests/vectors.json";
import type { StoredSubmission } from "@/wallet/pending";
import { PLAYER, TX_HASH } from "./fakeWallet";

/** This browser's record of a guess it paid and posted (wallet/pending.ts), for the My submissions
 * tests: the player's address, the fake wallet's transaction, "submitted". `over` names what a test
 * changes. */
export function submittedRecord(over: Partial<StoredSubmission> = {}): StoredSubmission {
  return {
    salt: "1".repeat(64),
    challengeId: 7,
    text: "29.979175, 31.134258",
    stake: "2.5",
    chainId: 11155111,
    submitterAddress: PLAYER,
    transactionHash: TX_HASH,
    state: "submitted",
    createdAt: 1767225600000,
    ...over,
  };
}

/** The shared vector of a stake paid by signature (tests/vectors.json, transferAuthorizations[0]):
 * the flow's unit guess (challenge 1, the zero salt, 1 USDC) signed by the fake wallet's player. */
export const SIGNED_VECTOR = vectors.transferAuthorizations.cases[0]!;

/** This browser's record of a guess paid by signature and recorded by Geopoem (wallet/pending.ts):
 * the shared vector's typed data and signature. `over` names what a test changes. */
export function signedRecord(over: Partial<StoredSubmission> = {}): StoredSubmission {
  const v = SIGNED_VECTOR;
  return {
    salt: "0".repeat(64),
    challengeId: v.challengeId,
    text: "29.979175, 31.134258",
    stake: "1",
    chainId: v.domain.chainId,
    submitterAddress: v.message.from,
    commitment: v.message.nonce.slice(2),
    paymentMethod: "authorization",
    authorization: {
      token: v.domain,
      to: v.message.to,
      value: v.message.value,
      validAfter: v.message.validAfter,
      validBefore: v.message.validBefore,
      signature: v.signature,
    },
    state: "submitted",
    createdAt: (v.message.validBefore - 1800) * 1000,
    postedAt: (v.message.validBefore - 1800) * 1000,
    ...over,
  };
}

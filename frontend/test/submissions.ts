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

import type { PublicConfig } from "@/config";
import { splitSignature } from "@/lib/authorization";
import { relayedStakeCalldata } from "@/lib/calldata";
import { WALLET_MESSAGES, WalletError } from "./errors";
import { connectAccount, ensureChain, sendTransaction, type ExpectChainSwitch } from "./flow";
import { updateSubmission, type StoredSubmission } from "./pending";
import type { Receipt } from "./replacement";
import type { EIP1193Provider } from "./types";

/** "Send it yourself" (docs/protocol.md 3.3a): the player's wallet submits their own signed
 * authorization to the token, as the relayer would, with the same 324 bytes (section 2a, "The
 * relayed transaction"). Any account may send it; the wallet's current one does, and pays the gas.
 * The site finds the transaction on chain by the token's AuthorizationUsed log: nothing is posted.
 * What happened is kept in the record (`selfSent`), so a reload still shows it. */

/** The 324 bytes of the record's signed authorization; null when the record has no signature. */
export async function selfSendCalldata(record: StoredSubmission): Promise<string | null> {
  const signed = record.authorization;
  const parts = signed?.signature ? splitSignature(signed.signature) : null;
  if (!signed || !parts || !record.submitterAddress || !record.commitment) return null;
  return relayedStakeCalldata({
    from: record.submitterAddress,
    to: signed.to,
    value: BigInt(signed.value),
    validAfter: signed.validAfter,
    validBefore: signed.validBefore,
    nonce: record.commitment,
    ...parts,
    challengeId: record.challengeId,
  });
}

/** Asks the wallet for its account and the configured chain, then sends the relayed call to the
 * token. Returns the hash; the record says "sent", or "error" with the wallet's sentence. */
export async function sendItYourself(
  record: StoredSubmission,
  {
    provider,
    config,
    expectChainSwitch,
  }: { provider: EIP1193Provider | null; config: PublicConfig; expectChainSwitch: ExpectChainSwitch },
): Promise<string> {
  updateSubmission(record.salt, { selfSent: { state: "sending" } });
  try {
    if (!provider) throw new WalletError("notInstalled", WALLET_MESSAGES.notInstalled);
    const data = await selfSendCalldata(record);
    if (!data) throw new Error("this browser has no signature for this guess");
    const account = await connectAccount(provider);
    await ensureChain(provider, config, expectChainSwitch);
    const hash = await sendTransaction(provider, { from: account, to: config.usdcAddress, data });
    updateSubmission(record.salt, { selfSent: { state: "sent", hash } });
    return hash;
  } catch (error) {
    const message = error instanceof Error && error.message ? error.message : String(error);
    updateSubmission(record.salt, { selfSent: { state: "error", message } });
    throw error;
  }
}

/** One look at the player's own transaction through the wallet: "mined" (status 1), "failed"
 * (status 0: the authorization was used first or had expired), or null while it waits. The record
 * is updated when it is mined either way. */
export async function followSelfSent(record: StoredSubmission, provider: EIP1193Provider): Promise<string | null> {
  const hash = record.selfSent?.hash;
  if (!hash || record.selfSent?.state !== "sent") return null;
  const receipt = (await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as Receipt | null;
  if (!receipt) return null;
  const state = receipt.status === "0x1" ? "mined" : "failed";
  updateSubmission(record.salt, { selfSent: { state, hash } });
  return state;
}

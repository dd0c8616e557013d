/** What the page checks before the wallet is asked to sign or send (docs/protocol.md section 2,
 * "Refusals"): that the challenge it shows is the one the pot holds (the terms hash recomputed from
 * the texts on screen, the threshold, the close, the minimum), that the pot still takes stakes with
 * a margin before the close, and that the wallet holds the USDC (and, to pay by approval, the ETH).
 * Each refusal is a sentence that says what to do instead; the wallet and the chain are never left
 * to fail. */
import { termsSha256 } from "@/lib/commitment";
import { decimalToUnits, unitsToDecimal } from "@/lib/stake";
import { readEthBalance, readHead, readTerms, readTokenBalance, type TermsOnChain } from "./calls";
import { PREFLIGHT, potSentence as sentence, StakeRefused } from "./refusals";
import type { Chain } from "./rpc";

export { PREFLIGHT, StakeRefused };

/** The challenge as the page shows it (the API's fields the pot's terms must match). */
export interface ShownChallenge {
  id: number;
  poemTitle: string;
  poemText: string;
  instructionsText: string;
  proximityThreshold: number | null;
  closesTimestamp: number;
  minStake: string;
  solutionSha256: string;
}

const same = (a: string, b: string) => a.replace(/^0x/, "").toLowerCase() === b.replace(/^0x/, "").toLowerCase();

/** What differs between the challenge shown and the pot's terms, in the player's words. */
export async function termsDifferences(shown: ShownChallenge, onChain: TermsOnChain): Promise<string[]> {
  const { terms } = onChain;
  const what: string[] = [];
  const hash = await termsSha256({
    challengeId: shown.id,
    poemTitle: shown.poemTitle,
    poemText: shown.poemText,
    instructionsText: shown.instructionsText,
  });
  if (!same(hash, terms.termsHash)) what.push("the poem, its title or the instructions");
  if ((shown.proximityThreshold ?? 0) !== terms.thresholdM) what.push("the proximity threshold");
  if (shown.closesTimestamp !== terms.closesAt) what.push("the close");
  if (decimalToUnits(shown.minStake) !== terms.minStake) what.push("the minimum stake");
  if (!same(shown.solutionSha256, terms.solutionCommitment)) what.push("the solution hash");
  return what;
}

/** The pot's terms for the challenge shown, once they match, and the chain's time; refuses when they
 * differ, when the challenge is not open, or closes within `marginSeconds`. */
export async function checkChallenge(
  chain: Chain,
  { pot, shown, marginSeconds }: { pot: string; shown: ShownChallenge; marginSeconds: number },
): Promise<{ onChain: TermsOnChain; chainTime: number }> {
  let onChain: TermsOnChain;
  let chainTime: number;
  try {
    [onChain, chainTime] = await Promise.all([
      readTerms(chain.rpc, pot, shown.id),
      readHead(chain.rpc).then((head) => head.timestamp),
    ]);
  } catch {
    throw new StakeRefused(PREFLIGHT.unreadable);
  }
  if (!onChain.opened) throw new StakeRefused(sentence("NotOpened"));
  const what = await termsDifferences(shown, onChain);
  if (what.length) throw new StakeRefused(PREFLIGHT.differs(what));
  const { opensAt, closesAt } = onChain.terms;
  if (chainTime < opensAt) throw new StakeRefused(sentence("NotOpenYet"));
  if (chainTime >= closesAt) throw new StakeRefused(sentence("StakingClosed"));
  if (chainTime >= closesAt - marginSeconds) throw new StakeRefused(PREFLIGHT.closingSoon(marginSeconds));
  return { onChain, chainTime };
}

export function checkAmount(onChain: TermsOnChain, units: bigint, decimals = 6): void {
  if (units < onChain.terms.minStake)
    throw new StakeRefused(PREFLIGHT.belowMinimum(unitsToDecimal(onChain.terms.minStake, decimals)));
}

export async function checkUsdc(
  chain: Chain,
  { token, payer, units, decimals = 6 }: { token: string; payer: string; units: bigint; decimals?: number },
): Promise<void> {
  let held: bigint;
  try {
    held = await readTokenBalance(chain.rpc, token, payer);
  } catch {
    return; // unreadable: the token's own refusal is worded the same if it comes
  }
  if (held < units) throw new StakeRefused(PREFLIGHT.noUsdc(unitsToDecimal(held, decimals)));
}

/** Gas a stake by approval needs at most: an approval (about 46,000) and the stake (about 110,000
 * behind a proxied token), with a margin. */
export const APPROVAL_PATH_GAS = 200_000n;

export async function checkGas(
  chain: Chain,
  { payer, gas, symbol, signatureOffered }: { payer: string; gas: bigint; symbol: string; signatureOffered: boolean },
): Promise<void> {
  let balance: bigint;
  let price = 1n;
  try {
    balance = await readEthBalance(chain.rpc, payer);
    const quoted = await chain.rpc("eth_gasPrice");
    if (typeof quoted === "string") price = BigInt(quoted);
  } catch {
    return;
  }
  if (balance < gas * price) throw new StakeRefused(PREFLIGHT.noGas(symbol, signatureOffered));
}

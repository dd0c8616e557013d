/** The sentences of the page's own refusals before the wallet is asked (preflight.ts), apart from
 * the checks themselves so that the form can show and recognise them without loading the chain
 * code. */
import { POT_ERRORS } from "@/lib/protocol/errors";

/** The page will not ask the wallet: `message` says why and what to do. */
export class StakeRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StakeRefused";
  }
}

/** The pot's sentence for its error `name` (docs/protocol.md section 2, "Refusals"). */
export const potSentence = (name: string) =>
  POT_ERRORS[Object.keys(POT_ERRORS).find((k) => POT_ERRORS[k]!.name === name)!]!.sentence;

export const PREFLIGHT = {
  unreadable:
    "This page could not read the challenge's terms from the chain, so it cannot check them before you stake. Try again in a moment.",
  differs: (what: string[]) =>
    `The challenge shown here differs from its terms in the pot (${what.join(", ")}), so this page takes no stake on it. Reload the page; if it still differs, do not stake.`,
  closingSoon: (seconds: number) =>
    `This challenge closes in less than ${seconds >= 120 ? `${Math.floor(seconds / 60)} minutes` : `${seconds} seconds`}: a stake sent now could reach the chain after the close, when the pot refuses it, so this page takes no more stakes.`,
  belowMinimum: (minimum: string) => `${potSentence("StakeBelowMinimum")} Stake at least ${minimum} USDC.`,
  noUsdc: (held: string) =>
    `This wallet does not hold enough USDC for the stake: it holds ${held} USDC. Add USDC to it, or stake less.`,
  noGas: (symbol: string, signatureOffered: boolean) =>
    `This wallet does not hold enough ${symbol} to pay for the gas that paying by approval needs.` +
    (signatureOffered ? " Pay by signature instead: it needs no ETH." : ` Add a little ${symbol} to it first.`),
} as const;

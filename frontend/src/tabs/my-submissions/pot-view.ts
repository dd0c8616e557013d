import { useQuery } from "@tanstack/react-query";
import { getPublicConfig, potPin } from "@/config";
import { readState, readTerms, type PotState, type TermsOnChain } from "@/lib/pot/calls";
import { payerFilters, readPotEvents, type PotEvent } from "@/lib/pot/events";
import { pageChain } from "@/lib/pot/rpc";
import { haversineMeters } from "@/lib/distance";
import { isCorrect, type Point } from "@/lib/protocol/geometry";
import type { EIP1193Provider } from "@/wallet/types";

/** What the pot itself says about a payer's stakes in one challenge (docs/protocol.md section 2,
 * "Events and views"), read through the page's node: outcomes and payments come from here, not
 * from the site's word. */

export interface PotView {
  events: PotEvent[];
  terms: TermsOnChain;
  state: PotState;
  /** The chain's time when read. */
  chainTime: number;
}

/** How often a stake's view of the pot is read again while the challenge is not settled for it. */
export const POT_VIEW_FOLLOW_MS = 30_000;

export function usePotView(
  challengeId: number,
  payer: string | undefined,
  { enabled, provider }: { enabled: boolean; provider: EIP1193Provider | null },
) {
  const config = getPublicConfig();
  const pin = potPin(config);
  const chain = pageChain(config, provider);
  return useQuery({
    queryKey: ["pot-view", config.potAddress, challengeId, payer?.toLowerCase()],
    enabled: enabled && Boolean(chain && payer && config.potAddress),
    queryFn: async (): Promise<PotView> => {
      const fromBlock = pin.state === "pinned" ? pin.pot.deployBlock : config.potDeployBlock;
      const [events, terms, state, head] = await Promise.all([
        readPotEvents(chain!, { pot: config.potAddress, fromBlock, filters: payerFilters(challengeId, payer!) }),
        readTerms(chain!.rpc, config.potAddress, challengeId),
        readState(chain!.rpc, config.potAddress, challengeId),
        chain!.rpc("eth_getBlockByNumber", ["latest", false]) as Promise<{ timestamp?: string } | null>,
      ]);
      return { events, terms, state, chainTime: Number(BigInt(head?.timestamp ?? "0x0")) };
    },
    refetchInterval: (query) => (settled(query.state.data) ? false : POT_VIEW_FOLLOW_MS),
  });
}

/** Nothing more will change for anyone: every prize and the share paid, or the challenge refunded to the end. */
function settled(view: PotView | undefined): boolean {
  if (!view) return false;
  const s = view.state;
  if (s.finalized && s.earliestSeq !== 0) return s.earliestPaid && s.highestPaid;
  return (s.finalized || s.aborted) && s.refundedStake >= s.pot;
}

export interface StakeOnChain {
  seq: number;
  amount: bigint;
  blockNumber: number;
  transactionHash: string;
}

/** A prize this stake won, as the pot fixed it. */
export interface PrizeWon {
  kind: 0 | 1;
  amount: bigint;
  /** The Paid event's transaction, once paid. */
  paidIn: string | null;
}

export interface StakeOutcomeOnChain {
  staked: StakeOnChain | null;
  solution: (Point & { guessDeadline: number }) | null;
  /** The verdict, and whether it came from a reveal on chain or was computed here by the pot's rule. */
  correct: boolean | null;
  revealed: boolean;
  distanceMeters: number | null;
  /** A correct guess that would improve a winner on chain if revealed now. */
  beatsWinner: boolean;
  guessWindowOpen: boolean;
  finalized: { earliestSeq: number; highestSeq: number } | null;
  prizes: PrizeWon[];
  /** Nobody was correct, or the solution was not revealed in time: the stakes are refunded. */
  refundDue: "no-winner" | "aborted" | null;
  refunded: { amount: bigint; bondShare: bigint; transactionHash: string } | null;
}

/** One stake's story in the pot: the stake (by its commitment), the solution, its verdict and
 * distance, whether revealing it would improve a winner, the prizes and refunds. */
export function stakeOutcome(
  view: PotView,
  { commitment, guess }: { commitment: string; guess: Point | null },
): StakeOutcomeOnChain {
  const staked = view.events.find((e) => e.kind === "Staked" && e.commitment === commitment.toLowerCase());
  const stakeOnChain =
    staked?.kind === "Staked"
      ? {
          seq: staked.seq,
          amount: staked.amount,
          blockNumber: staked.blockNumber,
          transactionHash: staked.transactionHash,
        }
      : null;
  const solutionEvent = view.events.find((e) => e.kind === "SolutionRevealed");
  const solution =
    solutionEvent?.kind === "SolutionRevealed"
      ? { latE6: solutionEvent.latE6, lonE6: solutionEvent.lonE6, guessDeadline: solutionEvent.guessDeadline }
      : null;
  const seq = stakeOnChain?.seq;
  const reveal = view.events.find((e) => e.kind === "GuessRevealed" && e.seq === seq);
  let correct: boolean | null = null;
  if (reveal?.kind === "GuessRevealed") correct = reveal.correct;
  else if (solution && guess) correct = isCorrect(guess, solution, BigInt(view.terms.terms.thresholdM));
  const distanceMeters = solution && guess ? haversineMeters(guess, solution) : null;
  const guessWindowOpen = Boolean(solution) && view.chainTime < (solution?.guessDeadline ?? 0);
  const s = view.state;
  const beatsWinner =
    Boolean(correct && stakeOnChain && !reveal) &&
    (s.earliestSeq === 0 ||
      stakeOnChain!.seq < s.earliestSeq ||
      stakeOnChain!.amount > s.highestAmount ||
      (stakeOnChain!.amount === s.highestAmount && stakeOnChain!.seq < s.highestSeq));
  const finalizedEvent = view.events.find((e) => e.kind === "Finalized");
  const finalized =
    finalizedEvent?.kind === "Finalized"
      ? { earliestSeq: finalizedEvent.earliestSeq, highestSeq: finalizedEvent.highestSeq }
      : null;
  const prizes: PrizeWon[] = [];
  if (finalizedEvent?.kind === "Finalized" && seq !== undefined && finalizedEvent.earliestSeq !== 0) {
    for (const kind of [0, 1] as const) {
      if ((kind === 0 ? finalizedEvent.earliestSeq : finalizedEvent.highestSeq) !== seq) continue;
      const paid = view.events.find((e) => e.kind === "Paid" && e.prize === kind);
      prizes.push({
        kind,
        amount: kind === 0 ? finalizedEvent.earliestPrize : finalizedEvent.highestPrize,
        paidIn: paid?.transactionHash ?? null,
      });
    }
  }
  const refundEvent = view.events.find((e) => e.kind === "Refunded" && e.seq === seq);
  const refundDue = s.aborted ? "aborted" : finalized && finalized.earliestSeq === 0 ? "no-winner" : null;
  return {
    staked: stakeOnChain,
    solution,
    correct,
    revealed: Boolean(reveal),
    distanceMeters,
    beatsWinner,
    guessWindowOpen,
    finalized,
    prizes,
    refundDue,
    refunded:
      refundEvent?.kind === "Refunded"
        ? { amount: refundEvent.stake, bondShare: refundEvent.bondShare, transactionHash: refundEvent.transactionHash }
        : null,
  };
}

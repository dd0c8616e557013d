import { useQuery } from "@tanstack/react-query";
import type { Stake } from "@/api/types";
import { getPublicConfig, potPin } from "@/config";
import { haversineMeters } from "@/lib/distance";
import { textFromMicro } from "@/lib/protocol/coordinates";
import type { Point } from "@/lib/protocol/geometry";
import { readPotEvents, settlementFilters } from "./events";
import { pageChain } from "./rpc";

/** A challenge's solution, revealed guesses, winners and payments as the pot recorded them (its
 * SolutionRevealed, GuessRevealed, Finalized and Paid events, read through the page's node): whether
 * each prize is paid comes from here, not from the site's word, and so does the guess of a stake
 * that its player revealed from their own wallet (the site never held it). */
export interface Settlement {
  finalized: {
    earliestSeq: number;
    highestSeq: number;
    earliestPrize: bigint;
    highestPrize: bigint;
    share: bigint;
  } | null;
  /** The Paid event's transaction of each kind (0 earliest, 1 highest, 2 the share), when paid. */
  paid: Partial<Record<0 | 1 | 2, { to: string; amount: bigint; transactionHash: string }>>;
  solution: Point | null;
  /** Each guess revealed in the pot, by the stake's sequence number. */
  revealed: Record<number, Point & { correct: boolean }>;
}

export const SETTLEMENT_FOLLOW_MS = 30_000;

export function useSettlement(challengeId: number) {
  const config = getPublicConfig();
  const pin = potPin(config);
  const chain = pageChain(config, null);
  return useQuery({
    queryKey: ["pot-settlement", config.potAddress, challengeId],
    enabled: Boolean(chain && config.potAddress),
    queryFn: async (): Promise<Settlement> => {
      const fromBlock = pin.state === "pinned" ? pin.pot.deployBlock : config.potDeployBlock;
      const events = await readPotEvents(chain!, {
        pot: config.potAddress,
        fromBlock,
        filters: settlementFilters(challengeId),
      });
      const settlement: Settlement = { finalized: null, paid: {}, solution: null, revealed: {} };
      for (const event of events) {
        if (event.kind === "Finalized") settlement.finalized = event;
        if (event.kind === "Paid" && (event.prize === 0 || event.prize === 1 || event.prize === 2))
          settlement.paid[event.prize] = { to: event.to, amount: event.amount, transactionHash: event.transactionHash };
        if (event.kind === "SolutionRevealed") settlement.solution = { latE6: event.latE6, lonE6: event.lonE6 };
        if (event.kind === "GuessRevealed")
          settlement.revealed[event.seq] = { latE6: event.latE6, lonE6: event.lonE6, correct: event.correct };
      }
      return settlement;
    },
    refetchInterval: (query) => {
      const data = query.state.data;
      const done = data?.finalized && (data.finalized.earliestSeq === 0 || (data.paid[0] && data.paid[1]));
      return done ? false : SETTLEMENT_FOLLOW_MS;
    },
  });
}

/** A stake as the site lists it, completed from the pot where the site holds no guess for it but the
 * pot shows it revealed (its player revealed it from their wallet): the coordinates, the verdict and
 * the distance to the revealed solution. Anything the site gives is left as it is. */
export function withRevealedGuess<T extends Stake | null>(stake: T, settlement: Settlement | undefined): T {
  if (!stake || !settlement || stake.submissionText || stake.id === null) return stake;
  const revealed = settlement.revealed[stake.id];
  if (!revealed) return stake;
  const text = textFromMicro(revealed);
  const distance =
    text && settlement.solution ? haversineMeters(revealed, settlement.solution).toFixed(2) : stake.distanceMeters;
  return { ...stake, submissionText: text, revealed: true, isCorrect: revealed.correct, distanceMeters: distance };
}

import { useQuery } from "@tanstack/react-query";
import { getPublicConfig, potPin } from "@/config";
import { readPotEvents, settlementFilters } from "@/lib/pot/events";
import { pageChain } from "@/lib/pot/rpc";

/** A challenge's winners and payments as the pot recorded them (its Finalized and Paid events, read
 * through the page's node): whether each prize is paid comes from here, not from the site's word. */
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
      const settlement: Settlement = { finalized: null, paid: {} };
      for (const event of events) {
        if (event.kind === "Finalized") settlement.finalized = event;
        if (event.kind === "Paid" && (event.prize === 0 || event.prize === 1 || event.prize === 2))
          settlement.paid[event.prize] = { to: event.to, amount: event.amount, transactionHash: event.transactionHash };
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

import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { refreshAfterStake, stakeStatusQuery, isUnknownStake } from "@/api/queries";
import { toast } from "@/components/toast-store";
import { keepStakes } from "@/wallet/keeper";
import { listStakes } from "@/wallet/pending";

/** One pass at a time in the page, also when the component is mounted twice (StrictMode). */
let passRunning = false;

/** How often the page looks for a kept stake that is due (each has its own delay: keeper.ts). */
export const KEEPER_TICK_MS = 1000;

/** While the page is open, keeps every stake of this browser until Geopoem holds its guess
 * (wallet/keeper.ts): a signed stake not stored yet is posted again, and a stake in the pot is
 * followed until confirmed and its guess posted; at once on load, then with a growing delay.
 * Renders nothing. */
export function RecoverLostSubmissions() {
  const queryClient = useQueryClient();
  useEffect(() => {
    let stopped = false;
    // Shared with the rows' look-ups: one request serves both within a second.
    const stakeStatus = async (commitment: string) => {
      try {
        return await queryClient.fetchQuery({ ...stakeStatusQuery(commitment), staleTime: 1000 });
      } catch (error) {
        if (isUnknownStake(error)) return null;
        throw error;
      }
    };
    const pass = async () => {
      const result = await keepStakes(listStakes(), { stakeStatus });
      if (stopped) return;
      if (result.relayed > 0) {
        void refreshAfterStake(queryClient);
        toast({
          title: "Submission Recovered",
          description: "A signed stake that had not reached Geopoem has now been stored.",
          variant: "success",
        });
      }
      if (result.refused.length > 0) {
        toast({ title: "Submission Failed", description: result.refused[0], variant: "destructive" });
      }
    };
    const tick = () => {
      if (stopped || passRunning) return;
      passRunning = true;
      void pass().finally(() => {
        passRunning = false;
      });
    };
    tick();
    const timer = setInterval(tick, KEEPER_TICK_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [queryClient]);
  return null;
}

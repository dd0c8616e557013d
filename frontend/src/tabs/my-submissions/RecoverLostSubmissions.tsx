import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { refreshAfterClaim, resolvedChallengesQuery } from "@/api/queries";
import { toast } from "@/components/toast-store";
import { getPublicConfig } from "@/config";
import { dueClaims, keepClaims } from "@/wallet/keeper";
import { isSigned, unpostedSubmissions } from "@/wallet/pending";
import type { EIP1193Provider } from "@/wallet/types";
import { useWalletProviderOrNull } from "@/wallet/WalletContext";

/** One pass at a time in the page, also when the component is mounted twice (StrictMode). */
let passRunning = false;

/** How often the page looks for a kept claim that is due (each has its own delay: keeper.ts). */
export const KEEPER_TICK_MS = 1000;

/** The wallet's provider when it is on the configured chain, else null: another chain's node
 * knows nothing of the stake. */
async function onConfiguredChain(provider: EIP1193Provider | null, chainIdHex: string) {
  if (!provider) return null;
  try {
    const chainId = await provider.request({ method: "eth_chainId" });
    return typeof chainId === "string" && chainId.toLowerCase() === chainIdHex.toLowerCase() ? provider : null;
  } catch {
    return null;
  }
}

/** While the page is open, posts again every paid guess whose claim Geopoem has not recorded (the
 * server answers the identical claim idempotently) until it gets a definite answer, and says so:
 * at once on load, then with a growing delay (keeper.ts). A transaction not yet seen mined is
 * followed on chain through the wallet first. Renders nothing. */
export function RecoverLostSubmissions() {
  const queryClient = useQueryClient();
  const provider = useWalletProviderOrNull();
  const providerRef = useRef(provider);
  useEffect(() => {
    providerRef.current = provider;
  }, [provider]);
  useEffect(() => {
    const config = getPublicConfig();
    let stopped = false;
    const isResolved = async (challengeId: number) => {
      const resolved = await queryClient.fetchQuery({ ...resolvedChallengesQuery(), staleTime: 0 });
      return resolved.some((challenge) => challenge.id === challengeId);
    };
    const pass = async () => {
      const due = dueClaims(unpostedSubmissions());
      if (due.length === 0) return;
      // The wallet is asked for its chain only when a sent stake is to be looked at on chain.
      const needsChain = due.some((record) => record.state === "sent");
      const result = await keepClaims(due, {
        isResolved,
        provider: needsChain ? await onConfiguredChain(providerRef.current, config.chainIdHex) : null,
        tokenAddress: config.usdcAddress,
      });
      if (stopped) return;
      if (result.recorded > 0) {
        void refreshAfterClaim(queryClient);
        // A stake paid by signature is not paid until it is on chain: said as what it is.
        const onlySigned = due.every(isSigned);
        toast({
          title: "Submission Recovered",
          description: onlySigned
            ? "A signed guess that had not reached Geopoem has now been recorded."
            : "A paid guess that had not reached Geopoem has now been recorded.",
          variant: "success",
        });
      }
      if (result.refused.length > 0) {
        void refreshAfterClaim(queryClient);
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

import { useQueryClient, type Query } from "@tanstack/react-query";
import { useCallback, useSyncExternalStore } from "react";
import { ApiError } from "@/api/http";
import { FOLLOW_INTERVAL_MS, isResponseStatusKey } from "@/api/queries";
import type { ChallengeResponse } from "@/api/types";
import type { StoredSubmission } from "@/wallet/pending";

/** How the page follows this browser's claims until they settle (docs/decisions.md, "Following a
 * pending claim"): a claim's status is asked again every FOLLOW_INTERVAL_MS while it is pending,
 * or while the server does not know a claim this browser has posted (the POST and the look-up may
 * pass each other); never once it is confirmed or rejected. React Query pauses the interval while
 * the tab is hidden (refetchIntervalInBackground is off) and the answers' ETag makes an unchanged
 * one a bodiless 304. */
export function claimFollowInterval(
  data: ChallengeResponse | undefined,
  error: unknown,
  localState: StoredSubmission["state"],
): number | false {
  if (error) {
    return error instanceof ApiError && error.status === 404 && localState === "submitted" ? FOLLOW_INTERVAL_MS : false;
  }
  return data?.status === "pending" ? FOLLOW_INTERVAL_MS : false;
}

function isShownPendingClaim(query: Query): boolean {
  if (!isResponseStatusKey(query.queryKey) || query.getObserversCount() === 0) return false;
  return (query.state.data as ChallengeResponse | undefined)?.status === "pending";
}

/** Whether a claim shown on this page is pending: the active challenge is re-read meanwhile, so
 * its total bids follow the confirmed sum. */
export function useHasPendingClaims(): boolean {
  const cache = useQueryClient().getQueryCache();
  const subscribe = useCallback((onChange: () => void) => cache.subscribe(onChange), [cache]);
  const snapshot = useCallback(() => cache.findAll({ predicate: isShownPendingClaim }).length > 0, [cache]);
  return useSyncExternalStore(subscribe, snapshot);
}

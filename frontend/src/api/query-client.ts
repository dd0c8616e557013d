import { QueryClient, type QueryFunction } from "@tanstack/react-query";
import { getQueryFn } from "./http";

/** The spec's data-fetching defaults: no automatic retries for queries or mutations,
 * no refetch on window focus or on an interval, and data that never goes stale — the page
 * refreshes explicitly (after a submission) instead. */
export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        queryFn: getQueryFn({ on401: "throw" }) as QueryFunction,
        retry: false,
        refetchOnWindowFocus: false,
        refetchInterval: false,
        staleTime: Infinity,
      },
      mutations: { retry: false },
    },
  });
}

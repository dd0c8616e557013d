import { queryOptions, type QueryClient } from "@tanstack/react-query";
import { ApiError, throwIfResNotOk } from "./http";
import type { Challenge, PaymentsAuthorization, Stake, Winners } from "./types";

/** One options factory per resource. The key's first element is the URL the default query
 * function GETs, so a component needs only `useQuery(winnersQuery(id))`. */

/** GET /api/challenges/active: the open challenge, else the latest that is not final yet with its
 * phase; null when there is neither (the API's 404 "No active challenge available at the moment."). */
export const activeChallengeQuery = () =>
  queryOptions<Challenge | null>({
    queryKey: ["/api/challenges/active"],
    queryFn: async ({ signal }) => {
      const res = await fetch("/api/challenges/active", {
        credentials: "include",
        headers: { Accept: "application/json" },
        signal,
      });
      if (res.status === 404) return null;
      await throwIfResNotOk(res);
      return (await res.json()) as Challenge | null;
    },
  });

export const resolvedChallengesQuery = () => queryOptions<Challenge[]>({ queryKey: ["/api/challenges/resolved"] });

export const challengeQuery = (challengeId: number) =>
  queryOptions<Challenge>({ queryKey: [`/api/challenges/${challengeId}`] });

export const winnersQuery = (challengeId: number) =>
  queryOptions<Winners>({ queryKey: [`/api/challenges/${challengeId}/winners`] });

export const responsesQuery = (challengeId: number) =>
  queryOptions<Stake[]>({ queryKey: [`/api/responses?challengeId=${challengeId}`] });

/** One stake, named by its guess commitment (docs/protocol.md 3.4); 404 while the site knows none. */
export const stakeStatusQuery = (commitment: string) =>
  queryOptions<Stake>({ queryKey: [`/api/responses/${commitment}`] });

/** Whether a stake status query's error is the site not knowing the stake (yet). */
export const isUnknownStake = (error: unknown) => error instanceof ApiError && error.status === 404;

/** What the page needs to offer a stake by signature (docs/protocol.md 3.3), read once a visit. */
export const paymentsAuthorizationQuery = () =>
  queryOptions<PaymentsAuthorization>({ queryKey: ["/api/payments/authorization"] });

/** The stake by signature can be offered at all: the token's domain is known. */
export function signatureAvailable(payments: PaymentsAuthorization | undefined): boolean {
  return Boolean(payments?.token);
}

/** Geopoem's relay sends a signed stake (no ETH needed): the token's domain is known and the relay is on. */
export function signatureOffered(payments: PaymentsAuthorization | undefined): boolean {
  return Boolean(payments?.token && payments.relay.available);
}

/** How often the page re-asks while one of this browser's stakes is on its way: the answers carry
 * an ETag, so an unchanged one is a bodiless 304. */
export const FOLLOW_INTERVAL_MS = 2000;

/** A stake status query (GET /api/responses/{commitment}). */
export function isStakeStatusKey(queryKey: readonly unknown[]): boolean {
  const url = queryKey[0];
  return typeof url === "string" && /^\/api\/responses\/[0-9a-f]{64}$/.test(url);
}

/** After a stake: re-read the active challenge, and every stake status this page asked before (the
 * new stake's answered 404 before it was posted). */
export function refreshAfterStake(queryClient: QueryClient): Promise<unknown> {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: activeChallengeQuery().queryKey }),
    queryClient.invalidateQueries({ predicate: (query) => isStakeStatusKey(query.queryKey) }),
  ]);
}

/** A payer's stakes of any status, newest first (GET /api/responses?address=): My submissions on
 * another browser. Coordinates are null until the solution is revealed. */
export const stakesByAddressQuery = (address: string) =>
  queryOptions<Stake[]>({ queryKey: [`/api/responses?address=${address}`] });

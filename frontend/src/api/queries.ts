import { queryOptions, type QueryClient } from "@tanstack/react-query";
import type { Challenge, ChallengeResponse, PaymentsAuthorization, ScoredResponse, Winners } from "./types";

/** One options factory per resource. The key's first element is the URL the default query
 * function GETs, so a component needs only `useQuery(activeChallengeQuery())`. */

export const activeChallengeQuery = () => queryOptions<Challenge | null>({ queryKey: ["/api/challenges/active"] });

export const resolvedChallengesQuery = () => queryOptions<Challenge[]>({ queryKey: ["/api/challenges/resolved"] });

export const winnersQuery = (challengeId: number) =>
  queryOptions<Winners>({ queryKey: [`/api/challenges/${challengeId}/winners`] });

export const responsesQuery = (challengeId?: number) =>
  queryOptions<ScoredResponse[]>({
    queryKey: [challengeId === undefined ? "/api/responses" : `/api/responses?challengeId=${challengeId}`],
  });

/** One claim's status. Several claims can name one transaction (anyone can post on a public hash),
 * so the page asks for its own by the guess commitment; without one the server answers with the
 * transaction's confirmed claim, else its only claim (docs/protocol.md, section 3). */
export const responseStatusQuery = (transactionHash: string, commitment?: string) =>
  queryOptions<ChallengeResponse>({
    queryKey: [
      commitment ? `/api/responses/${transactionHash}?commitment=${commitment}` : `/api/responses/${transactionHash}`,
    ],
  });

/** A claim paid by authorization, named by its commitment: its transaction is not known until the
 * relayer, or anyone, uses the authorization on chain (docs/protocol.md 3.4c). */
export const authorizationClaimQuery = (commitment: string) =>
  queryOptions<ChallengeResponse>({ queryKey: [`/api/responses/authorization/${commitment}`] });

/** Whether the token takes signed authorizations and Geopoem's relay sends them (docs/protocol.md
 * 3.6): the confirm dialog offers the payment by signature only when both hold, and the help tabs
 * say what a player needs. Read live by the server; the page asks once a visit. */
export const paymentsAuthorizationQuery = () =>
  queryOptions<PaymentsAuthorization>({ queryKey: ["/api/payments/authorization"] });

/** The payment by signature can be offered: the token takes authorizations and the relay is on. */
export function signatureOffered(payments: PaymentsAuthorization | undefined): boolean {
  return Boolean(payments?.token && payments.relay.available);
}

/** How often the page re-asks while one of this browser's claims is pending (docs/decisions.md,
 * "Following a pending claim"): the answers carry an ETag, so an unchanged one is a bodiless 304. */
export const FOLLOW_INTERVAL_MS = 2000;

/** A claim status query (GET /api/responses/{hash}...), whatever its commitment. */
export function isResponseStatusKey(queryKey: readonly unknown[]): boolean {
  const url = queryKey[0];
  return typeof url === "string" && url.startsWith("/api/responses/");
}

/** After a successful POST: re-read the active challenge, and ask again every claim status this
 * page asked before (the new claim's answered 404 before the POST; it must not stay so). */
export function refreshAfterClaim(queryClient: QueryClient): Promise<unknown> {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: activeChallengeQuery().queryKey }),
    queryClient.invalidateQueries({ predicate: (query) => isResponseStatusKey(query.queryKey) }),
  ]);
}

/** A payer's own claims of any status, newest first (GET /api/responses?address=): My submissions
 * on another browser. Coordinates are null until the challenge is resolved. */
export const claimsByAddressQuery = (address: string) =>
  queryOptions<ChallengeResponse[]>({ queryKey: [`/api/responses?address=${address}`] });

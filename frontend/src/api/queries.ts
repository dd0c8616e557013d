import { queryOptions } from "@tanstack/react-query";
import type { Challenge, ChallengeResponse, ScoredResponse, Winners } from "./types";

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

export const responseStatusQuery = (transactionHash: string) =>
  queryOptions<ChallengeResponse>({ queryKey: [`/api/responses/${transactionHash}`] });

/** The calls on /api/responses that are not a plain query: posting a claim, and every confirmed
 * guess of a resolved challenge.
 *
 * Every confirmed guess, for the reveal map: GET /api/responses pages
 * through its Link header (rel="next"). A map of thousands of points says little more than one of
 * a few thousand, so at most GUESS_PAGES pages of GUESS_PAGE_SIZE are fetched (the legend says
 * when that cut the list short). */
import { queryOptions } from "@tanstack/react-query";
import { apiRequest, throwIfResNotOk } from "./http";
import type { ChallengeResponse, ResponseCreate, ScoredResponse } from "./types";

/** POST /api/responses: the claim of a paid guess (docs/protocol.md section 3). */
export async function postResponse(body: ResponseCreate): Promise<ChallengeResponse> {
  const res = await apiRequest("POST", "/api/responses", body);
  return (await res.json()) as ChallengeResponse;
}

export const GUESS_PAGE_SIZE = 1000; // the API's largest page
export const GUESS_PAGES = 5;

export interface ConfirmedGuesses {
  guesses: ScoredResponse[];
  /** False when more pages were left unfetched. */
  complete: boolean;
}

/** The URL of a Link header's rel="next", or null. */
export function nextLink(header: string | null): string | null {
  if (!header) return null;
  for (const part of header.split(",")) {
    const match = /<([^>]*)>\s*;\s*rel="?next"?/i.exec(part.trim());
    if (match?.[1]) return match[1];
  }
  return null;
}

export async function fetchConfirmedGuesses(challengeId: number, signal?: AbortSignal): Promise<ConfirmedGuesses> {
  const guesses: ScoredResponse[] = [];
  let url: string | null = `/api/responses?challengeId=${challengeId}&limit=${GUESS_PAGE_SIZE}`;
  for (let page = 0; page < GUESS_PAGES && url; page += 1) {
    const res: Response = await fetch(url, { credentials: "include", headers: { Accept: "application/json" }, signal });
    await throwIfResNotOk(res);
    guesses.push(...((await res.json()) as ScoredResponse[]));
    url = nextLink(res.headers.get("Link"));
  }
  return { guesses, complete: url === null };
}

export const confirmedGuessesQuery = (challengeId: number) =>
  queryOptions<ConfirmedGuesses>({
    queryKey: ["reveal-map-guesses", challengeId],
    queryFn: ({ signal }) => fetchConfirmedGuesses(challengeId, signal),
  });

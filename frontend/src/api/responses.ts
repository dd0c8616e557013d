/** The calls on /api/responses that are not a plain query: posting a signed stake (docs/protocol.md
 * 3.1) and a guess (3.2), and every guess of a challenge whose solution is revealed.
 *
 * Every guess, for the reveal map: GET /api/responses pages through its Link header (rel="next"). A
 * map of thousands of points says little more than one of a few thousand, so at most GUESS_PAGES
 * pages of GUESS_PAGE_SIZE are fetched (the legend says when that cut the list short). */
import { queryOptions } from "@tanstack/react-query";
import { apiRequest, throwIfResNotOk } from "./http";
import type { GuessCreate, Stake, StakeCreate } from "./types";

/** POST /api/responses: a signed stake for Geopoem's relayer (no coordinates, no salt). */
export async function postStake(body: StakeCreate): Promise<Stake> {
  const res = await apiRequest("POST", "/api/responses", body);
  return (await res.json()) as Stake;
}

/** POST /api/responses/guess: the guess of a stake in the pot; resolves with the status (201 stored,
 * 200 stored before). */
export async function postGuess(body: GuessCreate): Promise<number> {
  const res = await apiRequest("POST", "/api/responses/guess", body);
  return res.status;
}

export const GUESS_PAGE_SIZE = 1000; // the API's largest page
export const GUESS_PAGES = 5;

export interface ConfirmedGuesses {
  guesses: Stake[];
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
  const guesses: Stake[] = [];
  let url: string | null = `/api/responses?challengeId=${challengeId}&limit=${GUESS_PAGE_SIZE}`;
  for (let page = 0; page < GUESS_PAGES && url; page += 1) {
    const res: Response = await fetch(url, { credentials: "include", headers: { Accept: "application/json" }, signal });
    await throwIfResNotOk(res);
    guesses.push(...((await res.json()) as Stake[]));
    url = nextLink(res.headers.get("Link"));
  }
  return { guesses, complete: url === null };
}

export const confirmedGuessesQuery = (challengeId: number) =>
  queryOptions<ConfirmedGuesses>({
    queryKey: ["reveal-map-guesses", challengeId],
    queryFn: ({ signal }) => fetchConfirmedGuesses(challengeId, signal),
  });

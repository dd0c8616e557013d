import { describe, expect, it } from "vitest";
import type { Stake } from "./types";
import { installFakeServer, json } from "../../test/http";
import { PYRAMID_RESPONSES } from "../../test/resolvedChallenges";
import { page1, page2 } from "../../test/revealMap";
import { fetchConfirmedGuesses, GUESS_PAGES, nextLink } from "./responses";

describe("the confirmed guesses behind the reveal map", () => {
  it("reads the next page from the Link header", () => {
    expect(nextLink(`<${page2}>; rel="next"`)).toBe(page2);
    expect(nextLink(null)).toBeNull();
    expect(nextLink('<http://x/a>; rel="prev"')).toBeNull();
  });

  it(`stops after ${GUESS_PAGES} pages and says the list is incomplete`, async () => {
    const server = installFakeServer();
    const guess: Stake = PYRAMID_RESPONSES[2]!;
    const pageUrl = (n: number) => (n === 0 ? page1 : `http://testserver/api/responses?page=${n}`);
    for (let n = 0; n <= GUESS_PAGES; n += 1) {
      server.on("GET", pageUrl(n), () =>
        json([{ ...guess, id: n + 10 }], 200, { Link: `<${pageUrl(n + 1)}>; rel="next"` }),
      );
    }
    const result = await fetchConfirmedGuesses(1);
    expect(result.guesses.map((g) => g.id)).toEqual([10, 11, 12, 13, 14]);
    expect(result.complete).toBe(false);
    expect(server.calls).toHaveLength(GUESS_PAGES);
    expect(server.calls[0]!.init?.credentials).toBe("include");
  });
});

import type { Challenge } from "@/api/types";
import { Toaster } from "@/components/Toaster";
import { ActiveChallengeTab } from "@/tabs/active/ActiveChallengeTab";
import { RecoverLostSubmissions } from "@/tabs/my-submissions/RecoverLostSubmissions";
import { WalletProvider } from "@/wallet/WalletContext";
import { installFakeServer, json } from "./http";
import { renderWithClient } from "./render";

/** The Active Challenge tab as the tests of the tab, the pick map and My submissions render it: the
 * challenge the server answers, the tab inside the wallet context with the toasts. */

export const ACTIVE_CHALLENGE: Challenge = {
  id: 7,
  poemTitle: "Where the Sphinx Keeps Watch",
  poemText: "<p>Stone <em>lion</em> with a human face</p>",
  instructionsText: "<p>Give the <strong>paw</strong>'s position.</p>",
  proximityThreshold: 250,
  solutionSha256: "053b482ba066a9fecef34d7e5618c970eb0984dcbb07e89d080ceb563d95f1cf",
  solutionReveal: null,
  solutionSalt: null,
  stakedSum: "12.500000",
  responseCount: 3,
  startTimestamp: 1767225600,
  // Far ahead: the form takes stakes until a minute before the close.
  closesTimestamp: 4102444800,
  solutionDeadline: 4102531200,
  guessWindowSeconds: 86400,
  guessDeadline: null,
  minStake: "1.000000",
  bond: "50.000000",
  termsSha256: "7e".repeat(32),
  termsDigest: `0x${"d1".repeat(32)}`,
  openTransactionHash: `0x${"a1".repeat(32)}`,
  openBlockNumber: 4242,
  phase: "open",
};

/** A fake server answering GET /api/challenges/active with `challenge` (null: the API's 404). */
export function serveActiveChallenge(challenge: Challenge | null | (() => Challenge | null) = ACTIVE_CHALLENGE) {
  const server = installFakeServer();
  server.on("GET", "/api/challenges/active", () => {
    const current = typeof challenge === "function" ? challenge() : challenge;
    return current ? json(current) : json({ message: "No active challenge available at the moment.", errors: {} }, 404);
  });
  return server;
}

/** The tab; the map toggle beside the coordinates field only with `map: true`; the page's keeper of
 * stakes (App.tsx renders it beside the tabs) with `keeper: true`. */
export function renderActiveTab({ map = false, keeper = false }: { map?: boolean; keeper?: boolean } = {}) {
  return renderWithClient(
    <WalletProvider reload={() => undefined}>
      <ActiveChallengeTab {...(map ? {} : { coordinatesAddon: null })} />
      {keeper ? <RecoverLostSubmissions /> : null}
      <Toaster />
    </WalletProvider>,
  );
}

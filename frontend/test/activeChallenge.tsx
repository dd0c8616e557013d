import { vi } from "vitest";
import type { Challenge } from "@/api/types";
import { Toaster } from "@/components/Toaster";
import { ActiveChallengeTab } from "@/tabs/active/ActiveChallengeTab";
import { WalletProvider } from "@/wallet/WalletContext";
import { PLAYER, TX_HASH } from "./fakeWallet";
import { installFakeServer, json, type FakeServer } from "./http";
import { renderWithClient } from "./render";

/** The Active Challenge tab as the tests of the tab, the pick map and the claim following render it:
 * the challenge the server answers, the tab inside the wallet context with the toasts. */

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
  resolvedTimestamp: null,
  status: "active",
  isDemo: false,
  anchor: {
    registry: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    transactionHash: `0x${"a1".repeat(32)}`,
    blockNumber: 4242,
    blockTimestamp: 1767225500,
    termsSha256: "7e".repeat(32),
  },
};

/** The anchor a record keeps for ACTIVE_CHALLENGE (docs/protocol.md section 6). */
export const ACTIVE_RECORD_ANCHOR = {
  registry: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  transactionHash: `0x${"a1".repeat(32)}`,
  blockNumber: 4242,
  solutionSha256: ACTIVE_CHALLENGE.solutionSha256,
  termsSha256: "7e".repeat(32),
};

/** A fake server answering GET /api/challenges/active with `challenge` (a function: read per request). */
export function serveActiveChallenge(challenge: Challenge | null | (() => Challenge | null) = ACTIVE_CHALLENGE) {
  const server = installFakeServer();
  server.on("GET", "/api/challenges/active", () => json(typeof challenge === "function" ? challenge() : challenge));
  return server;
}

/** The tab; the map toggle beside the coordinates field only with `map: true`. */
export function renderActiveTab({ map = false }: { map?: boolean } = {}) {
  return renderWithClient(
    <WalletProvider reload={() => undefined}>
      <ActiveChallengeTab {...(map ? {} : { coordinatesAddon: null })} />
      <Toaster />
    </WalletProvider>,
  );
}

/** The claim status look-up (GET /api/responses/{TX_HASH}?commitment=…, the salt is random) answered
 * by `status()`, every other request by `server`. */
export function answerClaimStatus(server: FakeServer, status: () => string | null): void {
  const prefix = `/api/responses/${TX_HASH}?commitment=`;
  const routed = server.fetch as unknown as typeof fetch;
  vi.stubGlobal("fetch", (input: RequestInfo | URL, init?: RequestInit) => {
    if (!String(input).startsWith(prefix)) return routed(input, init);
    const current = status();
    if (current === null) {
      return Promise.resolve(json({ message: "No submission uses this transaction.", errors: {} }, 404));
    }
    return Promise.resolve(
      json({
        id: 1,
        challengeId: ACTIVE_CHALLENGE.id,
        transactionHash: TX_HASH,
        submitterAddress: PLAYER,
        status: current,
        rejectionCode: "",
        rejectionReason: "",
      }),
    );
  });
}

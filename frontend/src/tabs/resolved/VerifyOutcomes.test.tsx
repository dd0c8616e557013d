import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildChainWorld, type Guess } from "../../../test/chainWorld";
import { installFakeServer } from "../../../test/http";
import { renderWithClient } from "../../../test/render";
import { TEST_CONFIG } from "../../../test/fixtures";
import { formatDateTime } from "@/lib/format";
import { PYRAMID } from "../../../test/resolvedChallenges";
import type { Challenge as LegacyChallenge } from "@/lib/verify-outcomes-types";
import { VerifyOutcomes } from "./VerifyOutcomes";

afterEach(() => {
  vi.unstubAllGlobals();
});

/** The treasury design's shape the old verifier reads (lib/verify-outcomes-types.ts). */
const LEGACY_PYRAMID = {
  ...PYRAMID,
  resolvedTimestamp: PYRAMID.closesTimestamp,
  status: "resolved",
  isDemo: true,
} as unknown as LegacyChallenge;

const GUESSES: Guess[] = [
  {
    text: "29.979, 31.134",
    stake: "2.5",
    address: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    block: 20,
    txIndex: 0,
  },
  {
    text: "30.0444, 31.2357",
    stake: "3",
    address: "0x90F79bf6EB2c4F870365E785982E1f101E93b906",
    block: 21,
    txIndex: 0,
  },
];

async function serveWorld(change?: (world: Awaited<ReturnType<typeof buildChainWorld>>) => void) {
  const world = await buildChainWorld(GUESSES);
  change?.(world);
  const server = installFakeServer();
  server.on("POST", TEST_CONFIG.rpcUrl, (init) => world.route(TEST_CONFIG.rpcUrl, init));
  server.on("GET", `/api/responses?challengeId=${world.challenge.id}&limit=1000`, (_init, url) => world.route(url));
  server.on("GET", `/api/challenges/${world.challenge.id}/winners`, (_init, url) => world.route(url));
  server.on("GET", `/api/responses?challengeId=${world.challenge.id}&status=rejected&limit=1000`, (_init, url) =>
    world.route(url),
  );
  server.on("GET", `/api/challenges/${world.challenge.id}/unclaimed?limit=1000`, (_init, url) => world.route(url));
  return world;
}

describe("Verify every outcome", () => {
  it("re-checks every response through the public RPC and says all are reproduced", async () => {
    const world = await serveWorld();
    renderWithClient(<VerifyOutcomes challenge={world.challenge} />);
    await userEvent.setup().click(screen.getByRole("button", { name: "Verify every outcome" }));
    expect(await screen.findByText("2 of 2 outcomes reproduced")).toHaveClass("check-ok");
    const status = screen.getByRole("status");
    expect(status).toHaveTextContent(
      "The terms match what was committed on chain, and every payment, commitment, chain position, distance, verdict, winner, prize and payout matches.",
    );
    expect(status).toHaveTextContent("The terms were read from the blockchain: committed in block 10 by the registry");
    expect(within(status).getByRole("link", { name: "10" })).toHaveAttribute(
      "href",
      "https://sepolia.etherscan.io/block/10",
    );
    expect(status).toHaveTextContent(
      "4 payments to the treasury name this challenge: 2 counted, 1 rejected for a reason checked again here, 1 listed as unclaimed.",
    );
    const payouts = within(within(status).getByRole("list", { name: "Payouts" })).getAllByRole("listitem");
    expect(payouts.map((item) => item.textContent)).toEqual([
      expect.stringMatching(/^Earliest correct response: 2\.20 USDC to 0x7099.*: paid, view the payout transaction$/i),
      expect.stringMatching(/^Highest staked correct response: 2\.20 USDC to 0x7099.*: not paid yet$/i),
      expect.stringMatching(/^Operations and donations: 1\.10 USDC to 0x3c44.*: kept in the treasury$/i),
    ]);
    expect(world.rpcRequests).toBeGreaterThan(0);
    // The script for larger challenges or a second opinion, with the command filled in.
    expect(screen.getByRole("link", { name: "download verify_challenge.py" })).toHaveAttribute(
      "href",
      "/verify_challenge.py",
    );
    expect(screen.getByText(/--rpc https:\/\/rpc\.sepolia\.example --challenge 7/)).toBeInTheDocument();
  });

  it("shows an accessible progress bar while it runs", async () => {
    const world = await buildChainWorld(GUESSES);
    const server = installFakeServer();
    server.on("POST", TEST_CONFIG.rpcUrl, (init) => world.route(TEST_CONFIG.rpcUrl, init));
    server.on(
      "GET",
      `/api/responses?challengeId=${world.challenge.id}&limit=1000`,
      () => new Promise<Response>(() => {}),
    );
    renderWithClient(<VerifyOutcomes challenge={world.challenge} />);
    await userEvent.setup().click(screen.getByRole("button", { name: "Verify every outcome" }));
    const bar = await screen.findByRole("progressbar", {
      name: "Step 2 of 6: Reading the responses from this site: 0 of 2",
    });
    expect(bar).toHaveAttribute("max", "2");
    await userEvent.setup().click(screen.getByRole("button", { name: "Cancel" }));
    expect(screen.getByRole("button", { name: "Verify every outcome" })).toBeInTheDocument();
  });

  it("names the response whose stored stake differs from its payment", async () => {
    const world = await serveWorld((w) => {
      w.responses[1] = { ...w.responses[1]!, submissionStake: "30.000000" };
    });
    renderWithClient(<VerifyOutcomes challenge={world.challenge} />);
    await userEvent.setup().click(screen.getByRole("button", { name: "Verify every outcome" }));
    expect(await screen.findByText(/^Differences found: \d+$/)).toHaveClass("check-bad");
    const items = within(screen.getByRole("list", { name: "Differences" })).getAllByRole("listitem");
    expect(items[0]).toHaveTextContent(
      `Response 101 (${world.responses[1]!.transactionHash}): the calldata pays 3 USDC, the site shows a stake of 30.000000`,
    );
  });

  it("never says every outcome was reproduced when a payment is not accounted for", async () => {
    let lost = "";
    const world = await serveWorld();
    lost = (await world.pay({ from: GUESSES[1]!.address, stake: "5", block: 21, txIndex: 7 })).hash;
    renderWithClient(<VerifyOutcomes challenge={world.challenge} />);
    await userEvent.setup().click(screen.getByRole("button", { name: "Verify every outcome" }));
    expect(await screen.findByText("Differences found: 1")).toHaveClass("check-bad");
    const status = screen.getByRole("status");
    expect(status).not.toHaveTextContent(/outcomes reproduced/);
    expect(status).not.toHaveTextContent(/matches\./);
    expect(status).toHaveTextContent(", 1 not accounted for.");
    expect(within(status).getByRole("list", { name: "Differences" })).toHaveTextContent(`payment ${lost} (5 USDC from`);
  });

  it("lists the exceptions the site published and says how many with the headline", async () => {
    const world = await serveWorld();
    const payer = GUESSES[1]!.address;
    // Paid in time, claimed after resolution: rejected "after_resolution" (docs/protocol.md section 5).
    const late = await world.pay({ from: payer, stake: "5", block: 21, txIndex: 7, text: "30.0444, 31.2357" });
    world.rejected.push({
      ...world.rejected[0]!,
      id: 960,
      submissionText: late.text,
      submissionSalt: late.salt,
      commitment: late.commitment,
      submissionStake: "5.000000",
      transactionHash: late.hash,
      submitterAddress: payer,
      rejectionCode: "after_resolution",
    });
    world.winners.exceptions = [
      {
        responseId: 960,
        transactionHash: late.hash,
        submitterAddress: payer,
        submissionStake: "5.000000",
        kind: "after_resolution",
        recordedAt: 1795000000, // Unix seconds, as the site sends it
      },
    ];
    renderWithClient(<VerifyOutcomes challenge={world.challenge} />);
    await userEvent.setup().click(screen.getByRole("button", { name: "Verify every outcome" }));
    expect(await screen.findByText("2 of 2 outcomes reproduced; this site published 1 exception")).toHaveClass(
      "check-ok",
    );
    const status = screen.getByRole("status");
    expect(status).toHaveTextContent(", 1 claimed after the challenge was resolved");
    const items = within(within(status).getByRole("list", { name: "Exceptions" })).getAllByRole("listitem");
    expect(items.map((item) => item.textContent)).toEqual([
      `Rejected claim 960 (${late.hash}): paid in time, but the claim reached this site after the challenge was ` +
        `resolved, so its 5.000000 USDC from ${payer} does not count toward the prizes (recorded ${formatDateTime(1795000000)}).`,
    ]);
    expect(status).not.toHaveTextContent("1795000000"); // a time as the page shows every time, never raw seconds
  });

  it("says plainly that a demonstration challenge never anchored guarantees nothing", async () => {
    const world = await buildChainWorld(GUESSES, { anchored: false });
    world.challenge = { ...world.challenge, isDemo: true };
    const server = installFakeServer();
    server.on("POST", TEST_CONFIG.rpcUrl, (init) => world.route(TEST_CONFIG.rpcUrl, init));
    for (const url of [
      `/api/responses?challengeId=7&limit=1000`,
      `/api/responses?challengeId=7&status=rejected&limit=1000`,
      `/api/challenges/7/unclaimed?limit=1000`,
      `/api/challenges/7/winners`,
    ]) {
      server.on("GET", url, (_init, u) => world.route(u));
    }
    renderWithClient(<VerifyOutcomes challenge={world.challenge} />);
    await userEvent.setup().click(screen.getByRole("button", { name: "Verify every outcome" }));
    expect(await screen.findByText("2 of 2 outcomes reproduced")).toBeInTheDocument();
    const status = screen.getByRole("status");
    expect(status).toHaveTextContent(
      "The terms of this demonstration challenge were never committed on the blockchain, so this check guarantees nothing: the site could have changed them at any time.",
    );
    expect(status).not.toHaveTextContent(/The terms match/);
  });

  it("says so when the RPC node cannot be read, deciding nothing", async () => {
    const world = await buildChainWorld(GUESSES);
    const server = installFakeServer();
    server.on("GET", `/api/responses?challengeId=${world.challenge.id}&limit=1000`, (_init, url) => world.route(url));
    server.on("POST", TEST_CONFIG.rpcUrl, () => new Response("busy", { status: 503 }));
    renderWithClient(<VerifyOutcomes challenge={world.challenge} />);
    await userEvent.setup().click(screen.getByRole("button", { name: "Verify every outcome" }));
    expect(await screen.findByText(/The check could not run: The RPC node answered 503\./)).toBeInTheDocument();
  });

  it("points to the script beyond 10,000 responses", () => {
    renderWithClient(<VerifyOutcomes challenge={{ ...LEGACY_PYRAMID, isDemo: false, responseCount: 10_001 }} />);
    expect(screen.queryByRole("button", { name: "Verify every outcome" })).not.toBeInTheDocument();
    expect(
      screen.getByText(/This challenge has 10,001 responses, more than 10,000 can be checked in a browser/),
    ).toBeInTheDocument();
  });

  it("tells a demonstration challenge's visitors that its payments cannot be checked", () => {
    renderWithClient(<VerifyOutcomes challenge={LEGACY_PYRAMID} />);
    expect(
      screen.getByText(/This is a demonstration challenge: its sample claims carry made-up transaction hashes/),
    ).toBeInTheDocument();
  });
});

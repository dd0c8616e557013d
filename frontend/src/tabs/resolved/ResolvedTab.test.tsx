import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { solutionCommitment } from "@/lib/protocol/commitment";
import { microDegrees } from "@/lib/protocol/coordinates";
import { TEST_CONFIG } from "../../../test/fixtures";
import { installFakeServer, json } from "../../../test/http";
import { renderWithClient } from "../../../test/render";
import { OPERA, OPERA_WINNERS, PYRAMID, PYRAMID_RESPONSES, PYRAMID_WINNERS } from "../../../test/resolvedChallenges";
import { ResolvedTab } from "./index";

const RESOLVED = "/api/challenges/resolved";

afterEach(() => {
  vi.unstubAllGlobals();
});

function serveDemo() {
  const server = installFakeServer();
  server.on("GET", RESOLVED, () => json([PYRAMID, OPERA]));
  server.on("GET", "/api/challenges/1/winners", () => json(PYRAMID_WINNERS));
  server.on("GET", "/api/challenges/2/winners", () => json(OPERA_WINNERS));
  server.on("GET", "/api/responses?challengeId=1", () => json(PYRAMID_RESPONSES));
  server.on("GET", "/api/responses?challengeId=2", () => json([]));
  return server;
}

async function openDetails(title: string) {
  const user = userEvent.setup();
  await user.click(await screen.findByRole("button", { name: new RegExp(title) }));
  return { user, dialog: await screen.findByRole("dialog", { name: "Resolved Challenge Details" }) };
}

describe("Resolved Challenges tab", () => {
  it("shows a spinner while the list loads", () => {
    const server = installFakeServer();
    server.on("GET", RESOLVED, () => new Promise<Response>(() => {}));
    renderWithClient(<ResolvedTab />);
    expect(screen.getByRole("heading", { level: 2, name: "Resolved Challenges" })).toBeInTheDocument();
    expect(screen.getByRole("status")).toHaveTextContent("Loading resolved challenges...");
  });

  it("shows the spec's error card when the list fails", async () => {
    const server = installFakeServer();
    server.on("GET", RESOLVED, () => json({ message: "Server error.", errors: {} }, 500));
    renderWithClient(<ResolvedTab />);
    expect(await screen.findByRole("alert")).toHaveTextContent(
      "Failed to load resolved challenges. Please try again later.",
    );
  });

  it("shows the spec's empty card when nothing is resolved", async () => {
    const server = installFakeServer();
    server.on("GET", RESOLVED, () => json([]));
    renderWithClient(<ResolvedTab />);
    expect(await screen.findByText("No resolved challenges available yet.")).toBeInTheDocument();
    expect(screen.queryByRole("list")).not.toBeInTheDocument();
  });

  it("lists each challenge with its badge, solution, date and total bids", async () => {
    const server = serveDemo();
    renderWithClient(<ResolvedTab />);
    const items = await screen.findAllByRole("listitem");
    expect(items).toHaveLength(2);
    const first = within(items[0]!);
    expect(first.getByText("Four Thousand Summers")).toBeInTheDocument();
    expect(first.getByText("Resolved")).toBeInTheDocument();
    expect(first.getByText("29.979175, 31.134258")).toBeInTheDocument();
    // Completed when the guess window ended.
    expect(items[0]).toHaveTextContent(`Completed: ${new Date(PYRAMID.guessDeadline! * 1000).toLocaleDateString()}`);
    expect(items[0]).toHaveTextContent("Total bids: 82.75 USDC");
    expect(items[1]).toHaveTextContent("Total bids: 11.00 USDC");
    // The default fetcher sends cookies (credentials on every request: src/api/http.ts).
    expect(server.calls[0]?.init?.credentials).toBe("include");
  });

  it("opens the details dialog with the challenge, its poem and the reveal", async () => {
    serveDemo();
    renderWithClient(<ResolvedTab />);
    const { dialog } = await openDetails("Four Thousand Summers");
    const d = within(dialog);
    expect(d.getByText("Challenge #1: Four Thousand Summers")).toBeInTheDocument();
    expect(dialog).toHaveTextContent("Challenge ID1");
    expect(dialog).toHaveTextContent("Proximity threshold150 m");
    expect(dialog).toHaveTextContent("Total staked82.75 USDC");
    expect(dialog).toHaveTextContent(`Started${new Date(1795426829 * 1000).toLocaleString()}`);
    expect(dialog).toHaveTextContent(
      "PhasePaid: Every prize and the share are paid, or every stake was refunded: see the Winners' Circle.",
    );
    expect(d.getByText(/I was counted in stone/)).toBeInTheDocument();
    expect(d.getByText(/Find the place this poem describes/)).toBeInTheDocument();
    expect(d.getByText(PYRAMID.solutionSha256)).toBeInTheDocument();
    expect(dialog).toHaveTextContent("Revealed coordinates29.979175, 31.134258");
    expect(d.getByText(PYRAMID.solutionSalt!)).toBeInTheDocument();
    for (const name of ["Poem", "Instructions", "Solution", "Check the commitment yourself", "Winners", "Stakes"]) {
      expect(d.getByRole("heading", { level: 3, name })).toBeInTheDocument();
    }
  });

  it("shows the winners with prizes and every stake with explorer links", async () => {
    serveDemo();
    renderWithClient(<ResolvedTab />);
    const { dialog } = await openDetails("Four Thousand Summers");
    const d = within(dialog);
    expect(await d.findByText(/Earliest correct response \(40%\)/)).toBeInTheDocument();
    const lines = d.getAllByRole("listitem");
    expect(lines[0]).toHaveTextContent("0x7099...79C8 at 6.24 m, staked 5.00 USDC, prize 33.10 USDC");
    expect(lines[1]).toHaveTextContent("0x3C44...93BC at 0.59 m, staked 25.50 USDC, prize 33.10 USDC");
    expect(lines[2]).toHaveTextContent("Site operations and student donations (20%): 16.55 USDC");

    const table = await d.findByRole("table", { name: "The first 3 of 4 stakes, in the pot's order" });
    const rows = within(table).getAllByRole("row");
    expect(rows).toHaveLength(4);
    expect(rows[3]).toHaveTextContent("30.0444, 31.2357");
    expect(rows[3]).toHaveTextContent("50.25 USDC");
    expect(rows[3]).toHaveTextContent("12345.68 m");
    // Not correct, not revealed on chain.
    expect(rows[3]).toHaveTextContent("NoNo");
    expect(within(rows[1]!).getByRole("link")).toHaveAttribute(
      "href",
      `https://sepolia.etherscan.io/tx/${PYRAMID_RESPONSES[0]!.transactionHash}`,
    );
  });

  it("says so when no response was correct, and shows a missing reveal as missing", async () => {
    const server = installFakeServer();
    server.on("GET", RESOLVED, () => json([{ ...OPERA, solutionReveal: null }]));
    server.on("GET", "/api/challenges/2/winners", () => json(OPERA_WINNERS));
    server.on("GET", "/api/responses?challengeId=2", () => json([]));
    renderWithClient(<ResolvedTab />);
    expect(await screen.findByRole("button", { name: /Sails That Never Leave/ })).toHaveTextContent(
      "Solution: missing",
    );
    const { dialog } = await openDetails("Sails That Never Leave");
    expect(dialog).toHaveTextContent("Proximity thresholdNot specified (scored as 0 m: only an exact hit is correct)");
    expect(dialog).toHaveTextContent("Revealed coordinatesmissing");
    expect(await within(dialog).findByText("No correct responses found for this challenge.")).toBeInTheDocument();
    expect(await within(dialog).findByText("No stakes were made on this challenge.")).toBeInTheDocument();
  });

  it("closes the dialog with the Close button and with Escape", async () => {
    serveDemo();
    renderWithClient(<ResolvedTab />);
    const { user, dialog } = await openDetails("Four Thousand Summers");
    await user.click(within(dialog).getByRole("button", { name: "Close" }));
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    await openDetails("Sails That Never Leave");
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });

  it("recomputes the solution commitment v2 in the browser, as the pot computes it", async () => {
    // The pot's own answer for these values (frontend/src/lib/protocol/protocol.test.ts pins the
    // page's encoding to the contract's).
    const solution = "-33.856784, 151.215296";
    const salt = "0123456789abcdef".repeat(4);
    const commitment = await solutionCommitment({
      chainId: BigInt(TEST_CONFIG.chainId),
      pot: TEST_CONFIG.potAddress,
      challengeId: 3n,
      ...microDegrees(solution)!,
      salt,
    });
    const server = installFakeServer();
    const challenge = { ...PYRAMID, id: 3, solutionReveal: solution, solutionSalt: salt, solutionSha256: commitment };
    server.on("GET", RESOLVED, () => json([challenge]));
    server.on("GET", "/api/challenges/3/winners", () => json(OPERA_WINNERS));
    server.on("GET", "/api/responses?challengeId=3", () => json([]));
    renderWithClient(<ResolvedTab />);
    const { user, dialog } = await openDetails("Four Thousand Summers");
    const d = within(dialog);
    expect(d.getByLabelText("Revealed solution")).toHaveValue(solution);
    expect(d.getByLabelText("Salt")).toHaveValue(salt);
    expect(dialog).toHaveTextContent(
      `bytes32 "geopoem:solution:v2", ${TEST_CONFIG.chainId}, ${TEST_CONFIG.potAddress}, 3, -33856784, 151215296, 0x${salt}`,
    );

    await user.click(d.getByRole("button", { name: "Recompute SHA-256 in this browser" }));
    expect(await d.findByText("Match: the computed hash equals the published solution SHA-256.")).toBeInTheDocument();
    // Shown twice: published, and computed here.
    expect(d.getAllByText(commitment)).toHaveLength(2);

    // One changed micro-degree gives another hash: the check really depends on the revealed point.
    await user.clear(d.getByLabelText("Revealed solution"));
    await user.type(d.getByLabelText("Revealed solution"), "-33.856785, 151.215296");
    await user.click(d.getByRole("button", { name: "Recompute SHA-256 in this browser" }));
    expect(
      await d.findByText("No match: the computed hash differs from the published solution SHA-256."),
    ).toBeInTheDocument();
  });
});

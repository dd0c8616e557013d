import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { TEST_CONFIG } from "../../../test/fixtures";
import { installFakeServer, json } from "../../../test/http";
import { installPublicConfig } from "../../../test/setup";
import { renderWithClient } from "../../../test/render";
import {
  EARLIEST_TX,
  HIGHEST_TX,
  OPERA,
  OPERA_WINNERS,
  PYRAMID,
  PYRAMID_WINNERS,
} from "../../../test/resolvedChallenges";
import { WinnersTab } from "./index";

const RESOLVED = "/api/challenges/resolved";
const LABEL = "Choose a completed challenge to view winners";

beforeAll(() => {
  // jsdom lacks the pointer-capture and scrolling APIs Radix Select calls; no-ops stand in for them.
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => {};
  Element.prototype.scrollIntoView ??= () => {};
});

afterEach(() => {
  vi.unstubAllGlobals();
});

async function choose(optionName: string) {
  const user = userEvent.setup();
  const trigger = await screen.findByRole("combobox", { name: LABEL });
  await vi.waitFor(() => expect(trigger).toBeEnabled());
  await user.click(trigger);
  await user.click(await screen.findByRole("option", { name: optionName }));
  return user;
}

describe("Winners' Circle tab", () => {
  it("shows 'Loading challenges...' in a disabled dropdown while the list loads", () => {
    const server = installFakeServer();
    server.on("GET", RESOLVED, () => new Promise<Response>(() => {}));
    renderWithClient(<WinnersTab />);
    expect(screen.getByRole("heading", { level: 2, name: "Winners' Circle" })).toBeInTheDocument();
    const trigger = screen.getByRole("combobox", { name: LABEL });
    expect(trigger).toHaveTextContent("Loading challenges...");
    expect(trigger).toBeDisabled();
  });

  it("shows 'No completed challenges yet' when nothing is resolved", async () => {
    const server = installFakeServer();
    server.on("GET", RESOLVED, () => json([]));
    renderWithClient(<WinnersTab />);
    const trigger = screen.getByRole("combobox", { name: LABEL });
    await vi.waitFor(() => expect(trigger).toHaveTextContent("No completed challenges yet"));
    expect(trigger).toBeDisabled();
  });

  it("shows the list's error when the resolved challenges fail to load", async () => {
    const server = installFakeServer();
    server.on("GET", RESOLVED, () => new Response("", { status: 503, statusText: "Service Unavailable" }));
    renderWithClient(<WinnersTab />);
    expect(await screen.findByRole("alert")).toHaveTextContent(
      "Failed to load resolved challenges. Please try again later.",
    );
  });

  it("lists the challenges as 'Challenge #{id}: {title}' and shows both winners of the chosen one", async () => {
    const server = installFakeServer();
    server.on("GET", RESOLVED, () => json([OPERA, PYRAMID]));
    server.on("GET", "/api/challenges/1/winners", () => json(PYRAMID_WINNERS));
    renderWithClient(<WinnersTab />);
    const user = userEvent.setup();
    const trigger = await screen.findByRole("combobox", { name: LABEL });
    // The latest is shown until the player picks another.
    await vi.waitFor(() => expect(trigger).toHaveTextContent("Challenge #2: Sails That Never Leave"));
    await user.click(trigger);
    const options = await screen.findAllByRole("option");
    expect(options.map((o) => o.textContent?.replace("✓", ""))).toEqual([
      "Challenge #2: Sails That Never Leave",
      "Challenge #1: Four Thousand Summers",
    ]);
    await user.click(options[1]!);

    const heading = await screen.findByRole("heading", { level: 3, name: "Challenge #1: Four Thousand Summers" });
    const info = heading.closest(".card") as HTMLElement;
    expect(info).toHaveTextContent("Proximity threshold150 m");
    expect(info).toHaveTextContent("Target coordinates29.979175, 31.134258");
    expect(info).toHaveTextContent(PYRAMID.solutionSha256);

    const earliest = await screen.findByRole("article", { name: "Earliest Correct Response" });
    expect(earliest).toHaveTextContent("Response ID1");
    expect(earliest).toHaveTextContent("Challenge ID1");
    expect(earliest).toHaveTextContent("Distance6.24 m");
    expect(earliest).toHaveTextContent("Coordinates29.9792, 31.1342");
    expect(earliest).toHaveTextContent("Staked5.00 USDC");
    expect(earliest).toHaveTextContent(`Timestamp${new Date(1795427429 * 1000).toLocaleString()}`);
    expect(earliest).toHaveTextContent("Prize33.10 USDC");
    // The site says it is final; the pot shows no payment: not paid yet.
    expect(earliest).toHaveTextContent("PayoutNot paid yet: the pot pays it to the wallet that staked");
    expect(within(earliest).getByRole("link", { name: EARLIEST_TX })).toHaveAttribute(
      "href",
      `https://sepolia.etherscan.io/tx/${EARLIEST_TX}`,
    );
    expect(within(earliest).getByRole("link", { name: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" })).toHaveAttribute(
      "href",
      "https://sepolia.etherscan.io/address/0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    );

    const highest = screen.getByRole("article", { name: "Highest Staked Correct Response" });
    expect(highest).toHaveTextContent("Response ID2");
    expect(highest).toHaveTextContent("Distance0.59 m");
    expect(highest).toHaveTextContent("Staked25.50 USDC");
    expect(within(highest).getByRole("link", { name: HIGHEST_TX })).toBeInTheDocument();
    expect(screen.getByText(/Site operations and student donations \(20%\): 16\.55 USDC/)).toBeInTheDocument();
    expect(server.calls.filter((c) => c.url.startsWith("/")).map((c) => c.url)).toEqual([
      RESOLVED,
      "/api/challenges/2/winners",
      "/api/challenges/1/winners",
    ]);
  });

  it("shows hashes and addresses without links on a chain without an explorer (a local chain)", async () => {
    installPublicConfig({ ...TEST_CONFIG, chainId: 31338, explorerUrl: "", localChain: true });
    const server = installFakeServer();
    server.on("GET", RESOLVED, () => json([PYRAMID]));
    server.on("GET", "/api/challenges/1/winners", () =>
      json({ ...PYRAMID_WINNERS, highest: PYRAMID_WINNERS.earliest }),
    );
    renderWithClient(<WinnersTab />);
    const earliest = await screen.findByRole("article", { name: "Earliest Correct Response" });
    expect(earliest).toHaveTextContent(`Transaction${EARLIEST_TX}`);
    expect(earliest).toHaveTextContent("Submitter0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    expect(within(earliest).queryAllByRole("link")).toEqual([]);
    expect(screen.getByText(/The same response won both prizes/)).toBeInTheDocument();
  });

  it("shows 'Loading response data...' and then the no-correct message", async () => {
    let answer: (r: Response) => void = () => {};
    const server = installFakeServer();
    server.on("GET", RESOLVED, () => json([OPERA]));
    server.on("GET", "/api/challenges/2/winners", () => new Promise<Response>((resolve) => (answer = resolve)));
    renderWithClient(<WinnersTab />);
    await choose("Challenge #2: Sails That Never Leave");
    expect(await screen.findByText("Loading response data...")).toBeInTheDocument();
    expect(screen.getByText("Not specified").closest("dd")).toHaveTextContent(
      "Not specified (scored as 0 m: only an exact hit is correct)",
    );
    answer(json(OPERA_WINNERS));
    expect(await screen.findByText("No correct responses found for this challenge.")).toBeInTheDocument();
    expect(screen.queryByRole("article")).not.toBeInTheDocument();
  });

  it("shows an error when the winners fail to load", async () => {
    const server = installFakeServer();
    server.on("GET", RESOLVED, () => json([OPERA]));
    server.on("GET", "/api/challenges/2/winners", () => json({ message: "Not found.", errors: {} }, 404));
    renderWithClient(<WinnersTab />);
    await choose("Challenge #2: Sails That Never Leave");
    expect(await screen.findByRole("alert")).toHaveTextContent(
      "Failed to load the winners of this challenge. Please try again later.",
    );
  });
});

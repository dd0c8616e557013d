import { useQuery } from "@tanstack/react-query";
import { screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { activeChallengeQuery } from "@/api/queries";
import type { ChallengeResponse } from "@/api/types";
import { saveSubmission } from "@/wallet/pending";
import { WalletProvider } from "@/wallet/WalletContext";
import { FakeWallet, PLAYER, TX_HASH } from "../../../test/fakeWallet";
import { installFakeServer, json } from "../../../test/http";
import { renderWithClient } from "../../../test/render";
import { MySubmissionsPanel, SERVER_COPY_LAG_MS } from "./MySubmissionsPanel";
import { submittedRecord } from "../../../test/submissions";

/** With a wallet connected, My submissions also lists the address's claims the
 * server holds (another browser's, or this one's before its storage was cleared), merged with this
 * browser's records without duplicates (same transaction and commitment). */

const KEPT = "c".repeat(64);
const RECORD = submittedRecord({ commitment: KEPT });
const OTHER_HASH = `0x${"cd".repeat(32)}`;
const claim = (over: Partial<ChallengeResponse>): ChallengeResponse => ({
  id: 1,
  challengeId: 7,
  submissionText: null,
  submissionStake: "2.500000",
  submissionTimestamp: 1767225700,
  transactionHash: TX_HASH,
  submitterAddress: PLAYER,
  commitment: KEPT,
  status: "confirmed",
  rejectionCode: "",
  rejectionReason: "",
  ...over,
});

afterEach(() => vi.unstubAllGlobals());

function renderPanel() {
  return renderWithClient(
    <WalletProvider reload={() => undefined}>
      <MySubmissionsPanel />
    </WalletProvider>,
  );
}

describe("My submissions from the server", () => {
  it("adds the connected address's claims this browser has no record of, once each, coordinates hidden", async () => {
    const server = installFakeServer();
    server.on("GET", `/api/responses/${TX_HASH}?commitment=${KEPT}`, () => json(claim({})));
    server.on("GET", `/api/responses?address=${PLAYER}`, () =>
      json([
        claim({
          id: 9,
          transactionHash: OTHER_HASH,
          commitment: "d".repeat(64),
          submissionStake: "3.500000",
          status: "pending",
        }),
        claim({}),
        // A stranger's claim naming the player's address on the player's transaction with another
        // guess, waiting for verification to reject it: never shown as the player's.
        claim({ id: 8, commitment: "e".repeat(64), status: "pending" }),
      ]),
    );
    window.ethereum = new FakeWallet();
    saveSubmission(RECORD);
    renderPanel();
    const panel = screen.getByRole("region", { name: "My submissions" });
    const fromServer = await within(panel).findByText("No record: listed by Geopoem for your wallet");
    const items = within(panel).getAllByRole("listitem");
    expect(items).toHaveLength(2);
    const item = fromServer.closest("li") as HTMLElement;
    expect(within(item).getByText("3.50 USDC")).toBeInTheDocument();
    expect(within(item).getByText("Pending")).toBeInTheDocument();
    expect(within(item).getByText("Hidden until the challenge is resolved")).toBeInTheDocument();
    expect(within(item).getByRole("link", { name: /View transaction/ })).toHaveAttribute(
      "href",
      `https://sepolia.etherscan.io/tx/${OTHER_HASH}`,
    );
  });

  it("lists the server's claims after this browser's storage was cleared", async () => {
    const server = installFakeServer();
    server.on("GET", `/api/responses?address=${PLAYER}`, () =>
      json([
        claim({
          status: "rejected",
          rejectionCode: "late",
          rejectionReason: "The payment was confirmed on chain after the challenge had closed.",
        }),
      ]),
    );
    window.ethereum = new FakeWallet();
    renderPanel();
    expect(await screen.findByText("Rejected")).toBeInTheDocument();
    expect(screen.getByText(/after the challenge had closed/)).toBeInTheDocument();
    expect(screen.queryByText("No submissions from this browser yet.")).not.toBeInTheDocument();
  });

  it("asks nothing by address without a connected wallet", async () => {
    const server = installFakeServer();
    window.ethereum = new FakeWallet({ eth_accounts: () => [] });
    renderPanel();
    expect(screen.getByText("No submissions from this browser yet.")).toBeInTheDocument();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.calls.filter((c) => c.url.includes("address="))).toHaveLength(0);
  });

  it("reads the active challenge again when a claim it listed pending settles", async () => {
    const server = installFakeServer();
    let status: ChallengeResponse["status"] = "pending";
    let stakedSum = "10.000000";
    server.on("GET", "/api/challenges/active", () => json({ id: 7, stakedSum }));
    server.on("GET", `/api/responses?address=${PLAYER}`, () =>
      json([claim({ id: 9, transactionHash: OTHER_HASH, status })]),
    );
    window.ethereum = new FakeWallet();
    function TotalBids() {
      const { data } = useQuery(activeChallengeQuery());
      return <p>Total bids {data?.stakedSum}</p>;
    }
    renderWithClient(
      <WalletProvider reload={() => undefined}>
        <TotalBids />
        <MySubmissionsPanel />
      </WalletProvider>,
    );
    expect(await screen.findByText("Pending")).toBeInTheDocument();
    expect(screen.getByText("Total bids 10.000000")).toBeInTheDocument();
    // Another browser's claim is confirmed: the list follows it, and the total bids with it.
    status = "confirmed";
    stakedSum = "12.500000";
    expect(await screen.findByText("Confirmed", {}, { timeout: 5000 })).toBeInTheDocument();
    expect(await screen.findByText("Total bids 12.500000", {}, { timeout: 2000 })).toBeInTheDocument();
  }, 15000);

  it("reads the active challenge once more a moment after a claim settles, when the first read was a server's stale copy", async () => {
    const server = installFakeServer();
    let status: ChallengeResponse["status"] = "pending";
    let stakedSum = "10.000000";
    let activeReads = 0;
    let readsAtSettle = 0;
    server.on("GET", "/api/challenges/active", () => {
      activeReads += 1;
      // The read made as the claim settles is answered from a copy the bump has not reached yet.
      const answer = json({
        id: 7,
        stakedSum: status === "confirmed" && activeReads === readsAtSettle + 1 ? "10.000000" : stakedSum,
      });
      return answer;
    });
    server.on("GET", `/api/responses?address=${PLAYER}`, () =>
      json([claim({ id: 9, transactionHash: OTHER_HASH, status })]),
    );
    window.ethereum = new FakeWallet();
    function TotalBids() {
      const { data } = useQuery(activeChallengeQuery());
      return <p>Total bids {data?.stakedSum}</p>;
    }
    renderWithClient(
      <WalletProvider reload={() => undefined}>
        <TotalBids />
        <MySubmissionsPanel />
      </WalletProvider>,
    );
    expect(await screen.findByText("Pending")).toBeInTheDocument();
    readsAtSettle = activeReads;
    status = "confirmed";
    stakedSum = "12.500000";
    expect(await screen.findByText("Confirmed", {}, { timeout: 5000 })).toBeInTheDocument();
    expect(
      await screen.findByText("Total bids 12.500000", {}, { timeout: SERVER_COPY_LAG_MS + 2000 }),
    ).toBeInTheDocument();
    expect(activeReads).toBeGreaterThanOrEqual(readsAtSettle + 2);
  }, 15000);
});

import { screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ChallengeResponse } from "@/api/types";
import { saveSubmission, type StoredSubmission } from "@/wallet/pending";
import { WalletProvider } from "@/wallet/WalletContext";
import { FakeWallet, PLAYER, TX_HASH } from "../../../test/fakeWallet";
import { installFakeServer, json } from "../../../test/http";
import { renderWithClient } from "../../../test/render";
import { MySubmissionsPanel } from "./MySubmissionsPanel";
import { submittedRecord } from "../../../test/submissions";

/** The page watches the chain head through the player's wallet and asks a pending claim's status
 * quickly once the payment is deep enough (included in block 16, CHAIN_CONFIRMATIONS 2 in the test
 * config: block 17), slowly before (docs/decisions.md, "Following a pending claim"). Real timers;
 * the wallet and the network are scripted. */

const COMMITMENT = "c".repeat(64);
const RECORD = submittedRecord({ commitment: COMMITMENT, inclusionBlock: 16 });

const claim = (status: ChallengeResponse["status"]): ChallengeResponse => ({
  id: 1,
  challengeId: 7,
  submissionText: null,
  submissionStake: "2.500000",
  submissionTimestamp: 1767225700,
  transactionHash: TX_HASH,
  submitterAddress: PLAYER,
  commitment: COMMITMENT,
  status,
  rejectionCode: "",
  rejectionReason: "",
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(() => vi.unstubAllGlobals());

function setUp(record: StoredSubmission, wallet: FakeWallet) {
  const chain = { status: "pending" as ChallengeResponse["status"] };
  const statusAsked: number[] = [];
  const server = installFakeServer();
  server.on("GET", `/api/responses/${TX_HASH}?commitment=${COMMITMENT}`, () => {
    statusAsked.push(Date.now());
    return json(claim(chain.status));
  });
  server.on("GET", `/api/responses?address=${PLAYER}`, () => json([claim(chain.status)]));
  server.on("GET", "/api/challenges/active", () => json({ message: "No active challenge.", errors: {} }, 404));
  saveSubmission(record);
  window.ethereum = wallet;
  renderWithClient(
    <WalletProvider reload={() => undefined}>
      <MySubmissionsPanel />
    </WalletProvider>,
  );
  return { chain, statusAsked };
}

describe("Following a pending claim from the wallet's head", () => {
  it("asks slowly before the deep-enough block and quickly once the wallet's head reaches it", async () => {
    const head = { block: 16 };
    const wallet = new FakeWallet({ eth_blockNumber: () => `0x${head.block.toString(16)}` });
    const { chain, statusAsked } = setUp(RECORD, wallet);
    const panel = screen.getByRole("region", { name: "My submissions" });
    expect(await within(panel).findByText("Pending")).toBeInTheDocument();

    // Block 16 only: the head is watched, the status is not asked again for 1.5 s (plain polling
    // would have asked at 2 s; the slow pace is 4 s).
    await waitFor(() => expect(wallet.methods()).toContain("eth_blockNumber"));
    const before = statusAsked.length;
    await sleep(1500);
    expect(statusAsked.length).toBe(before);
    const headPolls = wallet.methods().filter((m) => m === "eth_blockNumber").length;
    expect(headPolls).toBeGreaterThanOrEqual(2);

    // Block 17 makes the payment deep enough: asked at once, then every 250 ms.
    head.block = 17;
    const reached = Date.now();
    await waitFor(() => expect(statusAsked.length).toBeGreaterThanOrEqual(before + 4), { timeout: 2500 });
    const firstFast = statusAsked[before] ?? Infinity;
    expect(firstFast - reached).toBeLessThan(1000); // the next head poll (500 ms) and the look-up at once

    // The server confirms: the page shows it within a fast tick, not a 2-s one.
    chain.status = "confirmed";
    const confirmedAt = Date.now();
    expect(await within(panel).findByText("Confirmed", {}, { timeout: 1500 })).toBeInTheDocument();
    expect(Date.now() - confirmedAt).toBeLessThan(1000);

    // Settled: no more look-ups, and the head is no longer asked.
    const asked = statusAsked.length;
    const polls = wallet.methods().filter((m) => m === "eth_blockNumber").length;
    await sleep(1200);
    expect(statusAsked.length).toBe(asked);
    expect(wallet.methods().filter((m) => m === "eth_blockNumber").length).toBe(polls);
  }, 20000);

  it("polls plainly every 2 s when the wallet cannot tell the head", async () => {
    // The default fake wallet answers eth_blockNumber with -32601 (method not found).
    const wallet = new FakeWallet();
    const { statusAsked } = setUp(RECORD, wallet);
    const panel = screen.getByRole("region", { name: "My submissions" });
    expect(await within(panel).findByText("Pending")).toBeInTheDocument();
    await waitFor(() => expect(wallet.methods()).toContain("eth_blockNumber"));
    const before = statusAsked.length;
    await waitFor(() => expect(statusAsked.length).toBeGreaterThan(before + 1), { timeout: 6000 });
    // Every follow-up look-up came about 2 s after the one before (never the 250-ms pace).
    const times = statusAsked.slice(before - 1);
    for (let i = 1; i < times.length; i += 1) expect((times[i] ?? 0) - (times[i - 1] ?? 0)).toBeGreaterThan(1500);
    // One failed head poll ends the watch: the wallet is not asked again.
    expect(wallet.methods().filter((m) => m === "eth_blockNumber").length).toBe(1);
  }, 20000);

  it("polls plainly for a record without its inclusion block (saved before it was kept)", async () => {
    const head = { block: 16 };
    const wallet = new FakeWallet({ eth_blockNumber: () => `0x${head.block.toString(16)}` });
    const { inclusionBlock: _dropped, ...older } = RECORD;
    const { statusAsked } = setUp(older, wallet);
    const panel = screen.getByRole("region", { name: "My submissions" });
    expect(await within(panel).findByText("Pending")).toBeInTheDocument();
    const before = statusAsked.length;
    await waitFor(() => expect(statusAsked.length).toBeGreaterThan(before), { timeout: 3000 });
    expect(wallet.methods()).not.toContain("eth_blockNumber");
  }, 20000);
});

import { screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Stake } from "@/api/types";
import { saveStake, type StoredStake } from "@/wallet/pending";
import { WalletProvider } from "@/wallet/WalletContext";
import { FakeWallet, PLAYER } from "../../../test/fakeWallet";
import { installFakeServer, json } from "../../../test/http";
import { renderWithClient } from "../../../test/render";
import { pendingStake, stakeRecord } from "../../../test/submissions";
import { MySubmissionsPanel } from "./MySubmissionsPanel";

/** The page watches the chain head through the player's wallet and asks a pending stake's status
 * quickly once it is deep enough (in block 16, CHAIN_CONFIRMATIONS 2 in the test config: block 17),
 * slowly before (docs/decisions.md, "Following a pending claim"). Real timers; the wallet and the
 * network are scripted. */

const RECORD = stakeRecord();
const PENDING = /^In the pot \(stake #1\), waiting for confirmation$/;
const CONFIRMED = "Confirmed in the pot (stake #1)";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(() => vi.unstubAllGlobals());

function setUp(record: StoredStake, wallet: FakeWallet, answer: Partial<Stake> = {}) {
  const chain = { status: "pending" as Stake["status"] };
  const statusAsked: number[] = [];
  const server = installFakeServer();
  server.on("GET", `/api/responses/${record.commitment}`, () => {
    statusAsked.push(Date.now());
    return json(pendingStake({ ...answer, status: chain.status }));
  });
  server.on("GET", `/api/responses?address=${PLAYER}`, () => json([pendingStake({ status: chain.status })]));
  server.on("GET", "/api/challenges/active", () => json({ message: "No active challenge.", errors: {} }, 404));
  saveStake(record);
  window.ethereum = wallet;
  renderWithClient(
    <WalletProvider reload={() => undefined}>
      <MySubmissionsPanel />
    </WalletProvider>,
  );
  return { chain, statusAsked };
}

describe("Following a pending stake from the wallet's head", () => {
  it("asks slowly before the deep-enough block and quickly once the wallet's head reaches it", async () => {
    const head = { block: 16 };
    const wallet = new FakeWallet({ eth_blockNumber: () => `0x${head.block.toString(16)}` });
    const { chain, statusAsked } = setUp(RECORD, wallet);
    const panel = screen.getByRole("region", { name: "My submissions" });
    expect(await within(panel).findByText(PENDING)).toBeInTheDocument();

    // Block 16 only: the head is watched, the status is not asked again for 1.5 s (plain polling
    // would have asked at 2 s; the slow pace is 4 s).
    await waitFor(() => expect(wallet.methods()).toContain("eth_blockNumber"));
    const before = statusAsked.length;
    await sleep(1500);
    expect(statusAsked.length).toBe(before);
    const headPolls = wallet.methods().filter((m) => m === "eth_blockNumber").length;
    expect(headPolls).toBeGreaterThanOrEqual(2);

    // Block 17 makes the stake deep enough: asked at once, then every 250 ms.
    head.block = 17;
    const reached = Date.now();
    await waitFor(() => expect(statusAsked.length).toBeGreaterThanOrEqual(before + 4), { timeout: 2500 });
    const firstFast = statusAsked[before] ?? Infinity;
    expect(firstFast - reached).toBeLessThan(1000); // the next head poll (500 ms) and the look-up at once

    // The server confirms: the page shows it within a fast tick, not a 2-s one.
    chain.status = "confirmed";
    const confirmedAt = Date.now();
    expect(await within(panel).findByText(CONFIRMED, {}, { timeout: 1500 })).toBeInTheDocument();
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
    expect(await within(panel).findByText(PENDING)).toBeInTheDocument();
    await waitFor(() => expect(wallet.methods()).toContain("eth_blockNumber"));
    const before = statusAsked.length;
    await waitFor(() => expect(statusAsked.length).toBeGreaterThan(before + 1), { timeout: 6000 });
    // Every follow-up look-up came about 2 s after the one before (never the 250-ms pace).
    const times = statusAsked.slice(before - 1);
    for (let i = 1; i < times.length; i += 1) expect((times[i] ?? 0) - (times[i - 1] ?? 0)).toBeGreaterThan(1500);
    // One failed head poll ends the watch: the wallet is not asked again.
    expect(wallet.methods().filter((m) => m === "eth_blockNumber").length).toBe(1);
  }, 20000);

  it("polls plainly when Geopoem's answer names no block", async () => {
    const head = { block: 16 };
    const wallet = new FakeWallet({ eth_blockNumber: () => `0x${head.block.toString(16)}` });
    const { statusAsked } = setUp(RECORD, wallet, { blockNumber: null });
    const panel = screen.getByRole("region", { name: "My submissions" });
    expect(await within(panel).findByText(PENDING)).toBeInTheDocument();
    const before = statusAsked.length;
    await waitFor(() => expect(statusAsked.length).toBeGreaterThan(before), { timeout: 3000 });
    expect(wallet.methods()).not.toContain("eth_blockNumber");
  }, 20000);
});

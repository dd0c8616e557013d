import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { listSubmissions } from "@/wallet/pending";
import {
  ACTIVE_CHALLENGE,
  answerClaimStatus,
  renderActiveTab,
  serveActiveChallenge,
} from "../../../test/activeChallenge";
import { FakeWallet } from "../../../test/fakeWallet";
import { json } from "../../../test/http";

/** After its POST the page follows the claim and never shows anything older than what it just
 * did. The claim status answered 404 before the POST; after it the panel follows the claim (Pending,
 * then Confirmed) and the active card's total bids follow the confirmed sum, with no reload or remount. The
 * network is scripted (fetch); the refetch interval is the real one (2 s). */

afterEach(() => vi.unstubAllGlobals());

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe("Following a claim after the POST", () => {
  it("shows 404, then Pending, then Confirmed without a remount, and the total bids follow", async () => {
    const chain = { claim: null as string | null, stakedSum: "12.500000" };
    const server = serveActiveChallenge(() => ({ ...ACTIVE_CHALLENGE, stakedSum: chain.stakedSum }));
    const posted = deferred<Response>();
    server.on("POST", "/api/responses", () => posted.promise);
    const statusCalls: (string | null)[] = [];
    answerClaimStatus(server, () => {
      statusCalls.push(chain.claim);
      return chain.claim;
    });
    window.ethereum = new FakeWallet();
    renderActiveTab();
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText("Coordinates (latitude, longitude)"), "29.979175, 31.134258");
    await user.type(screen.getByLabelText("USDC bid amount"), "3.5");
    await user.click(screen.getByRole("button", { name: "Submit Your Solution & Pay Your Bid" }));
    await user.click(await screen.findByRole("button", { name: "Confirm" }));

    // The confirm dialog shows "Processing..." until the transfer is sent, then closes.
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument(), { timeout: 15000 });
    // The payment is made and the record kept before the POST: the server does not know the claim yet.
    const panel = screen.getByRole("region", { name: "My submissions" });
    expect(await within(panel).findByText("Not recorded by Geopoem yet", {}, { timeout: 8000 })).toBeInTheDocument();
    const item = within(panel).getByRole("listitem");
    expect(statusCalls).toContain(null);

    chain.claim = "pending";
    await act(async () => posted.resolve(json({ id: 1, status: "pending" }, 201)));
    expect(await within(item).findByText("Pending", {}, { timeout: 5000 })).toBeInTheDocument();
    expect(within(item).getByText("Recorded by Geopoem")).toBeInTheDocument();
    expect(listSubmissions()[0]?.state).toBe("submitted");
    const card = screen.getByRole("heading", { name: ACTIVE_CHALLENGE.poemTitle }).closest("section") as HTMLElement;
    expect(within(card).getByText("12.50 USDC")).toBeInTheDocument();

    // The worker confirms the claim and moves the sum: the page follows on its own.
    chain.claim = "confirmed";
    chain.stakedSum = "16.000000";
    expect(await within(item).findByText("Confirmed", {}, { timeout: 5000 })).toBeInTheDocument();
    expect(await within(card).findByText("16.00 USDC", {}, { timeout: 5000 })).toBeInTheDocument();
    // The same list item and card nodes: followed in place, not remounted.
    expect(item.isConnected && card.isConnected).toBe(true);

    // Settled: no more status look-ups.
    const asked = statusCalls.length;
    await new Promise((resolve) => setTimeout(resolve, 4500));
    expect(statusCalls.length).toBe(asked);
    await waitFor(() => expect(within(item).getByText("Confirmed")).toBeInTheDocument());
  }, 30000);

  it("reads the total bids again when the first answer for the claim is already Confirmed", async () => {
    // The race CI met: the POST answered, the card was read (the claim still pending), then the
    // head watcher confirmed the claim before the page's first look-up of it. No Pending is ever
    // seen; the card must still follow the confirmed sum.
    const chain = { stakedSum: "12.500000" };
    const server = serveActiveChallenge(() => ({ ...ACTIVE_CHALLENGE, stakedSum: chain.stakedSum }));
    server.on("POST", "/api/responses", () => new Promise<Response>(() => undefined));
    answerClaimStatus(server, () => {
      chain.stakedSum = "16.000000"; // confirmed by the watcher just before this look-up
      return "confirmed";
    });
    window.ethereum = new FakeWallet();
    renderActiveTab();
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText("Coordinates (latitude, longitude)"), "29.979175, 31.134258");
    await user.type(screen.getByLabelText("USDC bid amount"), "3.5");
    const card = screen.getByRole("heading", { name: ACTIVE_CHALLENGE.poemTitle }).closest("section") as HTMLElement;
    expect(within(card).getByText("12.50 USDC")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Submit Your Solution & Pay Your Bid" }));
    await user.click(await screen.findByRole("button", { name: "Confirm" }));

    const panel = await screen.findByRole("region", { name: "My submissions" }, { timeout: 15000 });
    expect(await within(panel).findByText("Confirmed", {}, { timeout: 15000 })).toBeInTheDocument();
    expect(within(panel).queryByText("Pending")).not.toBeInTheDocument();
    expect(await within(card).findByText("16.00 USDC", {}, { timeout: 5000 })).toBeInTheDocument();
  }, 30000);
});

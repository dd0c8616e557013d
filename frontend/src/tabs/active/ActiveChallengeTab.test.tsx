import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { listSubmissions } from "@/wallet/pending";
import { FakeWallet, PLAYER, RpcError, TX_HASH } from "../../../test/fakeWallet";
import { TEST_CONFIG } from "../../../test/fixtures";
import { installPublicConfig } from "../../../test/setup";
import { installFakeServer, json } from "../../../test/http";
import {
  ACTIVE_CHALLENGE,
  ACTIVE_RECORD_ANCHOR,
  renderActiveTab,
  serveActiveChallenge,
} from "../../../test/activeChallenge";

afterEach(() => vi.unstubAllGlobals());

async function fillForm(coordinates: string, stake: string) {
  const user = userEvent.setup();
  const field = await screen.findByLabelText("Coordinates (latitude, longitude)");
  if (coordinates) await user.type(field, coordinates);
  if (stake) await user.type(screen.getByLabelText("USDC bid amount"), stake);
  await user.click(screen.getByRole("button", { name: "Submit Your Solution & Pay Your Bid" }));
  return user;
}

describe("Active Challenge: load states", () => {
  it("shows a spinner while loading", () => {
    const server = installFakeServer();
    server.on("GET", "/api/challenges/active", () => new Promise<Response>(() => undefined));
    renderActiveTab();
    expect(screen.getByRole("status")).toHaveTextContent("Loading the active challenge...");
  });

  it("shows the load error", async () => {
    const server = installFakeServer();
    server.on("GET", "/api/challenges/active", () => json({ message: "Boom." }, 500));
    renderActiveTab();
    expect(await screen.findByRole("alert")).toHaveTextContent(
      "Failed to load active challenge. Please try again later.",
    );
  });

  it("says when there is no active challenge", async () => {
    serveActiveChallenge(null);
    renderActiveTab();
    expect(await screen.findByText("No active challenge available at the moment.")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Submit Your Solution & Pay Your Bid" })).not.toBeInTheDocument();
  });

  it("shows the challenge card", async () => {
    serveActiveChallenge();
    renderActiveTab();
    const card = (await screen.findByRole("heading", { name: ACTIVE_CHALLENGE.poemTitle })).closest(
      "section",
    ) as HTMLElement;
    expect(within(card).getByText("Active")).toBeInTheDocument();
    expect(within(card).getByText("#7")).toBeInTheDocument();
    expect(within(card).getByText("250 meters")).toBeInTheDocument();
    expect(within(card).getByText("lion").tagName).toBe("EM");
    expect(within(card).getByText("paw").tagName).toBe("STRONG");
    expect(within(card).getByText(ACTIVE_CHALLENGE.solutionSha256)).toBeInTheDocument();
    expect(within(card).getByText("12.50 USDC")).toBeInTheDocument();
    expect(within(card).getByText(new Date(1767225600 * 1000).toLocaleString())).toBeInTheDocument();
  });

  it("says the terms are committed on chain, with the anchor's block on the explorer", async () => {
    serveActiveChallenge();
    renderActiveTab();
    const terms = (await screen.findByText("Terms on chain")).nextElementSibling as HTMLElement;
    expect(terms).toHaveTextContent("Committed in block 4242, so they cannot be changed");
    expect(within(terms).getByRole("link", { name: "block 4242" })).toHaveAttribute(
      "href",
      "https://sepolia.etherscan.io/block/4242",
    );
  });

  it("shows the anchor's block without a link on a chain without an explorer", async () => {
    installPublicConfig({ ...TEST_CONFIG, chainId: 31337, explorerUrl: "", localChain: true });
    serveActiveChallenge();
    renderActiveTab();
    const terms = (await screen.findByText("Terms on chain")).nextElementSibling as HTMLElement;
    expect(terms).toHaveTextContent("Committed in block 4242, so they cannot be changed");
    expect(within(terms).queryByRole("link")).not.toBeInTheDocument();
  });

  it("says a demonstration challenge's terms are not committed on chain", async () => {
    serveActiveChallenge({ ...ACTIVE_CHALLENGE, isDemo: true, anchor: null });
    renderActiveTab();
    const terms = (await screen.findByText("Terms on chain")).nextElementSibling as HTMLElement;
    expect(terms).toHaveTextContent("Not committed: this is a demonstration challenge");
    expect(screen.queryByText(/Committed in block/)).not.toBeInTheDocument();
  });

  it('shows "Not specified" without a proximity threshold', async () => {
    serveActiveChallenge({ ...ACTIVE_CHALLENGE, proximityThreshold: null });
    renderActiveTab();
    expect(await screen.findByText("Not specified")).toBeInTheDocument();
    // A missing threshold is scored as 0 m: the card says so, or a 1.82 m miss looks like a bug.
    expect(screen.getByText("Not specified").closest("dd")).toHaveTextContent(
      "Not specified (scored as 0 m: only an exact hit is correct)",
    );
  });

  it("links the payment note to the treasury on the explorer and shows the warning", async () => {
    serveActiveChallenge();
    renderActiveTab();
    const link = await screen.findByRole("link", { name: /treasury on the block explorer/ });
    expect(link).toHaveAttribute(
      "href",
      "https://sepolia.etherscan.io/address/0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    );
    expect(screen.getByText(/stakes are final and non-refundable/)).toBeInTheDocument();
    expect(screen.getByText("Minimum bid: 1.00 USDC")).toBeInTheDocument();
    expect(screen.getByLabelText("USDC bid amount")).toHaveAttribute("step", "0.01");
  });

  it("shows the treasury address without a link on a chain without an explorer", async () => {
    installPublicConfig({
      ...TEST_CONFIG,
      chainId: 31337,
      chainName: "Anvil (local)",
      explorerUrl: "",
      localChain: true,
    });
    serveActiveChallenge();
    renderActiveTab();
    const note = (await screen.findByText(/Payment information:/)).closest("div");
    expect(note).toHaveTextContent(`Geopoem treasury at ${TEST_CONFIG.treasuryAddress}. You also need`);
    expect(within(note!).queryByRole("link")).not.toBeInTheDocument();
  });
});

describe("Active Challenge: validation", () => {
  it.each(["", "29.979175", "91, 0", "abc, def"])("toasts Incorrect Coordinates for %j", async (coordinates) => {
    serveActiveChallenge();
    const wallet = new FakeWallet();
    window.ethereum = wallet;
    renderActiveTab();
    await fillForm(coordinates, "5");
    expect(await screen.findByText("Incorrect Coordinates")).toBeInTheDocument();
    expect(screen.getByText("Please enter valid coordinates in the format: latitude, longitude")).toBeInTheDocument();
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(wallet.methods()).not.toContain("wallet_requestPermissions");
  });

  it.each([
    ["0.5", "Minimum stake amount is 1.00 USDC"],
    ["0.99", "Minimum stake amount is 1.00 USDC"],
    ["", "Stake must be a decimal amount of USDC with at most 6 decimals."],
    // The field's step is 0.01, and the API refuses the rest with the same sentence.
    ["1.005", "Stake amount must be a multiple of 0.01 USDC (at most 2 decimals)."],
  ])("toasts Invalid Stake Amount for %j", async (stake, message) => {
    serveActiveChallenge();
    renderActiveTab();
    await fillForm("29.979175, 31.134258", stake);
    expect(await screen.findByText("Invalid Stake Amount")).toBeInTheDocument();
    expect(screen.getByText(message)).toBeInTheDocument();
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });
});

describe("Active Challenge: confirm dialog", () => {
  it("shows the normalised coordinates and the stake; Cancel closes it and nothing is paid", async () => {
    serveActiveChallenge();
    const wallet = new FakeWallet();
    window.ethereum = wallet;
    renderActiveTab();
    const user = await fillForm("29.9791759,31.1342589", "2.50");
    const dialog = await screen.findByRole("dialog", { name: "Confirm Solution Submission" });
    expect(within(dialog).getByText("29.979175, 31.134258")).toBeInTheDocument();
    expect(within(dialog).getByText("2.50 USDC")).toBeInTheDocument();
    expect(within(dialog).getByText(/receives any payout/)).toBeInTheDocument();
    expect(within(dialog).getByText(/Legal & Terms/)).toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(wallet.methods()).not.toContain("wallet_requestPermissions");
    expect(listSubmissions()).toEqual([]);
  });

  it("offers the offline record as a download holding coordinates, salt, challenge and stake", async () => {
    serveActiveChallenge();
    const blobs: Blob[] = [];
    URL.createObjectURL = vi.fn((blob: Blob) => {
      blobs.push(blob);
      return "blob:record";
    });
    URL.revokeObjectURL = vi.fn();
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => undefined);
    renderActiveTab();
    const user = await fillForm("48.8584, 2.2945", "3");
    await user.click(await screen.findByRole("button", { name: "Download offline record" }));
    expect(click).toHaveBeenCalledTimes(1);
    const record = JSON.parse(await blobs[0]!.text()) as Record<string, unknown>;
    expect(record).toMatchObject({ challengeId: 7, coordinates: "48.8584, 2.2945", stakeUsdc: "3", chainId: 11155111 });
    expect(record.salt).toMatch(/^[0-9a-f]{64}$/);
    // The anchor of the terms on screen: verify_challenge.py --record checks it is the one on chain.
    expect(record.anchor).toEqual(ACTIVE_RECORD_ANCHOR);
    click.mockRestore();
  });

  it("keeps no anchor in the record of an unanchored demonstration challenge", async () => {
    serveActiveChallenge({ ...ACTIVE_CHALLENGE, isDemo: true, anchor: null });
    const blobs: Blob[] = [];
    URL.createObjectURL = vi.fn((blob: Blob) => {
      blobs.push(blob);
      return "blob:record";
    });
    URL.revokeObjectURL = vi.fn();
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => undefined);
    renderActiveTab();
    const user = await fillForm("48.8584, 2.2945", "3");
    await user.click(await screen.findByRole("button", { name: "Download offline record" }));
    const record = JSON.parse(await blobs[0]!.text()) as Record<string, unknown>;
    expect(record.challengeId).toBe(7);
    expect(record).not.toHaveProperty("anchor");
    click.mockRestore();
  });
});

function deferred<T>() {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe("Active Challenge: submission", () => {
  it("shows the progress messages in order, then the success toast, clears the inputs and refreshes", async () => {
    const server = serveActiveChallenge();
    const permission = deferred<unknown>();
    const sent = deferred<string>();
    const posted = deferred<Response>();
    server.on("POST", "/api/responses", () => posted.promise);
    const wallet = new FakeWallet({
      eth_accounts: () => [],
      wallet_requestPermissions: () => permission.promise,
      eth_sendTransaction: () => sent.promise,
    });
    window.ethereum = wallet;
    renderActiveTab();
    const user = await fillForm("29.979175, 31.134258", "1");
    await user.click(await screen.findByRole("button", { name: "Confirm" }));

    // While the wallet asks for the account the dialog stays, its Confirm showing the spec's
    // "Processing..." (disabled, Cancel too), with the progress message beside it.
    const dialog = screen.getByRole("dialog", { name: "Confirm Solution Submission" });
    expect(within(dialog).getByRole("button", { name: "Processing..." })).toBeDisabled();
    expect(within(dialog).getByRole("button", { name: "Cancel" })).toBeDisabled();
    await waitFor(() =>
      expect(within(dialog).getByRole("status")).toHaveTextContent("Please select your MetaMask account..."),
    );
    // Each progress message is painted before the flow goes on: it shows a frame later. The form
    // behind the modal dialog shows it too (hidden from the accessibility tree meanwhile).
    const submit = document.querySelector<HTMLButtonElement>("form button[type=submit]");
    expect(submit).toHaveTextContent("Please select your MetaMask account...");
    expect(submit).toBeDisabled();
    wallet.handlers.eth_accounts = () => [PLAYER];
    await act(async () => permission.resolve(null));
    // The first use of the wallet loads ethers' lazy chunk: allow it time.
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument(), { timeout: 30000 });
    // The first use of the wallet loads ethers' lazy chunk: allow it time.
    expect(await screen.findByRole("button", { name: /Sending transaction\.\.\./ }, { timeout: 5000 })).toBeDisabled();
    await act(async () => sent.resolve(TX_HASH));
    // Waiting, confirmed, then submitting: each message is painted first (a frame each).
    expect(await screen.findByRole("button", { name: /Submitting solution\.\.\./ }, { timeout: 5000 })).toBeDisabled();
    await act(async () => posted.resolve(json({ id: 1, status: "pending" }, 201)));

    expect(await screen.findByText("Solution Submitted")).toBeInTheDocument();
    expect(screen.getByText("Your solution has been submitted successfully!")).toBeInTheDocument();
    // The form resets in the render after the toast (a frame later on a loaded machine).
    expect(
      await screen.findByRole("button", { name: "Submit Your Solution & Pay Your Bid" }, { timeout: 5000 }),
    ).toBeEnabled();
    expect(screen.getByLabelText("Coordinates (latitude, longitude)")).toHaveValue("");
    expect(screen.getByLabelText("USDC bid amount")).toHaveValue(null);
    await waitFor(() => expect(server.calls.filter((c) => c.url === "/api/challenges/active")).toHaveLength(2));
    expect(wallet.methods()).toContain("eth_getTransactionReceipt");
  }, 60_000); // ethers' lazy chunk and a frame per message: slow on a loaded two-core machine

  async function submitWith(handlers: Record<string, () => unknown>, post?: () => Response) {
    const server = serveActiveChallenge();
    if (post) server.on("POST", "/api/responses", post);
    window.ethereum = new FakeWallet(handlers);
    renderActiveTab();
    const user = await fillForm("29.979175, 31.134258", "1");
    await user.click(await screen.findByRole("button", { name: "Confirm" }));
    // The first use of the wallet loads ethers' lazy chunk, and each progress message waits a frame.
    await screen.findByRole("button", { name: "Submit Your Solution & Pay Your Bid" }, { timeout: 15000 });
  }

  it("asks for an account when the picker is cancelled", async () => {
    await submitWith({
      wallet_requestPermissions: () => {
        throw new RpcError(4001, "rejected");
      },
    });
    expect(await screen.findByText("Account Selection Required")).toBeInTheDocument();
    expect(screen.getByText("Please select an account in MetaMask to continue")).toBeInTheDocument();
  });

  it.each([
    [
      {
        eth_sendTransaction: () => {
          throw new RpcError(4001, "denied");
        },
      },
      "Transaction rejected by user",
    ],
    [
      { eth_getTransactionReceipt: () => ({ status: "0x0" }) },
      "Transaction failed - insufficient balance or other error",
    ],
    [
      {
        eth_chainId: () => "0x1",
        wallet_switchEthereumChain: () => {
          throw new RpcError(-32603, "nope");
        },
      },
      "Failed to switch to Sepolia network",
    ],
  ])("toasts Transaction Failed with the wallet's message (%#)", async (handlers, message) => {
    await submitWith(handlers);
    expect(await screen.findByText("Transaction Failed")).toBeInTheDocument();
    expect(screen.getByText(message)).toBeInTheDocument();
    // Red, like every other failure.
    expect(screen.getByText("Transaction Failed").closest(".toast")).toHaveClass("toast-destructive");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });

  it("leaves no entry in My submissions when the transaction is refused in the wallet", async () => {
    await submitWith({
      eth_sendTransaction: () => {
        throw new RpcError(4001, "denied");
      },
    });
    expect(await screen.findByText("Transaction rejected by user")).toBeInTheDocument();
    expect(listSubmissions()).toEqual([]);
    expect(screen.getByText("No submissions from this browser yet.")).toBeInTheDocument();
    expect(screen.queryByText(/Not paid/)).not.toBeInTheDocument();
  });

  it("toasts Transaction Failed when no wallet is installed", async () => {
    serveActiveChallenge();
    renderActiveTab();
    const user = await fillForm("29.979175, 31.134258", "1");
    await user.click(await screen.findByRole("button", { name: "Confirm" }));
    expect(await screen.findByText("Transaction Failed")).toBeInTheDocument();
    expect(screen.getByText("MetaMask is not installed. Please install it to use this feature.")).toBeInTheDocument();
  });

  it("toasts Submission Failed with the server's message and keeps the paid guess", async () => {
    await submitWith({}, () => json({ message: "This transaction has already been used for a submission." }, 409));
    expect(await screen.findByText("Submission Failed")).toBeInTheDocument();
    expect(screen.getByText("409: This transaction has already been used for a submission.")).toBeInTheDocument();
    // Kept (the payment was made), but marked refused: posting it again cannot change a 409.
    expect(listSubmissions()[0]).toMatchObject({ state: "refused", transactionHash: TX_HASH });
  });

  it("keeps a paid guess for a retry when the challenge closed before its claim was posted", async () => {
    // Close means no payment mined after it counts, not no claim posted after it: a claim the server
    // turned away while the challenge was not resolved may still be accepted (docs/protocol.md 3.3).
    await submitWith({}, () => json({ message: "This challenge is not accepting submissions." }, 409));
    expect(await screen.findByText("Submission Delayed")).toBeInTheDocument();
    expect(listSubmissions()[0]).toMatchObject({ state: "post-failed", transactionHash: TX_HASH });
  });

  it("keeps a paid guess for a retry when the server is unavailable, and says it is sent again", async () => {
    await submitWith({}, () => json({ message: "Service unavailable." }, 503));
    expect(await screen.findByText("Submission Delayed")).toBeInTheDocument();
    expect(
      screen.getByText(
        'Your payment is confirmed. Geopoem has not recorded your solution yet; it is sent again automatically. See "My submissions".',
      ),
    ).toBeInTheDocument();
    // Not red: nothing failed that the player must act on. The form is cleared: the guess is paid.
    expect(screen.getByText("Submission Delayed").closest(".toast")).not.toHaveClass("toast-destructive");
    expect(screen.getByLabelText("Coordinates (latitude, longitude)")).toHaveValue("");
    expect(listSubmissions()[0]).toMatchObject({ state: "post-failed", transactionHash: TX_HASH, postAttempts: 1 });
  });

  it("keeps the anchor of the terms the player saw in the stored guess, and in its downloaded record", async () => {
    await submitWith({}, () => json({ message: "Service unavailable." }, 503));
    expect(await screen.findByText("Submission Delayed")).toBeInTheDocument();
    expect(listSubmissions()[0]).toMatchObject({ transactionHash: TX_HASH, anchor: ACTIVE_RECORD_ANCHOR });
    const blobs: Blob[] = [];
    URL.createObjectURL = vi.fn((blob: Blob) => {
      blobs.push(blob);
      return "blob:record";
    });
    URL.revokeObjectURL = vi.fn();
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => undefined);
    await userEvent.setup().click(screen.getByRole("button", { name: "Download record" }));
    const record = JSON.parse(await blobs[0]!.text()) as Record<string, unknown>;
    expect(record).toMatchObject({ transactionHash: TX_HASH, submitterAddress: PLAYER, anchor: ACTIVE_RECORD_ANCHOR });
    click.mockRestore();
  });
});

describe("Active Challenge: help dialog", () => {
  it("opens the account-selection help with an image and closes with OK", async () => {
    serveActiveChallenge();
    renderActiveTab();
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "How do I select my account in MetaMask?" }));
    const dialog = await screen.findByRole("dialog", { name: "Selecting your account in MetaMask" });
    expect(within(dialog).getByRole("img")).toHaveAccessibleName(/account picker/);
    await user.click(within(dialog).getByRole("button", { name: "OK" }));
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });
});

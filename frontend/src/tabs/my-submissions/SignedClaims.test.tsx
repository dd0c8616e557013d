import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { makeQueryClient } from "@/api";
import type { ChallengeResponse, ClaimAuthorization } from "@/api/types";
import { App } from "@/App";
import { getPublicConfig } from "@/config";
import { listSubmissions, saveSubmission, type StoredSubmission } from "@/wallet/pending";
import { WalletProvider } from "@/wallet/WalletContext";
import { FakeWallet, PLAYER, RpcError } from "../../../test/fakeWallet";
import { installFakeServer, json, type FakeServer } from "../../../test/http";
import { renderWithClient } from "../../../test/render";
import { signedRecord, SIGNED_VECTOR } from "../../../test/submissions";
import { MySubmissionsPanel } from "./MySubmissionsPanel";

/** My submissions for a stake paid by signature (docs/protocol.md 2a, 3.3a, 3.4c): followed by its
 * commitment, its relay state in plain words, and never a dead end ("Send it yourself"). The
 * network is scripted (fetch), the wallet is the fake one; the clock is the shared vector's
 * (only Date is faked: timers run), so the record's signature is the vector's own and "Send it
 * yourself" must send the vector's 324 bytes. */

const RECORD = signedRecord();
const COMMITMENT = RECORD.commitment!;
const CLAIM_URL = `/api/responses/authorization/${COMMITMENT}`;
const VALID_BEFORE = SIGNED_VECTOR.message.validBefore;
/** Ten minutes after the signature, twenty before it expires. */
const NOW_MS = (VALID_BEFORE - 1200) * 1000;
const RELAY_TX = `0x${"5e".repeat(32)}`;
const OWN_TX = `0x${"0b".repeat(32)}`;
const SENDER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
/** Sentences as Geopoem's relay writes them (chain/relay_reasons.py). */
const YOURSELF = "send this payment yourself from your wallet (it needs a little ETH for gas).";
const SWITCHED_OFF = `Geopoem's relay is switched off; ${YOURSELF}`;
const LIMIT = `This wallet has had 20 stakes relayed in the last 24 hours, the most Geopoem's relay sends for one wallet; ${YOURSELF}`;
const LOST = `Geopoem's relay could not get this payment mined, so no USDC was transferred; ${YOURSELF}`;
const CLOSED = "The challenge closed before Geopoem's relay could send the payment, so no USDC was transferred.";

function claim(authorization: Partial<ClaimAuthorization> | null, over: Partial<ChallengeResponse> = {}) {
  return {
    id: 21,
    challengeId: 1,
    submissionText: null,
    submissionStake: "1.000000",
    submissionTimestamp: null,
    transactionHash: null,
    submitterAddress: PLAYER,
    commitment: COMMITMENT,
    status: "pending",
    rejectionCode: "",
    rejectionReason: "",
    paymentMethod: "authorization",
    authorization:
      authorization === null
        ? null
        : {
            validBefore: VALID_BEFORE,
            relayStatus: "queued",
            relayReason: "",
            relayCode: "",
            relayTransactionHash: null,
            ...authorization,
          },
    outcome: null,
    ...over,
  } satisfies ChallengeResponse;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(NOW_MS);
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

function serve(answer: () => ReturnType<typeof claim>): FakeServer {
  const server = installFakeServer();
  server.on("GET", CLAIM_URL, () => json(answer()));
  return server;
}

/** The panel with this browser's record; its item once the signed stake's part (a lazy chunk) shows. */
async function renderPanel(record: StoredSubmission = RECORD, wallet: FakeWallet | null = null) {
  saveSubmission(record);
  if (wallet) window.ethereum = wallet;
  renderWithClient(
    <WalletProvider reload={() => undefined}>
      <MySubmissionsPanel />
    </WalletProvider>,
  );
  const payment = await screen.findByText("Payment", { selector: "dt" }, { timeout: 15000 });
  return payment.closest("li") as HTMLElement;
}

/** The value a field shows (the <dd> after its <dt>). */
function field(item: HTMLElement, name: string): HTMLElement {
  const term = within(item).getByText(name, { selector: "dt" });
  return term.nextElementSibling as HTMLElement;
}

describe("My submissions: a stake paid by signature", () => {
  it("follows it by its commitment and says Geopoem is sending it, with how long the signature is valid", async () => {
    const server = serve(() => claim({ relayStatus: "queued" }));
    const item = await renderPanel({ ...RECORD, postedAt: NOW_MS - 5000 });
    expect(await within(item).findByText("Pending")).toBeInTheDocument();
    expect(server.calls.map((c) => c.url)).toContain(CLAIM_URL);
    expect(field(item, "Payment")).toHaveTextContent("Signed payment: Geopoem puts it on the chain and pays the gas");
    expect(field(item, "In this browser")).toHaveTextContent("Recorded by Geopoem");
    expect(field(item, "Sending")).toHaveTextContent("Queued: Geopoem is sending it to the chain");
    expect(field(item, "Signature")).toHaveTextContent(`Valid until ${new Date(VALID_BEFORE * 1000).toLocaleString()}`);
    // Not a minute yet: nothing to offer.
    expect(within(item).queryByRole("button", { name: "Send it yourself" })).not.toBeInTheDocument();
    expect(within(item).queryByRole("link", { name: /View transaction/ })).not.toBeInTheDocument();
  });

  it("before a transaction is known there is no block to watch; once the claim names one, the wallet's head is watched as for a transfer", async () => {
    let answer = claim({ relayStatus: "queued" });
    serve(() => answer);
    const wallet = new FakeWallet({
      eth_getTransactionReceipt: () => ({ status: "0x1", blockNumber: "0x20" }),
      eth_blockNumber: () => "0x20",
    });
    const item = await renderPanel({ ...RECORD, postedAt: NOW_MS - 5000 }, wallet);
    expect(await within(item).findByText("Pending")).toBeInTheDocument();
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(wallet.methods()).not.toContain("eth_getTransactionReceipt");
    expect(wallet.methods()).not.toContain("eth_blockNumber");
    // The relay's transaction is mined: the claim names it, still pending until deep enough.
    answer = claim({ relayStatus: "sent", relayTransactionHash: RELAY_TX }, { transactionHash: RELAY_TX });
    await waitFor(
      () =>
        expect(
          wallet.calls.filter((c) => c.method === "eth_getTransactionReceipt").map((c) => c.params),
        ).toContainEqual([RELAY_TX]),
      { timeout: 8000 },
    );
    await waitFor(() => expect(wallet.methods()).toContain("eth_blockNumber"), { timeout: 8000 });
  });

  it("links Geopoem's transaction once the relay sent it", async () => {
    serve(() => claim({ relayStatus: "sent", relayTransactionHash: RELAY_TX }));
    const item = await renderPanel({ ...RECORD, postedAt: NOW_MS - 5000 });
    expect(await within(item).findByText(/Sent by Geopoem, waiting for the chain/)).toBeInTheDocument();
    expect(within(item).getByRole("link", { name: /View Geopoem's transaction/ })).toHaveAttribute(
      "href",
      `https://sepolia.etherscan.io/tx/${RELAY_TX}`,
    );
  });

  it("offers to send it yourself when nothing is on chain a minute after the POST, the clock alone deciding", async () => {
    serve(() => claim({ relayStatus: "sent", relayTransactionHash: RELAY_TX }));
    // 59.4 s after the POST: the offer appears by itself 0.6 s later, with no new answer.
    const item = await renderPanel({ ...RECORD, postedAt: NOW_MS - 59_400 });
    expect(await within(item).findByText(/Sent by Geopoem/)).toBeInTheDocument();
    expect(within(item).queryByRole("button", { name: "Send it yourself" })).not.toBeInTheDocument();
    vi.setSystemTime(NOW_MS + 700);
    const button = await within(item).findByRole("button", { name: "Send it yourself" }, { timeout: 3000 });
    const offer = button.closest("div") as HTMLElement;
    expect(offer).toHaveTextContent(
      "It is not on the chain a minute after Geopoem recorded it. You can put your signed payment on the chain yourself: your wallet sends it to the USDC contract. This needs a little ETH for gas. Geopoem then finds it on the chain by itself. If Geopoem's transaction gets there first, yours fails and costs only its gas.",
    );
  });

  it("the relay refused: says why, and the player sends the 324 bytes from their wallet; the page shows it sent, then mined", async () => {
    serve(() => claim({ relayStatus: "refused", relayReason: LIMIT, relayCode: "address_limit" }));
    let mined = false;
    const wallet = new FakeWallet({
      eth_accounts: () => [SENDER],
      eth_requestAccounts: () => [SENDER],
      eth_sendTransaction: () => OWN_TX,
      eth_getTransactionReceipt: () => (mined ? { status: "0x1", blockNumber: "0x20" } : null),
    });
    const item = await renderPanel(RECORD, wallet);
    expect(await within(item).findByText(LIMIT)).toBeInTheDocument();
    expect(field(item, "Payment")).toHaveTextContent(/^Signed payment$/);
    expect(field(item, "Sending")).toHaveTextContent(LIMIT);
    const button = within(item).getByRole("button", { name: "Send it yourself" });
    // ETH is mentioned before the wallet is asked for anything.
    expect(button.closest("div")).toHaveTextContent("This needs a little ETH for gas.");
    expect(button.closest("div")).not.toHaveTextContent("Geopoem's transaction gets there first");
    expect(wallet.methods()).not.toContain("eth_sendTransaction");
    await userEvent.setup().click(button);

    // ("Waiting for your wallet..." meanwhile: the encoder, ethers, is a lazy chunk, slow to load here.)
    expect(await within(item).findByText(/^Sent, waiting for the chain/, {}, { timeout: 15000 })).toBeInTheDocument();
    const sent = wallet.calls.find((c) => c.method === "eth_sendTransaction");
    expect((sent?.params as unknown[])[0]).toEqual({
      from: SENDER,
      to: getPublicConfig().usdcAddress,
      data: SIGNED_VECTOR.relayedCalldata,
      value: "0x0",
    });
    expect(within(item).getByRole("link", { name: /View your transaction/ })).toHaveAttribute(
      "href",
      `https://sepolia.etherscan.io/tx/${OWN_TX}`,
    );
    expect(within(item).queryByRole("button", { name: "Send it yourself" })).not.toBeInTheDocument();
    // The page says who put it on the chain: not Geopoem any more.
    expect(field(item, "Payment")).toHaveTextContent(/^Signed payment, sent to the chain from your wallet$/);
    expect(field(item, "From your wallet")).toHaveTextContent(/^Sent, waiting for the chain/);
    // Nothing is posted: the site finds the transaction on chain by itself.
    mined = true;
    expect(
      await within(item).findByText(/^On the chain: Geopoem finds it there by itself/, {}, { timeout: 5000 }),
    ).toBeInTheDocument();
    expect(listSubmissions()[0]?.selfSent).toEqual({ state: "mined", hash: OWN_TX });
    // Used: its lifetime is no longer shown.
    expect(within(item).queryByText("Signature")).not.toBeInTheDocument();
  });

  it("the wallet cannot send it (no ETH): says so in the wallet's words and offers it again", async () => {
    serve(() => claim({ relayStatus: "failed", relayReason: LOST, relayCode: "lost" }));
    const wallet = new FakeWallet({
      eth_sendTransaction: () => {
        throw new RpcError(-32000, "insufficient funds for gas * price + value");
      },
    });
    const item = await renderPanel(RECORD, wallet);
    expect(await within(item).findByText(LOST)).toBeInTheDocument();
    await userEvent.setup().click(within(item).getByRole("button", { name: "Send it yourself" }));
    expect(
      await within(item).findByText(
        "Not sent: Transaction failed: insufficient funds for gas * price + value",
        {},
        { timeout: 15000 },
      ),
    ).toBeInTheDocument();
    expect(within(item).getByRole("button", { name: "Send it yourself" })).toBeEnabled();
  });

  it("a failure sending it yourself cannot get past (the challenge closed): the relay's sentence, no offer", async () => {
    serve(() => claim({ relayStatus: "failed", relayReason: CLOSED, relayCode: "closed" }));
    const item = await renderPanel();
    expect(await within(item).findByText(CLOSED)).toBeInTheDocument();
    expect(within(item).queryByRole("button", { name: "Send it yourself" })).not.toBeInTheDocument();
  });

  it("an expired signature: says it expired and offers nothing", async () => {
    serve(() => claim({ relayStatus: "refused", relayReason: SWITCHED_OFF, relayCode: "switched_off" }));
    vi.setSystemTime((VALID_BEFORE + 5) * 1000);
    const item = await renderPanel();
    expect(await within(item).findByText("Pending")).toBeInTheDocument();
    expect(field(item, "Signature")).toHaveTextContent(
      `Expired at ${new Date(VALID_BEFORE * 1000).toLocaleString()}: unless it was used before then, no USDC moved. You can submit your guess again.`,
    );
    expect(within(item).queryByRole("button", { name: "Send it yourself" })).not.toBeInTheDocument();
  });

  it("rejected as expired: the reason sentence, no offer", async () => {
    serve(() =>
      claim(
        { relayStatus: "refused", relayReason: SWITCHED_OFF, relayCode: "switched_off" },
        {
          status: "rejected",
          rejectionCode: "authorization_expired",
          rejectionReason: "The payment authorization expired before it was used on chain, so no USDC was transferred.",
        },
      ),
    );
    const item = await renderPanel();
    expect(await within(item).findByText("Rejected")).toBeInTheDocument();
    expect(field(item, "Server status")).toHaveTextContent(
      "Rejected: The payment authorization expired before it was used on chain, so no USDC was transferred.",
    );
    expect(within(item).queryByText("Signature")).not.toBeInTheDocument();
    expect(within(item).queryByRole("button", { name: "Send it yourself" })).not.toBeInTheDocument();
  });

  it("confirmed: the transaction that used it, and nothing about the relay any more", async () => {
    serve(() =>
      claim(
        { relayStatus: "sent", relayTransactionHash: RELAY_TX },
        { status: "confirmed", transactionHash: RELAY_TX, submissionTimestamp: VALID_BEFORE - 1100 },
      ),
    );
    const item = await renderPanel();
    expect(await within(item).findByText("Confirmed")).toBeInTheDocument();
    expect(within(item).getByRole("link", { name: /^View transaction/ })).toHaveAttribute(
      "href",
      `https://sepolia.etherscan.io/tx/${RELAY_TX}`,
    );
    expect(within(item).queryByText("Sending")).not.toBeInTheDocument();
    expect(within(item).queryByText("Signature")).not.toBeInTheDocument();
  });

  it("refused at the POST: nothing was paid, says why, may be removed, and Geopoem is not asked", async () => {
    const server = installFakeServer();
    const message = "This wallet does not hold enough USDC for the stake.";
    const item = await renderPanel({ ...RECORD, state: "refused", lastError: `422: ${message}` });
    expect(field(item, "In this browser")).toHaveTextContent("Refused by Geopoem: nothing was paid");
    expect(field(item, "Why")).toHaveTextContent(message);
    await userEvent.setup().click(within(item).getByRole("button", { name: "Remove" }));
    await waitFor(() => expect(listSubmissions()).toEqual([]));
    expect(server.calls.filter((c) => c.url.startsWith("/api/responses/"))).toEqual([]);
  });

  it("downloads a record with how it was paid and the signed authorization, and the transaction once known", async () => {
    serve(() =>
      claim(
        { relayStatus: "sent", relayTransactionHash: RELAY_TX },
        { status: "confirmed", transactionHash: RELAY_TX },
      ),
    );
    const blobs: Blob[] = [];
    URL.createObjectURL = vi.fn((blob: Blob) => {
      blobs.push(blob);
      return "blob:record";
    });
    URL.revokeObjectURL = vi.fn();
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => undefined);
    const item = await renderPanel();
    expect(await within(item).findByText("Confirmed")).toBeInTheDocument();
    await userEvent.setup().click(within(item).getByRole("button", { name: "Download record" }));
    const record = JSON.parse(await blobs[0]!.text()) as Record<string, unknown>;
    expect(record).toMatchObject({
      product: "Geopoem",
      challengeId: 1,
      coordinates: RECORD.text,
      salt: RECORD.salt,
      stakeUsdc: "1",
      chainId: 11155111,
      submitterAddress: PLAYER,
      paymentMethod: "authorization",
      transactionHash: RELAY_TX,
      authorization: { validAfter: 0, validBefore: VALID_BEFORE, signature: SIGNED_VECTOR.signature },
    });
    click.mockRestore();
  });

  it("another browser's signed stake the relay refused: says where the signature is, never a dead end", async () => {
    const server = installFakeServer();
    const wallet = new FakeWallet();
    server.on("GET", `/api/responses?address=${PLAYER}`, () =>
      json([claim({ relayStatus: "refused", relayReason: SWITCHED_OFF, relayCode: "switched_off" })]),
    );
    window.ethereum = wallet;
    renderWithClient(
      <WalletProvider reload={() => undefined}>
        <MySubmissionsPanel />
      </WalletProvider>,
    );
    // The wallet control connects on load with the existing connection (eth_accounts).
    const item = await screen.findByRole("listitem", {}, { timeout: 5000 });
    expect(within(item).getByText("No record: listed by Geopoem for your wallet")).toBeInTheDocument();
    expect(field(item, "Sending")).toHaveTextContent(SWITCHED_OFF);
    expect(item).toHaveTextContent(
      "Your signature is kept only in the browser you signed it in: open Geopoem there to send it yourself. Unused, it expires and no USDC moves.",
    );
    expect(within(item).queryByRole("link")).not.toBeInTheDocument();
  });
});

describe("a signed stake whose POST got no answer", () => {
  it("is posted again with its authorization on the next load, and said recorded as signed, not paid", async () => {
    const server = serve(() => claim({ relayStatus: "queued" }));
    server.on("GET", "/api/challenges/active", () => json(null));
    server.on("POST", "/api/responses", () => json(claim({ relayStatus: "queued" }), 201));
    saveSubmission({ ...RECORD, state: "post-failed", postedAt: undefined, lastError: "503: Unavailable." });
    render(<App queryClient={makeQueryClient()} path="/" reload={() => undefined} />);
    expect(await screen.findByText("Submission Recovered", {}, { timeout: 10000 })).toBeInTheDocument();
    expect(screen.getByText("A signed guess that had not reached Geopoem has now been recorded.")).toBeInTheDocument();
    const post = server.calls.find((c) => c.init?.method === "POST");
    expect(JSON.parse(post?.init?.body as string)).toEqual({
      challengeId: 1,
      submissionText: RECORD.text,
      submissionStake: "1",
      submitterAddress: PLAYER,
      submissionSalt: RECORD.salt,
      authorization: { validAfter: 0, validBefore: VALID_BEFORE, signature: SIGNED_VECTOR.signature },
    });
    expect(listSubmissions()[0]).toMatchObject({ state: "submitted", postedAt: NOW_MS });
  });
});

import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { PaymentsAuthorization } from "@/api/types";
import { listSubmissions } from "@/wallet/pending";
import { FakeWallet, PLAYER, RpcError, TX_HASH } from "../../../test/fakeWallet";
import { json, type FakeServer } from "../../../test/http";
import { NO_AUTHORIZATIONS, PAYMENTS_OFFERED, RELAY_OFF, servePayments } from "../../../test/payments";
import { SIGNED_VECTOR } from "../../../test/submissions";
import { renderActiveTab, serveActiveChallenge } from "../../../test/activeChallenge";

/** The confirm dialog's choice and the stake paid by signature, as the player meets them: by role
 * and by the texts, with a scripted network (fetch) and the fake wallet. Only the network's answers
 * and the wallet's are scripted; the flow, the keeper's record and the toasts are the page's own. */

afterEach(() => vi.unstubAllGlobals());

const SIGNATURE = SIGNED_VECTOR.signature;

async function openDialog(
  payments: PaymentsAuthorization | null,
  handlers: Record<string, (params: unknown) => unknown> = {},
  post?: (init: RequestInit | undefined) => Response | Promise<Response>,
) {
  const server = serveActiveChallenge();
  if (payments) servePayments(server, payments);
  if (post) server.on("POST", "/api/responses", post);
  const wallet = new FakeWallet({ eth_signTypedData_v4: () => SIGNATURE, ...handlers });
  window.ethereum = wallet;
  const { queryClient } = renderActiveTab();
  const user = userEvent.setup();
  await user.type(await screen.findByLabelText("Coordinates (latitude, longitude)"), "29.979175, 31.134258");
  await user.type(screen.getByLabelText("USDC bid amount"), "3");
  // The form learns how the player may pay before the dialog opens.
  if (payments) await waitFor(() => expect(server.calls.map((c) => c.url)).toContain("/api/payments/authorization"));
  await waitFor(() => expect(queryClient.getQueryState(["/api/payments/authorization"])?.status).not.toBe("pending"));
  await user.click(screen.getByRole("button", { name: "Submit Your Solution & Pay Your Bid" }));
  const dialog = await screen.findByRole("dialog", { name: "Confirm Solution Submission" });
  return { server, wallet, user, dialog };
}

const bodies = (server: FakeServer) =>
  server.calls
    .filter((c) => c.init?.method === "POST")
    .map((c) => JSON.parse(c.init?.body as string) as Record<string, unknown>);

const created = () => json({ id: 1, status: "pending", transactionHash: null, paymentMethod: "authorization" }, 201);

/** The form's button when the flow is back at rest (the first use of the wallet loads a lazy chunk). */
const atRest = () => screen.findByRole("button", { name: "Submit Your Solution & Pay Your Bid" }, { timeout: 15000 });

describe("Confirm dialog: how to pay", () => {
  it("offers the signature first (no ETH) and the transaction as the other way, and says what comes next", async () => {
    const { dialog } = await openDialog(PAYMENTS_OFFERED);
    const choice = within(dialog).getByRole("group", { name: "How to pay" });
    const sign = within(choice).getByRole("radio", { name: "Sign the payment (no ETH needed)" });
    const send = within(choice).getByRole("radio", { name: "Send the transaction yourself (needs ETH for gas)" });
    expect(sign).toBeChecked();
    expect(send).not.toBeChecked();
    expect(sign).toHaveAccessibleDescription("Geopoem puts your signed payment on the chain and pays the gas.");
    expect(send).toHaveAccessibleDescription("Your wallet sends the USDC transfer; you pay the gas in ETH.");
    expect(dialog).toHaveTextContent(
      "Next step: your wallet asks you to select an account, switch to the Sepolia network and sign a payment of 3.00 USDC to the Geopoem treasury. Geopoem decides when it reaches the chain, usually within a block; your signature is valid for 30 minutes.",
    );
    await userEvent.setup().click(send);
    expect(dialog).toHaveTextContent(
      "Next step: your wallet asks you to select an account, switch to the Sepolia network and approve a transfer of 3.00 USDC.",
    );
    expect(dialog).not.toHaveTextContent("sign a payment");
    // The form's note says the same as the dialog.
    expect(screen.getByText(/Payment information:/).closest("div")).toHaveTextContent(
      "Sign the payment and you need no ETH: Geopoem pays the gas. Sending the transaction yourself needs a little test ETH for gas.",
    );
  });

  it("chooses the signature when the offer's answer arrives after the dialog opened", async () => {
    const server = serveActiveChallenge();
    let answer: (response: Response) => void = () => undefined;
    server.on("GET", "/api/payments/authorization", () => new Promise<Response>((resolve) => (answer = resolve)));
    window.ethereum = new FakeWallet({ eth_signTypedData_v4: () => SIGNATURE });
    renderActiveTab();
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText("Coordinates (latitude, longitude)"), "29.979175, 31.134258");
    await user.type(screen.getByLabelText("USDC bid amount"), "3");
    await waitFor(() => expect(server.calls.map((c) => c.url)).toContain("/api/payments/authorization"));
    await user.click(screen.getByRole("button", { name: "Submit Your Solution & Pay Your Bid" }));
    const dialog = await screen.findByRole("dialog", { name: "Confirm Solution Submission" });
    expect(within(dialog).queryByRole("radio")).not.toBeInTheDocument();
    answer(json(PAYMENTS_OFFERED));
    const sign = await within(dialog).findByRole("radio", { name: "Sign the payment (no ETH needed)" });
    expect(sign).toBeChecked();
    expect(dialog).toHaveTextContent("sign a payment of 3.00 USDC");
  });

  it("the offline record says how the player chose to pay", async () => {
    const blobs: Blob[] = [];
    URL.createObjectURL = vi.fn((blob: Blob) => {
      blobs.push(blob);
      return "blob:record";
    });
    URL.revokeObjectURL = vi.fn();
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => undefined);
    const { dialog, user } = await openDialog(PAYMENTS_OFFERED);
    await user.click(within(dialog).getByRole("button", { name: "Download offline record" }));
    await user.click(within(dialog).getByRole("radio", { name: /Send the transaction yourself/ }));
    await user.click(within(dialog).getByRole("button", { name: "Download offline record" }));
    const records = (await Promise.all(blobs.map((b) => b.text()))).map(
      (t) => JSON.parse(t) as Record<string, unknown>,
    );
    expect(records.map((r) => r.paymentMethod)).toEqual(["authorization", "transfer"]);
    // Nothing is signed yet: the authorization is in My submissions' record once it is.
    expect(records[0]).not.toHaveProperty("authorization");
    click.mockRestore();
  });

  it("offers the transfer alone where the relay cannot send a signature now, and says why ETH is needed", async () => {
    const { dialog } = await openDialog(RELAY_OFF);
    expect(within(dialog).queryByRole("radio")).not.toBeInTheDocument();
    expect(dialog).toHaveTextContent(
      "Paying by signature (no ETH needed) is not available right now. Your wallet sends the transaction, and you pay the gas in ETH.",
    );
    expect(dialog).toHaveTextContent("approve a transfer of 3.00 USDC");
  });

  it.each([
    ["a token without authorizations", NO_AUTHORIZATIONS],
    ["no answer", null],
  ])("offers the transfer as before with %s", async (_case, payments) => {
    const { dialog } = await openDialog(payments);
    expect(within(dialog).queryByRole("radio")).not.toBeInTheDocument();
    expect(dialog).not.toHaveTextContent(/signature/i);
    expect(dialog).toHaveTextContent("approve a transfer of 3.00 USDC");
    expect(screen.getByText(/Payment information:/).closest("div")).toHaveTextContent(
      "You also need a little test ETH for gas.",
    );
  });
});

describe("Paying by signature", () => {
  it("signs, posts the claim with the authorization, toasts the spec's success and clears the form; no transaction", async () => {
    let duringSignature = "";
    const { server, wallet, dialog, user } = await openDialog(
      PAYMENTS_OFFERED,
      {
        eth_signTypedData_v4: () => {
          // While the wallet asks, the dialog is closed and the form says what to do.
          duringSignature = `${screen.queryByRole("dialog") ? "dialog open" : "dialog closed"}: ${
            document.querySelector("form button[type=submit]")?.textContent
          }`;
          return SIGNATURE;
        },
      },
      created,
    );
    await user.click(within(dialog).getByRole("button", { name: "Confirm" }));
    expect(await screen.findByText("Solution Submitted", {}, { timeout: 15000 })).toBeInTheDocument();
    expect(screen.getByText("Your solution has been submitted successfully!")).toBeInTheDocument();
    expect(duringSignature).toBe("dialog closed: Please sign the payment in your wallet...");
    expect(wallet.methods()).not.toContain("eth_sendTransaction");
    const [body] = bodies(server);
    expect(body).toMatchObject({
      challengeId: 7,
      submissionText: "29.979175, 31.134258",
      submissionStake: "3",
      submitterAddress: PLAYER,
      authorization: { validAfter: 0, validBefore: expect.any(Number), signature: SIGNATURE },
    });
    expect(body).not.toHaveProperty("transactionHash");
    expect(await atRest()).toBeEnabled();
    expect(screen.getByLabelText("Coordinates (latitude, longitude)")).toHaveValue("");
    expect(listSubmissions()[0]).toMatchObject({ state: "submitted", paymentMethod: "authorization" });
    // My submissions says how it was paid, not "Payment made".
    const panel = screen.getByRole("region", { name: "My submissions" });
    expect(
      await within(panel).findByText(
        "Signed payment: Geopoem puts it on the chain and pays the gas",
        {},
        { timeout: 15000 },
      ),
    ).toBeInTheDocument();
    expect(within(panel).queryByText(/Payment made|Not paid/)).not.toBeInTheDocument();
  });

  it("pays by transaction when the player chooses it", async () => {
    const { server, wallet, dialog, user } = await openDialog(PAYMENTS_OFFERED, {}, created);
    await user.click(within(dialog).getByRole("radio", { name: /Send the transaction yourself/ }));
    await user.click(within(dialog).getByRole("button", { name: "Confirm" }));
    expect(await screen.findByText("Solution Submitted", {}, { timeout: 15000 })).toBeInTheDocument();
    expect(wallet.methods()).toContain("eth_sendTransaction");
    expect(wallet.methods()).not.toContain("eth_signTypedData_v4");
    expect(bodies(server)[0]).toMatchObject({ transactionHash: TX_HASH });
  });

  it("refused in the wallet: a red toast in the wallet's flow words, nothing recorded", async () => {
    const { server, dialog, user } = await openDialog(PAYMENTS_OFFERED, {
      eth_signTypedData_v4: () => {
        throw new RpcError(4001, "User denied message signature.");
      },
    });
    await user.click(within(dialog).getByRole("button", { name: "Confirm" }));
    expect(await screen.findByText("Signature Failed", {}, { timeout: 15000 })).toBeInTheDocument();
    expect(screen.getByText("Signature rejected by user")).toBeInTheDocument();
    expect(screen.getByText("Signature Failed").closest(".toast")).toHaveClass("toast-destructive");
    expect(listSubmissions()).toEqual([]);
    expect(screen.getByText("No submissions from this browser yet.")).toBeInTheDocument();
    expect(bodies(server)).toEqual([]);
    // The guess stays in the form: nothing was paid, the player may try again.
    expect(screen.getByLabelText("Coordinates (latitude, longitude)")).toHaveValue("29.979175, 31.134258");
  });

  it("a wallet that cannot sign typed data: says so before it asks for a transaction, then pays by transaction", async () => {
    let toastDuringSend = "";
    const { server, dialog, user } = await openDialog(
      PAYMENTS_OFFERED,
      {
        eth_signTypedData_v4: () => {
          throw new RpcError(4200, "The requested method is not supported by this Ethereum provider.");
        },
        eth_sendTransaction: () => {
          toastDuringSend = screen.getByRole("region", { name: /notifications/i }).textContent ?? "";
          return TX_HASH;
        },
      },
      created,
    );
    await user.click(within(dialog).getByRole("button", { name: "Confirm" }));
    expect(await screen.findByText("Solution Submitted", {}, { timeout: 15000 })).toBeInTheDocument();
    expect(toastDuringSend).toContain("Paying by Transaction");
    expect(toastDuringSend).toContain(
      "Your wallet cannot sign this payment, so it asks you to send a transaction instead. This needs a little ETH for gas.",
    );
    expect(bodies(server)[0]).toMatchObject({ transactionHash: TX_HASH });
    expect(listSubmissions()[0]).not.toHaveProperty("paymentMethod");
  });

  it("the server cannot record it yet (503): a neutral toast that it is signed and sent again; the form is cleared", async () => {
    const { dialog, user } = await openDialog(PAYMENTS_OFFERED, {}, () =>
      json({ message: "Payment authorizations cannot be checked right now.", errors: {} }, 503),
    );
    await user.click(within(dialog).getByRole("button", { name: "Confirm" }));
    expect(await screen.findByText("Submission Delayed", {}, { timeout: 15000 })).toBeInTheDocument();
    expect(
      screen.getByText(
        'Your payment is signed. Geopoem has not recorded your solution yet; it is sent again automatically. See "My submissions".',
      ),
    ).toBeInTheDocument();
    expect(screen.getByText("Submission Delayed").closest(".toast")).not.toHaveClass("toast-destructive");
    expect(screen.getByLabelText("Coordinates (latitude, longitude)")).toHaveValue("");
    const panel = screen.getByRole("region", { name: "My submissions" });
    expect(
      await within(panel).findByText(
        "Signed, not yet recorded by Geopoem: it is sent again automatically while this page is open and on your next visit",
        {},
        { timeout: 15000 },
      ),
    ).toBeInTheDocument();
  });

  it("refused by the server (422): the spec's red Submission Failed with its message", async () => {
    const message = "This wallet does not hold enough USDC for the stake.";
    const { dialog, user } = await openDialog(PAYMENTS_OFFERED, {}, () =>
      json({ message, errors: {}, code: "insufficient_balance" }, 422),
    );
    await user.click(within(dialog).getByRole("button", { name: "Confirm" }));
    expect(await screen.findByText("Submission Failed", {}, { timeout: 15000 })).toBeInTheDocument();
    expect(screen.getByText(`422: ${message}`)).toBeInTheDocument();
    expect(screen.getByText("Submission Failed").closest(".toast")).toHaveClass("toast-destructive");
    expect(listSubmissions()[0]).toMatchObject({ state: "refused" });
    expect(
      await within(screen.getByRole("region", { name: "My submissions" })).findByText(
        "Refused by Geopoem: nothing was paid",
        {},
        { timeout: 15000 },
      ),
    ).toBeInTheDocument();
  });

  it("a token that turns the signature down (409): the dialog again, with the transfer and why", async () => {
    let payments: PaymentsAuthorization = PAYMENTS_OFFERED;
    const { server, wallet, dialog, user } = await openDialog(PAYMENTS_OFFERED, {}, (init) => {
      const body = JSON.parse(init?.body as string) as Record<string, unknown>;
      if (body.authorization) {
        payments = NO_AUTHORIZATIONS;
        return json({ message: "This token does not accept payment authorizations.", errors: {} }, 409);
      }
      return created();
    });
    server.on("GET", "/api/payments/authorization", () => json(payments));
    await user.click(within(dialog).getByRole("button", { name: "Confirm" }));
    // The same dialog closed while the wallet signed; it opens again with the reason.
    const notice = await screen.findByText(
      "This token does not accept payment authorizations. Pay with a transaction instead: it needs a little ETH for gas.",
      {},
      { timeout: 15000 },
    );
    const again = notice.closest("[role=dialog]") as HTMLElement;
    expect(again).toHaveAccessibleName("Confirm Solution Submission");
    expect(again).not.toBe(dialog);
    await waitFor(() => expect(within(again).queryByRole("radio")).not.toBeInTheDocument());
    expect(again).toHaveTextContent("approve a transfer of 3.00 USDC");
    expect(listSubmissions()).toEqual([]);
    await user.click(within(again).getByRole("button", { name: "Confirm" }));
    expect(await screen.findByText("Solution Submitted", {}, { timeout: 15000 })).toBeInTheDocument();
    expect(wallet.methods()).toContain("eth_sendTransaction");
    expect(bodies(server).map((b) => ("authorization" in b ? "authorization" : "transfer"))).toEqual([
      "authorization",
      "transfer",
    ]);
  });
});

import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Stake } from "@/api/types";
import { listStakes, saveStake, type StoredStake } from "@/wallet/pending";
import { WalletProvider } from "@/wallet/WalletContext";
import { FakeWallet, PLAYER } from "../../../test/fakeWallet";
import { TEST_CONFIG } from "../../../test/fixtures";
import { installFakeServer, json } from "../../../test/http";
import { renderWithClient } from "../../../test/render";
import { installPublicConfig } from "../../../test/setup";
import { apiStake, pendingStake, stakeRecord } from "../../../test/submissions";
import { captureDownloads } from "../../../test/downloads";
import { MySubmissionsPanel } from "./MySubmissionsPanel";
import { SELF_SEND } from "./stake-status";

/** What each stake of My submissions says, by what this browser holds and what Geopoem answers for
 * its commitment: one status line that never contradicts itself, and the way out of each dead end
 * (Send it yourself, Remove). Geopoem's answers are scripted (fetch); the outcome from the pot is
 * in PotOutcome.test.tsx. */

afterEach(() => vi.unstubAllGlobals());

function show(record: StoredStake | null, answer: Stake | null, { wallet }: { wallet?: FakeWallet } = {}) {
  const server = installFakeServer();
  if (record) {
    server.on("GET", `/api/responses/${record.commitment}`, () =>
      answer ? json(answer) : json({ message: "No stake has this commitment.", errors: {} }, 404),
    );
    saveStake(record);
  }
  if (wallet) window.ethereum = wallet;
  renderWithClient(
    <WalletProvider reload={() => undefined}>
      <MySubmissionsPanel />
    </WalletProvider>,
  );
  return server;
}

/** The row once its lazy chunk has loaded (the fallback is a plain line). */
async function row(): Promise<HTMLElement> {
  await screen.findByText("Status");
  return screen.getByRole("listitem");
}

const status = (item: HTMLElement) => within(item).getByText("Status").nextElementSibling as HTMLElement;
const field = (item: HTMLElement, name: string) => within(item).queryByText(name)?.nextElementSibling ?? null;

describe("My submissions", () => {
  it("says when this browser has none", () => {
    show(null, null);
    expect(screen.getByText("No submissions from this browser yet.")).toBeInTheDocument();
  });

  it("shows a stake relayed by Geopoem, then offers to send it yourself a minute after, with no contradiction", async () => {
    show(stakeRecord({ postedAt: Date.now() - 61_000 }), apiStake());
    const item = await row();
    expect(within(item).getByText("29.979175, 31.134258")).toBeInTheDocument();
    expect(within(item).getByText("2.50 USDC")).toBeInTheDocument();
    expect(
      await within(item).findByText("Relaying: Geopoem's relayer is putting your signed stake into the pot"),
    ).toBeInTheDocument();
    expect(field(item, "Guess")).toHaveTextContent(
      "Kept in this browser: sent to Geopoem once the stake is confirmed in the pot",
    );
    expect(within(item).getByText(new RegExp(SELF_SEND.slow))).toBeInTheDocument();
    expect(within(item).getByRole("button", { name: SELF_SEND.button })).toBeInTheDocument();
    expect(within(item).queryByRole("button", { name: "Remove" })).not.toBeInTheDocument();
    expect(item).not.toHaveTextContent(/nothing was paid|Confirmed in the pot|Not in the pot/);
  });

  it("does not offer to send it yourself in the first minute", async () => {
    show(stakeRecord(), apiStake());
    const item = await row();
    await within(item).findByText(/^Relaying/);
    expect(within(item).queryByRole("button", { name: SELF_SEND.button })).not.toBeInTheDocument();
  });

  it("offers Send it yourself at once when Geopoem's relayer refuses the stake", async () => {
    show(
      stakeRecord(),
      apiStake({
        status: "refused",
        authorization: {
          ...apiStake().authorization!,
          relayStatus: "refused",
          relayCode: "address_limit",
          relayReason: "This wallet had its stakes relayed 20 times today.",
        },
      }),
    );
    const item = await row();
    expect(
      await within(item).findByText(
        "Geopoem's relayer will not send it: This wallet had its stakes relayed 20 times today.",
      ),
    ).toBeInTheDocument();
    expect(within(item).getByRole("button", { name: SELF_SEND.button })).toBeInTheDocument();
    // No promise that the relayer sends it, beside the status that says it will not.
    expect(field(item, "Payment")).toHaveTextContent("Signed; Geopoem's relayer did not send it");
    expect(item).not.toHaveTextContent("relayer puts it into the pot");
  });

  it.each([
    ["lost", "The relayer's transaction was lost.", true],
    ["token_paused", "The token is paused.", true],
    ["payer_blacklisted", "The token blocks this wallet.", true],
    ["reverted", "The pot refused the stake.", false],
    ["expired", "The authorization expired before it could be sent.", false],
  ])(
    "a stake whose relay failed (%s) can be removed, and sent yourself when that can pass",
    async (code, reason, offered) => {
      show(
        stakeRecord(),
        apiStake({
          status: "failed",
          authorization: { ...apiStake().authorization!, relayStatus: "failed", relayCode: code, relayReason: reason },
        }),
      );
      const item = await row();
      expect(await within(item).findByText(`Not in the pot: ${reason}. No USDC moved`)).toBeInTheDocument();
      expect(field(item, "Payment")).toHaveTextContent("Signed; Geopoem's relayer did not send it");
      expect(Boolean(within(item).queryByRole("button", { name: SELF_SEND.button }))).toBe(offered);
      await userEvent.setup().click(within(item).getByRole("button", { name: "Remove" }));
      expect(listStakes()).toEqual([]);
      expect(screen.getByText("No submissions from this browser yet.")).toBeInTheDocument();
    },
  );

  it.each([
    [{ state: "prepared" as const }, "Not signed or sent: nothing was paid"],
    [
      { state: "refused" as const, lastError: "The payment authorization has expired; sign a new one." },
      "Refused by Geopoem: The payment authorization has expired; sign a new one. Nothing was paid",
    ],
    [{ state: "failed" as const, paymentMethod: "approval" as const }, "The transaction failed: nothing was staked"],
  ])("a stake that never reached the pot says so and can be removed (%o)", async (over, text) => {
    const server = show(stakeRecord(over), null);
    const item = await row();
    expect(status(item)).toHaveTextContent(text);
    expect(field(item, "Guess")).toBeNull();
    // Nothing to ask Geopoem about.
    expect(server.calls.filter((c) => c.url.startsWith("/api/responses/"))).toEqual([]);
    await userEvent.setup().click(within(item).getByRole("button", { name: "Remove" }));
    expect(listStakes()).toEqual([]);
  });

  it("says a signed stake Geopoem has not stored yet is sent again", async () => {
    show(stakeRecord({ state: "signed" }), null);
    expect(status(await row())).toHaveTextContent(
      "Signed, not yet stored by Geopoem: it is sent again automatically while this page is open and on your next visit",
    );
  });

  it("says a signature expired unused moved nothing, and lets the row go", async () => {
    show(
      stakeRecord({
        authorization: { ...stakeRecord().authorization!, validBefore: Math.floor(Date.now() / 1000) - 5 },
      }),
      apiStake({
        status: "failed",
        authorization: { ...apiStake().authorization!, relayStatus: "failed", relayCode: "expired", relayReason: "" },
      }),
    );
    const item = await row();
    expect(
      await within(item).findByText(/^The signature expired at .* before it reached the pot: no USDC moved$/),
    ).toBeInTheDocument();
    expect(within(item).getByRole("button", { name: "Remove" })).toBeInTheDocument();
    expect(within(item).queryByRole("button", { name: SELF_SEND.button })).not.toBeInTheDocument();
  });

  it("shows a confirmed stake with its guess received, and the record to download", async () => {
    show(
      stakeRecord({ seq: 3, guess: { state: "received" } }),
      pendingStake({ id: 3, status: "confirmed", guessReceived: true }),
    );
    const item = await row();
    expect(await within(item).findByText("Confirmed in the pot (stake #3)")).toBeInTheDocument();
    expect(field(item, "Guess")).toHaveTextContent("Guess received by Geopoem");
    expect(item).not.toHaveTextContent(/not yet|Relaying|nothing was paid/i);
    expect(within(item).getByRole("link", { name: /View transaction/ })).toHaveAttribute(
      "href",
      `https://sepolia.etherscan.io/tx/0x${"ab".repeat(32)}`,
    );
    const { blobs, click } = captureDownloads();
    await userEvent.setup().click(within(item).getByRole("button", { name: "Download record" }));
    const file = JSON.parse(await blobs[0]!.text()) as Record<string, unknown>;
    const record = stakeRecord();
    expect(file).toEqual({
      version: 2,
      site: record.site,
      chainId: record.chainId,
      pot: record.pot,
      challengeId: 7,
      termsDigest: record.termsDigest,
      termsSha256: record.termsSha256,
      submitterAddress: PLAYER,
      stakeUsdc: "2.5",
      amountUnits: "2500000",
      coordinates: "29.979175, 31.134258",
      latE6: "29979175",
      lonE6: "31134258",
      salt: record.salt,
      commitment: record.commitment,
      paymentMethod: "authorization",
      authorization: {
        validAfter: 0,
        validBefore: expect.any(Number),
        nonce: record.authorization!.nonce,
        signature: record.authorization!.signature,
      },
      transactionHash: `0x${"ab".repeat(32)}`,
      seq: 3,
    });
    click.mockRestore();
  });

  it("names the stake's transaction where no explorer can show it (a local chain)", async () => {
    installPublicConfig({ ...TEST_CONFIG, explorerUrl: "" });
    show(
      stakeRecord({ seq: 3, guess: { state: "received" } }),
      pendingStake({ id: 3, status: "confirmed", guessReceived: true }),
    );
    const item = await row();
    await within(item).findByText("Confirmed in the pot (stake #3)");
    expect(within(item).queryByRole("link", { name: /View transaction/ })).not.toBeInTheDocument();
    expect(item).toHaveTextContent(`Stake's transaction: 0x${"ab".repeat(32)}`);
  });

  it("lists the connected wallet's stakes made in another browser, once, with the coordinates hidden", async () => {
    const here = stakeRecord();
    const elsewhere = pendingStake({
      commitment: "e".repeat(64),
      id: 9,
      status: "confirmed",
      submissionStake: "4.000000",
    });
    const server = show(here, apiStake(), { wallet: new FakeWallet() });
    server.on("GET", `/api/responses?address=${PLAYER}`, () => json([elsewhere, apiStake()]));
    await vi.waitFor(() => expect(screen.getAllByText("Status")).toHaveLength(2));
    const items = screen.getAllByRole("listitem");
    const other = screen.getAllByRole("listitem").find((li) => li.textContent?.includes("4.00 USDC"))!;
    expect(items.length).toBeGreaterThanOrEqual(1);
    expect(within(other).getByText("Hidden until the solution is revealed")).toBeInTheDocument();
    expect(within(other).getByText("No record: listed by Geopoem for your wallet")).toBeInTheDocument();
    expect(status(other)).toHaveTextContent("Confirmed in the pot (stake #9)");
    expect(field(other, "Guess")).toHaveTextContent("Kept only in the browser that made this stake");
  });
});

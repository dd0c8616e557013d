import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { listStakes } from "@/wallet/pending";
import { FakeWallet } from "../../../test/fakeWallet";
import { TEST_CONFIG } from "../../../test/fixtures";
import { installPublicConfig } from "../../../test/setup";
import { json } from "../../../test/http";
import { NO_AUTHORIZATIONS, PAYMENTS_OFFERED, RELAY_OFF, servePayments } from "../../../test/payments";
import { ACTIVE_CHALLENGE, renderActiveTab, serveActiveChallenge } from "../../../test/activeChallenge";
import { captureDownloads } from "../../../test/downloads";
import { PAY_CHOICE } from "./pay-ways";

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
    const server = serveActiveChallenge();
    server.on("GET", "/api/challenges/active", () => new Promise<Response>(() => undefined));
    renderActiveTab();
    expect(screen.getByRole("status")).toHaveTextContent("Loading the active challenge...");
  });

  it("shows the load error", async () => {
    const server = serveActiveChallenge();
    server.on("GET", "/api/challenges/active", () => json({ message: "Boom." }, 500));
    renderActiveTab();
    expect(await screen.findByRole("alert")).toHaveTextContent(
      "Failed to load active challenge. Please try again later.",
    );
  });

  it("says when there is no challenge at all (the API's 404), and where to look instead", async () => {
    serveActiveChallenge(null);
    renderActiveTab();
    expect(await screen.findByText("No active challenge available at the moment.")).toBeInTheDocument();
    expect(screen.getByText(/Resolved Challenges tab and the Winners' Circle/)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Submit Your Solution & Pay Your Bid" })).not.toBeInTheDocument();
  });

  it("shows the challenge card with the close, the minimum stake, the bond and the pot", async () => {
    serveActiveChallenge();
    renderActiveTab();
    const card = (await screen.findByRole("heading", { name: ACTIVE_CHALLENGE.poemTitle })).closest(
      "section",
    ) as HTMLElement;
    const field = (name: string) => within(card).getByText(name).nextElementSibling as HTMLElement;
    expect(within(card).getByText("Active")).toBeInTheDocument();
    expect(field("Challenge")).toHaveTextContent("#7");
    expect(field("Proximity threshold")).toHaveTextContent("250 meters");
    expect(within(card).getByText("lion").tagName).toBe("EM");
    expect(within(card).getByText(ACTIVE_CHALLENGE.solutionSha256)).toBeInTheDocument();
    expect(field("Total bids")).toHaveTextContent("12.50 USDC");
    expect(field("Started")).toHaveTextContent(new Date(1767225600 * 1000).toLocaleString());
    expect(field("Closes")).toHaveTextContent(new Date(ACTIVE_CHALLENGE.closesTimestamp * 1000).toLocaleString());
    expect(field("Minimum stake")).toHaveTextContent("1.00 USDC");
    expect(field("Operator's bond")).toHaveTextContent(
      "50.00 USDC, paid to the players if the solution is not revealed in time",
    );
    expect(within(field("Pot")).getByRole("link")).toHaveAttribute(
      "href",
      `https://sepolia.etherscan.io/address/${TEST_CONFIG.potAddress}`,
    );
    expect(field("Terms on chain")).toHaveTextContent("Fixed in the pot in block 4242, so they cannot be changed");
  });

  it.each([
    ["closed", /It closed on .* The solution is revealed on chain by .* at the latest/],
    ["revealing", /The solution is revealed: 29.979175, 31.134258\. Guesses can be revealed on chain until/],
    ["final", /the winners are fixed and the pot is paying them/],
  ] as const)("shows a %s challenge with what happens next, never a dead end", async (phase, next) => {
    serveActiveChallenge({
      ...ACTIVE_CHALLENGE,
      phase,
      solutionReveal: phase === "closed" ? null : "29.979175, 31.134258",
      guessDeadline: phase === "closed" ? null : 4102448400,
    });
    renderActiveTab();
    const card = (await screen.findByRole("heading", { name: `Challenge #7: ${ACTIVE_CHALLENGE.poemTitle}` })).closest(
      "section",
    ) as HTMLElement;
    expect(card).toHaveTextContent("No challenge takes stakes right now.");
    expect(card).toHaveTextContent(next);
    expect(screen.queryByLabelText("Coordinates (latitude, longitude)")).not.toBeInTheDocument();
  });

  it.each([
    ["50.000000", "every stake is refunded with a share of the operator's bond of 50.00 USDC."],
    ["0.000000", "every stake is refunded."],
  ])("says what a closed challenge's abort would refund with a bond of %s", async (bond, refund) => {
    serveActiveChallenge({ ...ACTIVE_CHALLENGE, phase: "closed", bond, solutionReveal: null, guessDeadline: null });
    renderActiveTab();
    const card = (await screen.findByRole("heading", { name: `Challenge #7: ${ACTIVE_CHALLENGE.poemTitle}` })).closest(
      "section",
    ) as HTMLElement;
    expect(card).toHaveTextContent(`If the solution is not revealed by then, ${refund}`);
    expect(card).not.toHaveTextContent("bond of 0.00");
  });
});

describe("Active Challenge: the form's notes", () => {
  it("links the pot on the explorer, says stakes are returned only if nobody wins or the solution is late", async () => {
    serveActiveChallenge();
    renderActiveTab();
    const note = (await screen.findByText(/Payment information:/)).closest("div") as HTMLElement;
    expect(note).toHaveTextContent(
      "into the Geopoem pot, a contract that holds every stake and pays the winners itself",
    );
    expect(within(note).getByRole("link", { name: "the pot's contract on the block explorer" })).toHaveAttribute(
      "href",
      `https://sepolia.etherscan.io/address/${TEST_CONFIG.potAddress}`,
    );
    expect(
      screen.getByText(
        /stakes are final: a stake cannot be withdrawn, and it is returned only if nobody guesses correctly/,
      ),
    ).toBeInTheDocument();
    expect(screen.getByText("Minimum bid: 1.00 USDC")).toBeInTheDocument();
    expect(screen.getByLabelText("USDC bid amount")).toHaveAttribute("step", "0.01");
  });

  it("says the pot comes from the site alone on a chain with no pinned pot", async () => {
    serveActiveChallenge();
    renderActiveTab();
    expect(
      await screen.findByText(
        `No pot is pinned in Geopoem's code for Sepolia: the pot's address, ${TEST_CONFIG.potAddress}, comes from this site alone.`,
      ),
    ).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Submit Your Solution & Pay Your Bid" })).toBeEnabled();
  });

  it("takes no stake when the site names another pot than the one pinned for its chain", async () => {
    installPublicConfig({ ...TEST_CONFIG, chainId: 31337, chainIdHex: "0x7a69", chainName: "Anvil (local)" });
    serveActiveChallenge();
    renderActiveTab();
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent(
      `This site names the pot ${TEST_CONFIG.potAddress}, but the pot pinned in Geopoem's code for Anvil (local) is`,
    );
    expect(screen.getByRole("button", { name: "Submit Your Solution & Pay Your Bid" })).toBeDisabled();
  });

  it("stops taking stakes a minute before the close", async () => {
    serveActiveChallenge({ ...ACTIVE_CHALLENGE, closesTimestamp: Math.floor(Date.now() / 1000) + 30 });
    renderActiveTab();
    expect(await screen.findByRole("alert")).toHaveTextContent(
      "This challenge closes in less than 60 seconds: a stake sent now could reach the chain after the close",
    );
    expect(screen.getByRole("button", { name: "Submit Your Solution & Pay Your Bid" })).toBeDisabled();
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
    // Only the page's look-up of an existing connection: the wallet was not asked anything.
    expect(wallet.methods()).toEqual(["eth_accounts"]);
  });

  it.each([
    ["0.5", "1.000000", "Minimum stake amount is 1.00 USDC"],
    ["2.49", "2.500000", "Minimum stake amount is 2.50 USDC"],
    ["", "1.000000", "Stake must be a decimal amount of USDC with at most 6 decimals."],
    ["1.005", "1.000000", "Stake amount must be a multiple of 0.01 USDC (at most 2 decimals)."],
  ])("toasts Invalid Stake Amount for %j (minimum %s)", async (stake, minStake, message) => {
    serveActiveChallenge({ ...ACTIVE_CHALLENGE, minStake });
    renderActiveTab();
    await fillForm("29.979175, 31.134258", stake);
    expect(await screen.findByText("Invalid Stake Amount")).toBeInTheDocument();
    expect(screen.getByText(message)).toBeInTheDocument();
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });
});

describe("Active Challenge: confirm dialog", () => {
  it("shows the normalised coordinates and the stake; Cancel closes it and nothing is kept", async () => {
    const server = serveActiveChallenge();
    servePayments(server);
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
    // Only the page's look-up of an existing connection: the wallet was not asked anything.
    expect(wallet.methods()).toEqual(["eth_accounts"]);
    expect(listStakes()).toEqual([]);
  });

  it.each([
    ["the relay on", PAYMENTS_OFFERED, [PAY_CHOICE.relay, PAY_CHOICE.approval, PAY_CHOICE.self], PAY_CHOICE.relay],
    ["the relay off", RELAY_OFF, [PAY_CHOICE.approval, PAY_CHOICE.self], PAY_CHOICE.approval],
  ] as const)("offers the ways into the pot with %s, the first chosen", async (_, payments, labels, chosen) => {
    const server = serveActiveChallenge();
    servePayments(server, payments);
    renderActiveTab();
    await fillForm("29.979175, 31.134258", "1");
    const dialog = await screen.findByRole("dialog", { name: "Confirm Solution Submission" });
    const group = await within(dialog).findByRole("group", { name: PAY_CHOICE.legend });
    expect(within(group).getAllByRole("radio")).toHaveLength(labels.length);
    for (const label of labels) expect(within(group).getByRole("radio", { name: label })).toBeInTheDocument();
    expect(within(group).getByRole("radio", { name: chosen })).toBeChecked();
    if (payments === RELAY_OFF) expect(within(dialog).getByText(PAY_CHOICE.relayUnavailable)).toBeInTheDocument();
  });

  it("offers the approval alone when the token's domain is not known", async () => {
    const server = serveActiveChallenge();
    servePayments(server, NO_AUTHORIZATIONS);
    renderActiveTab();
    await fillForm("29.979175, 31.134258", "1");
    const dialog = await screen.findByRole("dialog", { name: "Confirm Solution Submission" });
    expect(within(dialog).queryByRole("group")).not.toBeInTheDocument();
    expect(
      within(dialog).getByText(/allow the Geopoem pot to take 1\.00 USDC, and send the stake/),
    ).toBeInTheDocument();
  });

  it("offers the offline record as a download: the guess, its salt and where it goes", async () => {
    const server = serveActiveChallenge();
    servePayments(server);
    const { blobs, click } = captureDownloads();
    renderActiveTab();
    const user = await fillForm("48.8584, 2.2945", "3");
    await user.click(await screen.findByRole("button", { name: "Download offline record" }));
    expect(click).toHaveBeenCalledTimes(1);
    const record = JSON.parse(await blobs[0]!.text()) as Record<string, unknown>;
    expect(record).toMatchObject({
      version: 2,
      chainId: 11155111,
      pot: TEST_CONFIG.potAddress,
      challengeId: 7,
      termsDigest: ACTIVE_CHALLENGE.termsDigest,
      termsSha256: ACTIVE_CHALLENGE.termsSha256,
      coordinates: "48.8584, 2.2945",
      latE6: "48858400",
      lonE6: "2294500",
      stakeUsdc: "3",
      amountUnits: "3000000",
      paymentMethod: "authorization",
      // Not known before the wallet gives the account.
      submitterAddress: null,
      commitment: null,
      authorization: null,
      transactionHash: null,
      seq: null,
    });
    expect(record.salt).toMatch(/^[0-9a-f]{64}$/);
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
    // The help matches both ways to pay: ETH only for the approval.
    expect(dialog).toHaveTextContent(
      "Tick the account that holds your test USDC (and a little test ETH if you pay by approval: signing needs none)",
    );
    await user.click(within(dialog).getByRole("button", { name: "OK" }));
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });
});

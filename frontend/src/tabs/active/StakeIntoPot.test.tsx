import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PREFLIGHT } from "@/lib/pot/preflight";
import { listStakes } from "@/wallet/pending";
import { renderActiveTab } from "../../../test/activeChallenge";
import { anvilWallet, payerEvents, withPotSite } from "../../../test/site";
import { PAY_CHOICE } from "./pay-ways";

/** The Active Challenge tab playing into the real pot on anvil, as a player does: the form, the
 * confirm dialog, the wallet, the stake in the pot, and My submissions following it to "Confirmed"
 * and "Guess received by Geopoem". Only Geopoem's server (fetch) and the wallet's prompts are faked. */

const world = withPotSite();

afterEach(() => vi.unstubAllGlobals());

async function stake(coordinates: string, amount: string, way?: string) {
  const user = userEvent.setup();
  await user.type(await screen.findByLabelText("Coordinates (latitude, longitude)"), coordinates);
  await user.type(screen.getByLabelText("USDC bid amount"), amount);
  await user.click(screen.getByRole("button", { name: "Submit Your Solution & Pay Your Bid" }));
  const dialog = await screen.findByRole("dialog", { name: "Confirm Solution Submission" });
  if (way) await user.click(await within(dialog).findByRole("radio", { name: way }));
  else await within(dialog).findByRole("radio", { name: PAY_CHOICE.relay, checked: true });
  await user.click(within(dialog).getByRole("button", { name: "Confirm" }));
  return user;
}

describe("a stake by signature from the Active Challenge tab", () => {
  it("goes into the pot through Geopoem's relayer; My submissions follows it to Confirmed and the guess received", async () => {
    const wallet = anvilWallet(world.chain);
    window.ethereum = wallet;
    renderActiveTab({ keeper: true });
    await stake("29.9753, 31.1378", "2.50");
    expect(await screen.findByText("Solution Submitted", {}, { timeout: 20_000 })).toBeInTheDocument();
    expect(screen.getByLabelText("Coordinates (latitude, longitude)")).toHaveValue("");
    // The wallet was asked for the account first, then to sign; never to send a transaction.
    const methods = wallet.methods();
    expect(methods.indexOf("wallet_requestPermissions")).toBeLessThan(methods.indexOf("eth_signTypedData_v4"));
    expect(methods).not.toContain("eth_sendTransaction");
    // Geopoem got the signature and the commitment, not the guess.
    expect(world.site.posted.stakes).toHaveLength(1);
    expect(JSON.stringify(world.site.posted.stakes[0])).not.toContain("29.9753");

    const panel = screen.getByRole("region", { name: "My submissions" });
    const row = (await within(panel).findByText("#7", { selector: "dd" })).closest("li") as HTMLElement;
    await within(row).findByText(/^In the pot \(stake #\d+\), waiting for confirmation$/, {}, { timeout: 10_000 });
    expect(
      within(row).getByText("Kept in this browser: sent to Geopoem once the stake is confirmed in the pot"),
    ).toBeInTheDocument();
    expect(world.site.posted.guesses).toEqual([]);

    await act(async () => {
      await world.chain.anvil.rpc("evm_mine", []);
    });
    await within(row).findByText(/^Confirmed in the pot \(stake #\d+\)$/, {}, { timeout: 10_000 });
    await within(row).findByText("Guess received by Geopoem", {}, { timeout: 10_000 });
    const record = listStakes()[0]!;
    expect(world.site.guesses.get(record.commitment)).toEqual({ text: "29.9753, 31.1378", salt: record.salt });
  }, 60_000);

  it("says why, beside the button, when the challenge shown is not the pot's, and asks the wallet nothing", async () => {
    world.site.challenge = { ...world.site.challenge, proximityThreshold: 5000 };
    const wallet = anvilWallet(world.chain);
    window.ethereum = wallet;
    renderActiveTab();
    await stake("29.9753, 31.1378", "1");
    const sentence = PREFLIGHT.differs(["the proximity threshold"]);
    expect(await screen.findByText("Stake Not Sent")).toBeInTheDocument();
    expect(await screen.findByRole("alert")).toHaveTextContent(sentence);
    expect(wallet.methods().filter((m) => m !== "eth_accounts")).toEqual([]);
    expect(listStakes()).toEqual([]);
  }, 30_000);

  it("says to add USDC, before anything is signed, when the wallet holds less than the stake", async () => {
    const wallet = anvilWallet(world.chain);
    window.ethereum = wallet;
    renderActiveTab();
    await stake("29.9753, 31.1378", "500");
    expect(await screen.findByRole("alert", {}, { timeout: 20_000 })).toHaveTextContent(
      /This wallet does not hold enough USDC for the stake: it holds [\d.]+ USDC\. Add USDC to it, or stake less\./,
    );
    expect(wallet.methods()).not.toContain("eth_signTypedData_v4");
  }, 30_000);
});

describe("a stake by approval from the Active Challenge tab", () => {
  it("approves and stakes from the wallet, with the spec's progress messages", async () => {
    const wallet = anvilWallet(world.chain, world.chain.other);
    window.ethereum = wallet;
    renderActiveTab();
    const seen = new Set<string>();
    const observer = new MutationObserver(() => {
      const submit = document.querySelector("form button[type=submit]");
      if (submit?.textContent) seen.add(submit.textContent);
    });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });
    await stake("1.5, 2.5", "1.25", PAY_CHOICE.approval);
    expect(await screen.findByText("Solution Submitted", {}, { timeout: 20_000 })).toBeInTheDocument();
    observer.disconnect();
    for (const message of [
      "Sending transaction...",
      "Waiting for transaction confirmation...",
      "Transaction confirmed successfully!",
    ])
      expect(seen).toContain(message);
    await waitFor(async () => {
      const events = await payerEvents(world.chain, world.opened.id, world.chain.other);
      expect(events.some((e) => e.kind === "Staked" && e.amount === 1_250_000n)).toBe(true);
    });
    expect(world.site.posted.stakes).toEqual([]);
    expect(listStakes()[0]).toMatchObject({ paymentMethod: "approval", state: "staked" });
  }, 60_000);
});

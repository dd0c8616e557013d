import { act, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useEffect } from "react";
import { afterAll, describe, expect, it, vi } from "vitest";
import { Toaster } from "@/components/Toaster";
import { announceWallet, FakeWallet, PLAYER, RpcError } from "../../test/fakeWallet";
import { useWallet, WalletProvider, type WalletState } from "./WalletContext";
import { WalletControl } from "./WalletControl";
import { ensureChain } from "./flow";
import { getPublicConfig } from "@/config";
import { loadEthers } from "@/lib/ethers-lazy";

// Connecting warms the ethers chunk in the background (WalletContext.tsx); the file waits for that
// import, or a slow machine tears the environment down under it.
afterAll(() => loadEthers());

/** The wallet context's state as the payment flow sees it. */
const context: { current: WalletState | null } = { current: null };
function CaptureWallet() {
  const wallet = useWallet();
  useEffect(() => {
    context.current = wallet;
  });
  return null;
}

function renderControl(reload = vi.fn()) {
  render(
    <WalletProvider reload={reload}>
      <CaptureWallet />
      <WalletControl />
      <Toaster />
    </WalletProvider>,
  );
  return reload;
}

const PHONE_UA =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

describe("on a phone without a wallet", () => {
  it("offers to open the game in MetaMask's in-app browser instead of a dead end", async () => {
    vi.spyOn(navigator, "userAgent", "get").mockReturnValue(PHONE_UA);
    try {
      renderControl();
      const link = await screen.findByRole("link", { name: "Open in MetaMask" });
      const { host, pathname, search } = window.location;
      expect(link).toHaveAttribute("href", `https://metamask.app.link/dapp/${host}${pathname}${search}`);
      // The spec's button stays beside it.
      expect(screen.getByRole("button", { name: "Connect MetaMask" })).toBeInTheDocument();
    } finally {
      vi.restoreAllMocks();
    }
  });

  it("offers nothing of the kind on a desktop, or on a phone whose browser has a wallet", async () => {
    renderControl();
    expect(screen.queryByRole("link", { name: "Open in MetaMask" })).not.toBeInTheDocument();
    vi.spyOn(navigator, "userAgent", "get").mockReturnValue(PHONE_UA);
    try {
      window.ethereum = new FakeWallet({ eth_accounts: () => [] });
      renderControl();
      await screen.findAllByRole("button", { name: "Connect MetaMask" });
      expect(screen.queryByRole("link", { name: "Open in MetaMask" })).not.toBeInTheDocument();
    } finally {
      vi.restoreAllMocks();
    }
  });
});

describe("wallet control", () => {
  it("connects, shows the short address and the success toast", async () => {
    const wallet = new FakeWallet({ eth_accounts: () => [] });
    window.ethereum = wallet;
    renderControl();
    await userEvent.click(await screen.findByRole("button", { name: "Connect MetaMask" }));
    expect(await screen.findByText("0xf39F...2266")).toBeInTheDocument();
    expect(screen.getByText("Wallet Connected")).toBeInTheDocument();
    expect(screen.getByText("Successfully connected to MetaMask")).toBeInTheDocument();
  });

  it('shows "Connecting..." while the wallet is asking', async () => {
    let answer: (v: string[]) => void = () => undefined;
    window.ethereum = new FakeWallet({
      eth_accounts: () => [],
      eth_requestAccounts: () => new Promise((resolve) => (answer = resolve)),
    });
    renderControl();
    await userEvent.click(screen.getByRole("button", { name: "Connect MetaMask" }));
    expect(screen.getByRole("button", { name: "Connecting..." })).toBeDisabled();
    await act(async () => answer([PLAYER]));
    expect(await screen.findByText("0xf39F...2266")).toBeInTheDocument();
  });

  it.each([
    ["no wallet", undefined, "MetaMask is not installed. Please install it to use this feature."],
    [
      "rejected",
      () => {
        throw new RpcError(4001, "User rejected");
      },
      "Please connect to MetaMask.",
    ],
    ["locked", () => [], "No accounts found. Please unlock MetaMask."],
  ])("%s: Connection Failed toast", async (_case, requestAccounts, message) => {
    if (requestAccounts)
      window.ethereum = new FakeWallet({ eth_accounts: () => [], eth_requestAccounts: requestAccounts });
    renderControl();
    await userEvent.click(screen.getByRole("button", { name: "Connect MetaMask" }));
    expect(await screen.findByText("Connection Failed")).toBeInTheDocument();
    expect(screen.getByText(message)).toBeInTheDocument();
  });

  it("finds an existing connection on load and follows account changes", async () => {
    const wallet = new FakeWallet();
    window.ethereum = wallet;
    renderControl();
    expect(await screen.findByText("0xf39F...2266")).toBeInTheDocument();
    act(() => wallet.emit("accountsChanged", ["0x70997970C51812dc3A010C7d01b50e0d17dc79C8"]));
    expect(screen.getByText("0x7099...79C8")).toBeInTheDocument();
    act(() => wallet.emit("accountsChanged", []));
    expect(screen.getByRole("button", { name: "Connect MetaMask" })).toBeInTheDocument();
  });

  it("reloads the page when the network changes", async () => {
    const wallet = new FakeWallet();
    window.ethereum = wallet;
    const reload = renderControl();
    await screen.findByText("0xf39F...2266");
    act(() => wallet.emit("chainChanged", "0x1"));
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it("does not reload for the payment flow's own network switch, only for the player's", async () => {
    const wallet = new FakeWallet({ eth_chainId: () => "0x1" });
    wallet.handlers.wallet_switchEthereumChain = () => {
      wallet.emit("chainChanged", getPublicConfig().chainIdHex);
      return null;
    };
    window.ethereum = wallet;
    const reload = renderControl();
    await screen.findByText("0xf39F...2266");
    await act(() => ensureChain(wallet, getPublicConfig(), context.current!.expectChainSwitch));
    expect(reload).not.toHaveBeenCalled();
    act(() => wallet.emit("chainChanged", "0x1"));
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it("lets the player choose when several wallets announce (EIP-6963)", async () => {
    const first = new FakeWallet({ eth_accounts: () => [] });
    const second = new FakeWallet({
      eth_accounts: () => [],
      eth_requestAccounts: () => ["0x70997970C51812dc3A010C7d01b50e0d17dc79C8"],
    });
    const stops = [announceWallet(first, "Alpha Wallet"), announceWallet(second, "Beta Wallet")];
    try {
      renderControl();
      await userEvent.click(screen.getByRole("button", { name: "Connect MetaMask" }));
      expect(await screen.findByRole("dialog", { name: "Choose a wallet" })).toBeInTheDocument();
      await userEvent.click(screen.getByRole("button", { name: "Beta Wallet" }));
      expect(await screen.findByText("0x7099...79C8")).toBeInTheDocument();
      expect(first.methods()).not.toContain("eth_requestAccounts");
      expect(second.methods()).toContain("eth_requestAccounts");
    } finally {
      stops.forEach((stop) => stop());
    }
  });
});

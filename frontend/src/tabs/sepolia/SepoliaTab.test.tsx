import { screen, waitFor } from "@testing-library/react";
import { paymentsAuthorizationQuery } from "@/api/queries";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TEST_CONFIG } from "../../../test/fixtures";
import { installFakeServer } from "../../../test/http";
import { PAYMENTS_OFFERED, RELAY_OFF, servePayments } from "../../../test/payments";
import { renderWithClient } from "../../../test/render";
import { installPublicConfig } from "../../../test/setup";
import { SepoliaTab } from "./index";

// GET /api/payments/authorization unanswered (599): the guides say what the direct transfer needs.
beforeEach(() => {
  installFakeServer();
});
afterEach(() => vi.unstubAllGlobals());

describe("Sepolia Testnet tab", () => {
  it("gives the four steps in order", () => {
    renderWithClient(<SepoliaTab />);
    expect(screen.getByRole("heading", { level: 2, name: "Sepolia Testnet Setup" })).toBeInTheDocument();
    expect(screen.getAllByRole("heading", { level: 3 }).map((h) => h.textContent)).toEqual([
      "Step 1: Configure your wallet for the Sepolia test network",
      "Step 2: Import the USDC test token",
      "Step 3: Get test ETH from a cloud faucet",
      "Step 4: Get test USDC from a stablecoin issuer's faucet",
      "Token information",
    ]);
    expect(screen.getByRole("link", { name: "open the Google Cloud Sepolia faucet" })).toHaveAttribute(
      "href",
      "https://cloud.google.com/application/web3/faucet/ethereum/sepolia",
    );
    expect(screen.getByRole("link", { name: "open Circle's USDC faucet" })).toHaveAttribute(
      "href",
      "https://faucet.circle.com/",
    );
  });

  it("on a local chain, gives the local MetaMask set-up with the page's own values, without Sepolia's faucets or dead explorer links", () => {
    installPublicConfig({
      ...TEST_CONFIG,
      chainId: 31337,
      chainIdHex: "0x7a69",
      chainName: "Anvil (local)",
      rpcUrl: "http://127.0.0.1:8545",
      explorerUrl: "",
      localChain: true,
      usdcAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      nativeCurrency: { name: "ETH", symbol: "ETH", decimals: 18 },
    });
    const { container } = renderWithClient(<SepoliaTab />);
    const text = container.textContent ?? "";
    // Named for the chain the page is on, not for Sepolia.
    expect(
      screen.getByRole("heading", { level: 2, name: "Playing on Anvil (local), a development chain on this computer" }),
    ).toBeInTheDocument();
    expect(text).toContain(`Geopoem pot${TEST_CONFIG.potAddress}`);
    expect(screen.getAllByRole("heading", { level: 3 }).map((h) => h.textContent)).toEqual([
      "Step 1: Add the Anvil (local) network to MetaMask",
      "Step 2: Import a development account",
      "Step 3: Import the test USDC token",
      "Token information",
    ]);
    expect(text).toContain("RPC URLhttp://127.0.0.1:8545");
    expect(text).toContain("Chain ID31337 (0x7a69)");
    expect(text).toContain("Currency symbolETH");
    expect(text).toContain("Private key0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
    expect(text).toContain("Token contract address0x5FbDB2315678afecb367f032d93F642f64180aa3");
    expect(text).not.toMatch(/Sepolia Testnet Setup|Get test (ETH|USDC) from/);
    // No link at all: neither a faucet nor an explorer that never saw this chain.
    expect(screen.queryAllByRole("link")).toEqual([]);
    expect(text).not.toContain("etherscan");
  });

  it("shows the network and token values of the public config, not built-in ones", () => {
    const custom = {
      ...TEST_CONFIG,
      chainId: 31337,
      chainIdHex: "0x7a69",
      chainName: "Geonet",
      rpcUrl: "https://rpc.geonet.example/v1",
      explorerUrl: "https://explorer.geonet.example",
      usdcAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      nativeCurrency: { name: "GeoETH", symbol: "GETH", decimals: 18 },
    };
    installPublicConfig(custom);
    const { container } = renderWithClient(<SepoliaTab />);
    const text = container.textContent ?? "";
    expect(screen.getByRole("heading", { level: 2, name: "Geonet Testnet Setup" })).toBeInTheDocument();
    expect(text).toContain("Network nameGeonet");
    expect(text).toContain("RPC URLhttps://rpc.geonet.example/v1");
    expect(text).toContain("Chain ID31337 (0x7a69)");
    expect(text).toContain("Currency symbolGETH");
    expect(text).toContain("Token contract address0x5FbDB2315678afecb367f032d93F642f64180aa3");
    expect(text).toContain("Token decimals6");
    expect(screen.getByRole("link", { name: "https://explorer.geonet.example" })).toHaveAttribute(
      "href",
      "https://explorer.geonet.example",
    );
    expect(screen.getByRole("link", { name: custom.usdcAddress })).toHaveAttribute(
      "href",
      `https://explorer.geonet.example/address/${custom.usdcAddress}`,
    );
    expect(text).not.toContain("11155111");
    expect(text).not.toContain(TEST_CONFIG.usdcAddress);
  });

  it("where the relay sends signed stakes, keeps the four steps and marks the ETH step as needed only to pay by approval", async () => {
    servePayments(installFakeServer());
    const { container } = renderWithClient(<SepoliaTab />);
    expect(
      await screen.findByRole("heading", {
        level: 3,
        name: "Step 3: Get test ETH from a cloud faucet (only to pay by approval)",
      }),
    ).toBeInTheDocument();
    expect(screen.getAllByRole("heading", { level: 3 }).map((h) => h.textContent)).toEqual([
      "Step 1: Configure your wallet for the Sepolia test network",
      "Step 2: Import the USDC test token",
      "Step 3: Get test ETH from a cloud faucet (only to pay by approval)",
      "Step 4: Get test USDC from a stablecoin issuer's faucet",
      "Token information",
    ]);
    const text = container.textContent ?? "";
    expect(text).toContain(
      "To pay by signature you need only test USDC (steps 1, 2 and 4); step 3's ETH is for paying from your wallet by approval.",
    );
    expect(text).toContain("When you pay by signature, Geopoem's relayer pays the gas: you need only test USDC.");
    expect(text).toContain("18 decimals; none when you pay by signature (Geopoem's relayer pays it)");
    expect(text).toContain("nobody, Geopoem included, can take a stake out of it");
    expect(screen.getByRole("link", { name: TEST_CONFIG.potAddress })).toHaveAttribute(
      "href",
      `https://sepolia.etherscan.io/address/${TEST_CONFIG.potAddress}`,
    );
  });

  it("says ETH is needed when the relay is off, as for a token without authorizations", async () => {
    const server = installFakeServer();
    servePayments(server, RELAY_OFF);
    const { queryClient } = renderWithClient(<SepoliaTab />);
    await waitFor(() => expect(queryClient.getQueryData(paymentsAuthorizationQuery().queryKey)).toEqual(RELAY_OFF));
    expect(
      screen.getByRole("heading", { level: 3, name: "Step 3: Get test ETH from a cloud faucet" }),
    ).toBeInTheDocument();
    expect(screen.queryByText(/when you pay by signature/i)).not.toBeInTheDocument();
  });

  it("on a local chain with the relay on, says the development account's test USDC is enough", async () => {
    installPublicConfig({ ...TEST_CONFIG, chainId: 31337, chainIdHex: "0x7a69", explorerUrl: "", localChain: true });
    servePayments(installFakeServer(), PAYMENTS_OFFERED);
    renderWithClient(<SepoliaTab />);
    expect(
      await screen.findByText("Paying by signature needs only the test USDC: Geopoem's relayer pays the gas."),
    ).toBeInTheDocument();
  });
});

import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { TEST_CONFIG } from "../../../test/fixtures";
import { installPublicConfig } from "../../../test/setup";
import { SepoliaTab } from "./index";

describe("Sepolia Testnet tab", () => {
  it("gives the four steps in order", () => {
    render(<SepoliaTab />);
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
    const { container } = render(<SepoliaTab />);
    const text = container.textContent ?? "";
    expect(screen.getByRole("heading", { level: 2, name: "Playing on a local test chain" })).toBeInTheDocument();
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
    const { container } = render(<SepoliaTab />);
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
});

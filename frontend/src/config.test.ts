import { describe, expect, it } from "vitest";
import { explorerLink, getPublicConfig } from "@/config";
import { installPublicConfig } from "../test/setup";
import { TEST_CONFIG } from "../test/fixtures";

describe("public config", () => {
  it("is read from the page's JSON, not hard-coded", () => {
    installPublicConfig({ ...TEST_CONFIG, chainId: 31337, chainIdHex: "0x7A69", explorerUrl: "http://explorer.test/" });
    const config = getPublicConfig();
    expect(config.chainId).toBe(31337);
    expect(config.chainIdHex).toBe("0x7a69");
    expect(explorerLink("address", "0xabc", config)).toBe("http://explorer.test/address/0xabc");
  });

  it("gives no explorer link on a chain without an explorer, and reads the local-chain flag", () => {
    installPublicConfig({ ...TEST_CONFIG, chainId: 31337, explorerUrl: "", localChain: true });
    const config = getPublicConfig();
    expect(explorerLink("tx", "0xabc", config)).toBeNull();
    expect(config.localChain).toBe(true);
    installPublicConfig(TEST_CONFIG);
    expect(getPublicConfig().localChain).toBe(false);
  });

  it("reads the confirmations as a whole number of blocks, 0 (plain polling) otherwise", () => {
    installPublicConfig({ ...TEST_CONFIG, confirmations: 3 });
    expect(getPublicConfig().confirmations).toBe(3);
    const { confirmations: _none, ...older } = TEST_CONFIG;
    installPublicConfig(older);
    expect(getPublicConfig().confirmations).toBe(0);
    installPublicConfig({ ...TEST_CONFIG, confirmations: "finalized" });
    expect(getPublicConfig().confirmations).toBe(0);
  });

  it("reads the terms registry, null when the site has none", () => {
    installPublicConfig(TEST_CONFIG);
    expect(getPublicConfig().registryAddress).toBe(TEST_CONFIG.registryAddress);
    installPublicConfig({ ...TEST_CONFIG, registryAddress: null });
    expect(getPublicConfig().registryAddress).toBeNull();
    const { registryAddress: _none, ...older } = TEST_CONFIG;
    installPublicConfig(older);
    expect(getPublicConfig().registryAddress).toBeNull();
  });

  it("reads the operations address, null (the share kept in the treasury) when the site has none", () => {
    const operations = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65";
    installPublicConfig({ ...TEST_CONFIG, operationsAddress: operations });
    expect(getPublicConfig().operationsAddress).toBe(operations);
    for (const none of [null, "", 42]) {
      installPublicConfig({ ...TEST_CONFIG, operationsAddress: none });
      expect(getPublicConfig().operationsAddress).toBeNull();
    }
    const { operationsAddress: _none, ...older } = { ...TEST_CONFIG, operationsAddress: operations };
    installPublicConfig(older);
    expect(getPublicConfig().operationsAddress).toBeNull();
  });

  it("links a block on the explorer", () => {
    installPublicConfig(TEST_CONFIG);
    expect(explorerLink("block", "42")).toBe("https://sepolia.etherscan.io/block/42");
  });

  it("refuses a page without it", () => {
    document.getElementById("geopoem-config")?.remove();
    installPublicConfig({});
    expect(() => getPublicConfig()).toThrow("malformed");
  });
});

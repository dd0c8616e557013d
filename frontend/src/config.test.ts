import { describe, expect, it } from "vitest";
import { explorerLink, getPublicConfig, LOCAL_POT, PINNED_POTS, potPin, potPinSentence } from "@/config";
import { installPublicConfig } from "../test/setup";
import { TEST_CONFIG } from "../test/fixtures";

describe("public config", () => {
  it("is read from the page's JSON, not hard-coded", () => {
    installPublicConfig({ ...TEST_CONFIG, chainId: 31337, chainIdHex: "0x7A69", explorerUrl: "http://explorer.test/" });
    const config = getPublicConfig();
    expect(config.chainId).toBe(31337);
    expect(config.chainIdHex).toBe("0x7a69");
    expect(config.potAddress).toBe(TEST_CONFIG.potAddress);
    expect(config.potDeployBlock).toBe(TEST_CONFIG.potDeployBlock);
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

  it("stops offering stakes a minute before the close unless the site says otherwise", () => {
    installPublicConfig(TEST_CONFIG);
    expect(getPublicConfig().stakeCloseMarginSeconds).toBe(60);
    installPublicConfig({ ...TEST_CONFIG, stakeCloseMarginSeconds: 120 });
    expect(getPublicConfig().stakeCloseMarginSeconds).toBe(120);
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

describe("the pot pinned for the chain", () => {
  const pins = { 11155111: { address: TEST_CONFIG.potAddress, deployBlock: 4000 } };

  it("takes the site's pot when it is the pinned one, whatever the case of its hex", () => {
    const pin = potPin(
      { chainId: 11155111, potAddress: TEST_CONFIG.potAddress.toLowerCase(), potDeployBlock: 9 },
      pins,
    );
    expect(pin).toEqual({ state: "pinned", pot: pins[11155111] });
    expect(potPinSentence(pin, "Sepolia")).toBeNull();
  });

  it("refuses another pot, or none, for a pinned chain, and says so", () => {
    const other = "0x0000000000000000000000000000000000000bad";
    const pin = potPin({ chainId: 11155111, potAddress: other, potDeployBlock: 1 }, pins);
    expect(pin.state).toBe("differs");
    expect(potPinSentence(pin, "Sepolia")).toBe(
      `This site names the pot ${other}, but the pot pinned in Geopoem's code for Sepolia is ${TEST_CONFIG.potAddress}. This page takes no stake into another pot.`,
    );
    expect(potPin({ chainId: 11155111, potAddress: "", potDeployBlock: 0 }, pins).state).toBe("differs");
  });

  it("says when a chain has no pinned pot: the address comes from the site alone", () => {
    const pin = potPin({ chainId: 5, potAddress: TEST_CONFIG.potAddress, potDeployBlock: 7 }, pins);
    expect(pin).toEqual({ state: "unpinned", pot: { address: TEST_CONFIG.potAddress, deployBlock: 7 } });
    expect(potPinSentence(pin, "Goerli")).toBe(
      `No pot is pinned in Geopoem's code for Goerli: the pot's address, ${TEST_CONFIG.potAddress}, comes from this site alone.`,
    );
  });

  it("pins the local chain's pot of docs/protocol.md, and nothing for Sepolia or mainnet yet", () => {
    expect(PINNED_POTS[31337]).toEqual(LOCAL_POT);
    expect(LOCAL_POT).toEqual({ address: "0x46DDdae9F667Cc93eB0796652a39AbDFb4598245", deployBlock: 4 });
    expect(PINNED_POTS[11155111]).toBeUndefined();
    expect(PINNED_POTS[1]).toBeUndefined();
  });
});

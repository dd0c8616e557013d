/** The public config of config/public_config.py with the anvil accounts the Python tests use. */
export const TEST_CONFIG = {
  chainId: 11155111,
  chainIdHex: "0xaa36a7",
  chainName: "Sepolia",
  nativeCurrency: { name: "SepoliaETH", symbol: "SepoliaETH", decimals: 18 },
  rpcUrl: "https://rpc.sepolia.example",
  explorerUrl: "https://sepolia.etherscan.io",
  usdcAddress: "0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238",
  treasuryAddress: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
  tokenDecimals: 6,
  minStake: "1.00",
  maxStake: "1000000",
  receiptPollIntervalMs: 2000,
  receiptTimeoutMs: 60000,
  confirmations: 2,
  socialLinks: { x: "https://x.com/geopoem", youtube: "https://www.youtube.com/@geopoem" },
  videoIds: ["dQw4w9WgXcQ", "M7lc1UVf-VE"],
};

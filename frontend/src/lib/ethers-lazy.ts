/** ethers is used only for the stake transfer's ABI encoding, the address checksum and the pot's
 * keccak256 (lib/protocol/encoding.ts), and only once the wallet is used: this dynamic import puts it
 * in a lazy chunk, so the first paint never waits for it. webpackExports keeps the chunk to the
 * functions named here. (SHA-256 is lib/commitment.ts's.) */
export function loadEthers() {
  return import(
    /* webpackChunkName: "ethers" */
    /* webpackExports: ["AbiCoder", "getAddress", "keccak256"] */
    "ethers"
  );
}

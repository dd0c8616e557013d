/** ethers is used only for the stake transfer's ABI encoding and the address checksum, and only
 * once the wallet is used: this dynamic import puts it in a lazy chunk, so the first paint never
 * waits for it. webpackExports keeps the chunk to the functions named here. (Hashing is
 * lib/commitment.ts's.) */
export function loadEthers() {
  return import(
    /* webpackChunkName: "ethers" */
    /* webpackExports: ["AbiCoder", "getAddress"] */
    "ethers"
  );
}

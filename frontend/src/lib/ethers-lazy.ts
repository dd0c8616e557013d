/** ethers is used only for the pot's keccak256 (lib/protocol/encoding.ts) and the address checksum,
 * and only once the wallet or the pot is used: this dynamic import puts it in a lazy chunk, so the
 * first paint never waits for it. webpackExports keeps the chunk to the functions named here.
 * (SHA-256 is lib/commitment.ts's.) */
export function loadEthers() {
  return import(
    /* webpackChunkName: "ethers" */
    /* webpackExports: ["getAddress", "keccak256"] */
    "ethers"
  );
}

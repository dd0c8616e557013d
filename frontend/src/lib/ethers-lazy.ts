/** ethers is used only for hashing, ABI encoding and address checksums, and only once the
 * wallet is used: this dynamic import puts it in a lazy chunk, so the first paint never waits
 * for it. webpackExports keeps the chunk to the functions named here. */
export function loadEthers() {
  return import(
    /* webpackChunkName: "ethers" */
    /* webpackExports: ["sha256", "toUtf8Bytes", "AbiCoder", "getAddress", "formatUnits"] */
    "ethers"
  );
}

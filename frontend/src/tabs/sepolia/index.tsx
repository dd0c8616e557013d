// TEMPORARY placeholder by fe_core so the build works; fe_tabs replaces this file.
export function SepoliaTab() {
  return <p>Sepolia Testnet</p>;
}

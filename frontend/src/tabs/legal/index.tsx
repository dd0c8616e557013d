// TEMPORARY placeholder by fe_core so the build works; fe_tabs replaces this file.
export function LegalTab() {
  return <p>Legal &amp; Terms</p>;
}

// TEMPORARY placeholder by fe_core so the build works; fe_tabs replaces this file.
export function FaqTab() {
  return <p>FAQ</p>;
}

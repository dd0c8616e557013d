// TEMPORARY placeholder by fe_core so the build works; fe_tabs replaces this file.
export function ResolvedTab() {
  return <p>Resolved Challenges</p>;
}

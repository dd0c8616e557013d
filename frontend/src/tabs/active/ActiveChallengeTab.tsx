export function ActiveChallengeTab() {
  return <p>Active Challenge</p>;
}

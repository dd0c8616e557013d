/** A loading indicator with a text alternative (role="status" is announced politely). */
export function Spinner({ label = "Loading..." }: { label?: string }) {
  return (
    <div className="spinner-wrap" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      <span className="visually-hidden">{label}</span>
    </div>
  );
}

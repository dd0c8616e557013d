/** What a missing threshold means, where the threshold is shown: without a word, a guess 1.82 m
 * from the solution marked "incorrect" under "no threshold" reads as a bug (docs/protocol.md section 4:
 * "Not specified" is scored as 0 m). */
export const NO_THRESHOLD_NOTE = "(scored as 0 m: only an exact hit is correct)";

/** A proximity threshold in `unit`, or the spec's "Not specified" followed by its meaning. */
export function ThresholdValue({ meters, unit = "m" }: { meters: number | null | undefined; unit?: string }) {
  if (meters == null) {
    return (
      <>
        Not specified<span className="threshold-note"> {NO_THRESHOLD_NOTE}</span>
      </>
    );
  }
  return <>{`${meters} ${unit}`}</>;
}

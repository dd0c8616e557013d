import { useId, useLayoutEffect, useRef, useState, type ReactNode } from "react";

/** A box that scrolls sideways (a wide table on a phone), saying so when its content is cut off at
 * the right: a hint line above it (only while it overflows) and shadows at the edges that have more
 * (resolved.css). It is a labelled, keyboard-focusable region, so the arrow keys scroll it even
 * when nothing inside is focusable. */
export function ScrollRegion({ label, hint, children }: { label: string; hint: string; children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  const [overflows, setOverflows] = useState(false);
  const hintId = useId();
  useLayoutEffect(() => {
    const element = box.current;
    if (!element) return;
    const measure = () => setOverflows(element.scrollWidth > element.clientWidth + 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    if (element.firstElementChild) observer.observe(element.firstElementChild);
    return () => observer.disconnect();
  }, []);
  return (
    <>
      {overflows ? (
        <p className="scroll-hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      <div
        ref={box}
        className="table-scroll"
        role="region"
        aria-label={label}
        {...(overflows ? { "aria-describedby": hintId } : {})}
        tabIndex={0}
      >
        {children}
      </div>
    </>
  );
}

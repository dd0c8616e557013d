/** Runs `task` once the browser is idle after the page has loaded (requestIdleCallback, or a
 * timeout where it is missing), so work the first paint does not need stays out of its way.
 * Returns a function that cancels it. */
export function whenIdle(task: () => void, { timeout = 3000 }: { timeout?: number } = {}): () => void {
  let cancelled = false;
  let idleId: number | undefined;
  let timerId: ReturnType<typeof setTimeout> | undefined;
  const schedule = () => {
    if (cancelled) return;
    if (typeof window.requestIdleCallback === "function") {
      idleId = window.requestIdleCallback(() => {
        if (!cancelled) task();
      }, { timeout });
    } else {
      timerId = setTimeout(() => {
        if (!cancelled) task();
      }, 200);
    }
  };
  const afterLoad = () => schedule();
  if (document.readyState === "complete") schedule();
  else window.addEventListener("load", afterLoad, { once: true });
  return () => {
    cancelled = true;
    window.removeEventListener("load", afterLoad);
    if (idleId !== undefined && typeof window.cancelIdleCallback === "function") window.cancelIdleCallback(idleId);
    if (timerId !== undefined) clearTimeout(timerId);
  };
}

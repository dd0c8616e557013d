import { lazy, Suspense, useState } from "react";
import { useToasts } from "./toast-store";

const Toaster = lazy(() => import("./Toaster").then((m) => ({ default: m.Toaster })));

/** The notification region, outside the initial bundle (Radix Toast and its layers are not
 * needed for the first paint): it loads and mounts with the
 * first toast, which waits in the store until it has, and stays mounted from then on. */
export function LazyToaster() {
  const toasts = useToasts();
  const [wanted, setWanted] = useState(false);
  if (toasts.length > 0 && !wanted) setWanted(true); // state derived from the store, set in render
  if (!wanted && toasts.length === 0) return null;
  return (
    <Suspense fallback={null}>
      <Toaster />
    </Suspense>
  );
}

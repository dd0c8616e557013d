import { lazy, Suspense, useEffect, useState } from "react";
import { whenIdle } from "@/lib/idle";
import { useToasts } from "./toast-store";

const loadToaster = () => import("./Toaster").then((m) => ({ default: m.Toaster }));
const Toaster = lazy(loadToaster);

/** The notification region, loaded outside the initial bundle (Radix Toast and its layers are
 * not needed for the first paint): it mounts once the browser is idle after load, or at once
 * when a toast is raised before that. Toasts raised meanwhile wait in the store and show when
 * it mounts. */
export function LazyToaster() {
  const toasts = useToasts();
  const [idle, setIdle] = useState(false);
  useEffect(() => whenIdle(() => setIdle(true)), []);
  if (!idle && toasts.length === 0) return null;
  return (
    <Suspense fallback={null}>
      <Toaster />
    </Suspense>
  );
}

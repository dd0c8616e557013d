import { useSyncExternalStore } from "react";
import { TOAST_LIMIT, TOAST_REMOVE_DELAY_MS } from "./constants";

/** A tiny toast store (the shadcn/ui pattern): at most TOAST_LIMIT toasts; a new one replaces
 * the oldest; a dismissed toast stays mounted (closed, for its exit) and is removed after
 * TOAST_REMOVE_DELAY_MS. Module-level so any code, not only components, can raise a toast. */

export type ToastVariant = "default" | "destructive" | "success";

export interface ToastInput {
  title: string;
  description?: string;
  variant?: ToastVariant;
}

export interface ToastItem extends ToastInput {
  id: string;
  open: boolean;
}

type Listener = () => void;

let toasts: ToastItem[] = [];
let counter = 0;
const listeners = new Set<Listener>();
const removalTimers = new Map<string, ReturnType<typeof setTimeout>>();

function emit(next: ToastItem[]): void {
  toasts = next;
  for (const listener of listeners) listener();
}

function scheduleRemoval(id: string): void {
  if (removalTimers.has(id)) return;
  removalTimers.set(
    id,
    setTimeout(() => {
      removalTimers.delete(id);
      emit(toasts.filter((t) => t.id !== id));
    }, TOAST_REMOVE_DELAY_MS),
  );
}

export function dismissToast(id?: string): void {
  for (const t of toasts) if (id === undefined || t.id === id) scheduleRemoval(t.id);
  emit(toasts.map((t) => (id === undefined || t.id === id ? { ...t, open: false } : t)));
}

export function toast(input: ToastInput): { id: string; dismiss: () => void } {
  counter += 1;
  const id = String(counter);
  emit([{ ...input, id, open: true }, ...toasts].slice(0, TOAST_LIMIT));
  return { id, dismiss: () => dismissToast(id) };
}

export function getToasts(): ToastItem[] {
  return toasts;
}

/** Tests start from an empty store. */
export function resetToastsForTests(): void {
  for (const timer of removalTimers.values()) clearTimeout(timer);
  removalTimers.clear();
  emit([]);
}

function subscribe(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useToasts(): ToastItem[] {
  return useSyncExternalStore(subscribe, getToasts, getToasts);
}

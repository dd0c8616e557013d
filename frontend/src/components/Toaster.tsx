import * as RadixToast from "@radix-ui/react-toast";
import { useLayoutEffect, useRef } from "react";
import { TOAST_DURATION_MS, TOAST_HOTKEY, TOAST_SWIPE_THRESHOLD_PX } from "./constants";
import { dismissToast, useToasts } from "./toast-store";

/** The notification region: Radix Toast with the spec's constants (5 s, swipe right past 50 px
 * to dismiss, F8 focuses the region; the viewport is at most 420 px wide in main.css). */
export function Toaster() {
  const toasts = useToasts();
  const viewport = useRef<HTMLOListElement>(null);
  useToastRoom(viewport);
  return (
    <RadixToast.Provider
      duration={TOAST_DURATION_MS}
      swipeDirection="right"
      swipeThreshold={TOAST_SWIPE_THRESHOLD_PX}
      label="Notification"
    >
      {toasts.map((t) => (
        <RadixToast.Root
          key={t.id}
          open={t.open}
          onOpenChange={(open) => {
            if (!open) dismissToast(t.id);
          }}
          className={`toast toast-${t.variant ?? "default"}`}
          type={t.variant === "destructive" ? "foreground" : "background"}
        >
          <RadixToast.Title className="toast-title">{t.title}</RadixToast.Title>
          {t.description ? (
            <RadixToast.Description className="toast-description">{t.description}</RadixToast.Description>
          ) : null}
          <RadixToast.Close className="toast-close" aria-label="Close">
            <span aria-hidden="true">×</span>
          </RadixToast.Close>
        </RadixToast.Root>
      ))}
      <RadixToast.Viewport ref={viewport} className="toast-viewport" hotkey={TOAST_HOTKEY} />
    </RadixToast.Provider>
  );
}

/** Publishes the height the open toasts take at the bottom of the screen as --toast-room on <html>
 * (a CSSOM property, which the Content-Security-Policy allows): main.css keeps dialogs above it, so
 * on a phone a toast no longer covers a dialog's buttons and text. */
function useToastRoom(viewport: React.RefObject<HTMLOListElement | null>) {
  useLayoutEffect(() => {
    const list = viewport.current;
    if (!list) return;
    const root = document.documentElement;
    const measure = () => {
      const open = list.querySelector(".toast") !== null;
      root.style.setProperty("--toast-room", `${open ? Math.ceil(list.getBoundingClientRect().height) : 0}px`);
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(list);
    // A toast replaced by one of the same height changes no size; its removal does.
    const mutations = new MutationObserver(measure);
    mutations.observe(list, { childList: true });
    return () => {
      observer.disconnect();
      mutations.disconnect();
      root.style.removeProperty("--toast-room");
    };
  }, [viewport]);
}

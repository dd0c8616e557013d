import * as RadixToast from "@radix-ui/react-toast";
import { TOAST_DURATION_MS, TOAST_HOTKEY, TOAST_SWIPE_THRESHOLD_PX } from "./constants";
import { dismissToast, useToasts } from "./toast-store";

/** The notification region: Radix Toast with the spec's constants (5 s, swipe right past 50 px
 * to dismiss, F8 focuses the region; the viewport is at most 420 px wide in main.css). */
export function Toaster() {
  const toasts = useToasts();
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
      <RadixToast.Viewport className="toast-viewport" hotkey={TOAST_HOTKEY} />
    </RadixToast.Provider>
  );
}

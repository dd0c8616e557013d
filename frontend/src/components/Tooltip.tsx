import * as RadixTooltip from "@radix-ui/react-tooltip";
import type { ReactNode } from "react";
import { TOOLTIP_DELAY_MS, TOOLTIP_SKIP_DELAY_MS } from "./constants";

/** Wrap the app once: tooltips open after 700 ms, and within 300 ms of closing one the next opens at once. */
export function TooltipProvider({ children }: { children: ReactNode }) {
  return (
    <RadixTooltip.Provider delayDuration={TOOLTIP_DELAY_MS} skipDelayDuration={TOOLTIP_SKIP_DELAY_MS}>
      {children}
    </RadixTooltip.Provider>
  );
}

/** A tooltip on a focusable trigger (the child must accept a ref: a button, a link). */
export function Tooltip({ content, children }: { content: ReactNode; children: ReactNode }) {
  return (
    <RadixTooltip.Root>
      <RadixTooltip.Trigger asChild>{children}</RadixTooltip.Trigger>
      <RadixTooltip.Portal>
        <RadixTooltip.Content className="tooltip-content" sideOffset={6}>
          {content}
          <RadixTooltip.Arrow className="tooltip-arrow" />
        </RadixTooltip.Content>
      </RadixTooltip.Portal>
    </RadixTooltip.Root>
  );
}

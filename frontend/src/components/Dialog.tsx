import * as RadixDialog from "@radix-ui/react-dialog";
import type { ReactNode } from "react";

export interface DialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: ReactNode;
  /** Read out with the title; omit when the body says it all. */
  description?: ReactNode;
  children?: ReactNode;
  /** Buttons at the bottom (Cancel/Confirm, OK). */
  actions?: ReactNode;
  /** False while busy: Escape, the overlay and the × do nothing. */
  dismissible?: boolean;
  className?: string;
}

/** A modal dialog on Radix Dialog: focus is trapped (on the close "×" first) and returned to the
 * opener, Escape closes, the title labels it. */
export function Dialog({
  open,
  onOpenChange,
  title,
  description,
  children,
  actions,
  dismissible = true,
  className,
}: DialogProps) {
  return (
    <RadixDialog.Root open={open} onOpenChange={(next) => (dismissible || next ? onOpenChange(next) : undefined)}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="dialog-overlay" />
        <RadixDialog.Content
          className={`dialog-content ${className ?? ""}`}
          {...(description === undefined ? { "aria-describedby": undefined } : {})}
        >
          {/* First: it takes the focus when the dialog opens (a field further down would open a
              phone's keyboard), and it sticks to the top while a long dialog scrolls (main.css). */}
          {dismissible ? (
            <RadixDialog.Close className="dialog-close" aria-label="Close">
              <span aria-hidden="true">×</span>
            </RadixDialog.Close>
          ) : null}
          <RadixDialog.Title className="dialog-title">{title}</RadixDialog.Title>
          {description !== undefined ? (
            <RadixDialog.Description className="dialog-description">{description}</RadixDialog.Description>
          ) : null}
          {children}
          {actions ? <div className="dialog-actions">{actions}</div> : null}
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}

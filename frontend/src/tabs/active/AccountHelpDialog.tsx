import { Dialog } from "@/components/Dialog";
import accountSelectionImage from "./account-selection.svg";

/** The help dialog behind the form's "how to select your account" link. */
export function AccountHelpDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title="Selecting your account in MetaMask"
      description="When you submit, MetaMask asks which account pays the bid. Tick the account that holds your test USDC and test ETH, then press Next and Connect. That account receives any prize."
      actions={
        <button type="button" className="button" onClick={() => onOpenChange(false)}>
          OK
        </button>
      }
    >
      <img
        src={accountSelectionImage}
        width={320}
        height={200}
        className="help-image"
        alt="MetaMask's account picker with Account 1 ticked and the Next button below the list."
      />
    </Dialog>
  );
}

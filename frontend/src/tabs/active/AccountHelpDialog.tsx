import { Dialog } from "@/components/Dialog";
import accountSelectionImage from "./account-selection.svg";

/** The help dialog behind the form's "how to select your account" link. */
export function AccountHelpDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title="Selecting your account in MetaMask"
      description="When you submit, MetaMask asks which account pays the bid into the pot. Tick the account that holds your test USDC (and a little test ETH if you pay by approval: signing needs none), then press Next and Connect. The pot pays any prize to that account."
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

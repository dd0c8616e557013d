import { Dialog } from "@/components/Dialog";
import type { WalletDetail } from "./types";

/** Shown when several wallets announce themselves (EIP-6963): the player picks one. */
export function WalletChooser({
  open,
  wallets,
  onChosen,
}: {
  open: boolean;
  wallets: WalletDetail[];
  onChosen: (wallet: WalletDetail | null) => void;
}) {
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (!next) onChosen(null);
      }}
      title="Choose a wallet"
      description="Several wallets are installed in this browser. Which one should Geopoem use?"
    >
      <ul className="wallet-list">
        {wallets.map((w) => (
          <li key={w.info.uuid}>
            <button type="button" className="button button-secondary button-block" onClick={() => onChosen(w)}>
              {w.info.icon ? <img src={w.info.icon} alt="" width={24} height={24} /> : null}
              {w.info.name}
            </button>
          </li>
        ))}
      </ul>
    </Dialog>
  );
}

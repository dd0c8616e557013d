import { shortAddress } from "@/lib/format";
import { OpenInWalletApp } from "./OpenInWalletApp";
import { useWallet } from "./WalletContext";

/** The header's wallet control: "Connect MetaMask" ("Connecting..." while busy),
 * or a badge with the shortened address once connected. */
export function WalletControl() {
  const { address, connecting, connect } = useWallet();
  if (address) {
    return (
      <span className="badge badge-address" title={address} aria-label={`Connected wallet ${address}`}>
        {shortAddress(address)}
      </span>
    );
  }
  return (
    <span className="wallet-control">
      <button type="button" className="button" onClick={() => void connect()} disabled={connecting}>
        {connecting ? "Connecting..." : "Connect MetaMask"}
      </button>
      <OpenInWalletApp variant="button" />
    </span>
  );
}

import { isMobileDevice, metamaskDappLink } from "./deep-link";
import { useWallet } from "./WalletContext";

/** On a phone whose browser has no wallet, the way on instead of a dead end ("MetaMask is not
 * installed"): open this page in the MetaMask app's browser. Nothing anywhere else. */
export function OpenInWalletApp({ variant = "note" }: { variant?: "note" | "button" }) {
  const { wallets } = useWallet();
  if (wallets.length > 0 || !isMobileDevice()) return null;
  const href = metamaskDappLink();
  if (variant === "button") {
    return (
      <a className="button button-secondary" href={href}>
        Open in MetaMask
      </a>
    );
  }
  return (
    <p className="alert alert-info note open-in-wallet">
      No wallet in this browser. On a phone, play inside the MetaMask app: <a href={href}>open Geopoem in MetaMask</a>{" "}
      (its built-in browser holds your wallet; install the app first if you have not).
    </p>
  );
}

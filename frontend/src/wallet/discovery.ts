import type { EIP1193Provider, WalletDetail } from "./types";

/** EIP-6963 discovery: every wallet extension answers "eip6963:requestProvider" with an
 * "eip6963:announceProvider" event. Wallets that predate it only set window.ethereum, which is
 * the fallback. */

interface AnnounceEvent extends Event {
  detail: WalletDetail;
}

declare global {
  interface Window {
    ethereum?: EIP1193Provider;
  }
}

export const INJECTED_UUID = "injected";

export function injectedWallet(win: Window = window): WalletDetail | null {
  if (!win.ethereum) return null;
  return {
    info: { uuid: INJECTED_UUID, name: "Browser wallet", icon: "", rdns: "" },
    provider: win.ethereum,
  };
}

/** Listens for announcements and calls back with the list so far (announced wallets first,
 * then window.ethereum when no announced wallet is that same object). Returns a stop function. */
export function watchWallets(onChange: (wallets: WalletDetail[]) => void, win: Window = window): () => void {
  const announced = new Map<string, WalletDetail>();
  const publish = () => {
    const list = [...announced.values()];
    const injected = injectedWallet(win);
    if (injected && !list.some((w) => w.provider === injected.provider)) list.push(injected);
    onChange(list);
  };
  const onAnnounce = (event: Event) => {
    const detail = (event as AnnounceEvent).detail;
    if (!detail?.info?.uuid || typeof detail.provider?.request !== "function") return;
    announced.set(detail.info.uuid, detail);
    publish();
  };
  win.addEventListener("eip6963:announceProvider", onAnnounce);
  win.dispatchEvent(new Event("eip6963:requestProvider"));
  publish();
  return () => win.removeEventListener("eip6963:announceProvider", onAnnounce);
}

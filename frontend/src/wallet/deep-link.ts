/** On a phone there are no wallet extensions: MetaMask lives in its own app, whose built-in browser
 * injects the wallet. Its dapp deep link opens this page there (docs/decisions.md, "Wallet on a phone"). */
export function metamaskDappLink(location: Pick<Location, "host" | "pathname" | "search"> = window.location): string {
  return `https://metamask.app.link/dapp/${location.host}${location.pathname}${location.search}`;
}

interface NavigatorWithHints {
  userAgent: string;
  userAgentData?: { mobile?: boolean };
}

/** A phone or tablet: the user-agent client hint when the browser gives it, else the user agent. */
export function isMobileDevice(nav: NavigatorWithHints = navigator as NavigatorWithHints): boolean {
  if (typeof nav.userAgentData?.mobile === "boolean" && nav.userAgentData.mobile) return true;
  return /Android|iPhone|iPad|iPod|Mobile/i.test(nav.userAgent);
}

import type { ReactNode } from "react";
import { Logo } from "@/components/Logo";
import { getPublicConfig } from "@/config";

/** Header (logo, title with the beta badge, wallet control), the red beta note, the content
 * and the footer's copyright line: the spec's page frame. */
export function PageFrame({ wallet, children }: { wallet?: ReactNode; children: ReactNode }) {
  const { chainName } = getPublicConfig();
  return (
    <div className="page">
      <header className="site-header">
        <div className="brand">
          <Logo />
          <h1 className="site-title">
            Geopoem <span className="badge badge-beta">Beta 0.0</span>
          </h1>
        </div>
        <div className="wallet-slot">{wallet}</div>
      </header>
      {/* A landmark of its own: no page content outside landmarks (axe "region"). */}
      <aside className="beta-note" aria-label="Beta notice">
        Beta: Geopoem runs on the {chainName || "test"} network with fake money (test USDC and test ETH). Real money on
        the main network will replace it after the beta.
      </aside>
      <main id="main" className="site-main">
        {children}
      </main>
      <footer className="site-footer">
        <p>© {new Date().getFullYear()} Geopoem. All rights reserved.</p>
      </footer>
    </div>
  );
}

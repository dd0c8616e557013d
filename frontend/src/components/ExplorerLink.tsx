import type { ReactNode } from "react";
import { explorerLink, getPublicConfig } from "@/config";

/** An address or transaction on the configured block explorer, or, on a chain without one (a local
 * chain), the same text without a link: a link to a public explorer that never saw the transaction
 * only leads to "not found". `children` is the link's text; without a link the value itself is shown
 * (or `plain`, when given). */
export function ExplorerLink({
  kind,
  value,
  children,
  plain,
}: {
  kind: "address" | "tx" | "block";
  value: string;
  children?: ReactNode;
  plain?: ReactNode;
}) {
  const href = explorerLink(kind, value, getPublicConfig());
  if (!href) return <span className="mono break">{plain ?? value}</span>;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children ?? value}
    </a>
  );
}

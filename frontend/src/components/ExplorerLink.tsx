import type { ReactNode } from "react";
import { explorerLink, getPublicConfig } from "@/config";

/** An address or transaction on the configured block explorer, or, on a chain without one (a local
 * chain), the same text without a link: a link to a public explorer that never saw the transaction
 * only leads to "not found". `children` is the link's text; without a link the value itself is shown
 * (or `plain`, when given), in the monospace of hashes unless `mono` is false (words such as "block 131"). */
export function ExplorerLink({
  kind,
  value,
  children,
  plain,
  mono = true,
}: {
  kind: "address" | "tx" | "block";
  value: string;
  children?: ReactNode;
  plain?: ReactNode;
  mono?: boolean;
}) {
  const href = explorerLink(kind, value, getPublicConfig());
  if (!href) return mono ? <span className="mono break">{plain ?? value}</span> : <>{plain ?? value}</>;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children ?? value}
    </a>
  );
}

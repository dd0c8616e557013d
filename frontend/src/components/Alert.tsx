import type { ReactNode } from "react";

/** A message box: "error" is announced as an alert, "info" and "warning" are plain notes. */
export function Alert({ tone = "info", children }: { tone?: "info" | "error" | "warning"; children: ReactNode }) {
  return (
    <div className={`alert alert-${tone}`} role={tone === "error" ? "alert" : "status"}>
      {children}
    </div>
  );
}

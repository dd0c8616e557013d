import { StrictMode, startTransition } from "react";
import { createRoot } from "react-dom/client";
import { makeQueryClient } from "@/api";
import { App } from "@/App";
import "@/styles/main.css";

const root = document.getElementById("root");
if (root) {
  // A transition makes the first render concurrent: React yields to the browser every few
  // milliseconds instead of rendering the whole page in one long task (Lighthouse's total
  // blocking time on a throttled phone). Nothing on the page is shown before it anyway.
  startTransition(() => {
    createRoot(root).render(
      <StrictMode>
        <App queryClient={makeQueryClient()} />
      </StrictMode>,
    );
  });
}

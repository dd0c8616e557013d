import { StrictMode, startTransition } from "react";
import { createRoot } from "react-dom/client";
import { makeQueryClient } from "@/api";
import { App } from "@/App";
import { styleNonce } from "@/lib/csp-nonce";
import { trackInputModality } from "@/lib/input-modality";
import "@/styles/main.css";

// Before any lazy chunk runs: the <style> elements libraries inject carry the page's nonce.
__webpack_nonce__ = styleNonce();
trackInputModality();

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

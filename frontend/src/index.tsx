import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { makeQueryClient } from "@/api";
import { App } from "@/App";
import "@/styles/main.css";

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App queryClient={makeQueryClient()} />
    </StrictMode>,
  );
}

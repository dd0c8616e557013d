import "@testing-library/jest-dom/vitest";
import { cleanup, configure } from "@testing-library/react";
import { afterEach, beforeEach } from "vitest";
import { CONFIG_ELEMENT_ID } from "@/config";
import { resetToastsForTests } from "@/components/toast-store";
import { resetKeeperForTests } from "@/wallet/keeper";
import { TEST_CONFIG } from "./fixtures";

// findBy*/waitFor wait up to 5 s (default 1 s): lazy chunks import slowly on a loaded machine.
configure({ asyncUtilTimeout: 5000 });

// jsdom lacks these pointer and layout APIs that Radix's primitives call.
Element.prototype.hasPointerCapture ??= () => false;
Element.prototype.setPointerCapture ??= () => undefined;
Element.prototype.releasePointerCapture ??= () => undefined;
Element.prototype.scrollIntoView ??= () => undefined;
globalThis.ResizeObserver ??= class {
  observe() {}
  unobserve() {}
  disconnect() {}
};

/** Every test page carries the public config the way Django's template does. */
export function installPublicConfig(config: object = TEST_CONFIG): void {
  document.getElementById(CONFIG_ELEMENT_ID)?.remove();
  const script = document.createElement("script");
  script.id = CONFIG_ELEMENT_ID;
  script.type = "application/json";
  script.textContent = JSON.stringify(config);
  document.head.appendChild(script);
}

beforeEach(() => {
  installPublicConfig();
});

afterEach(() => {
  cleanup();
  localStorage.clear();
  resetToastsForTests();
  resetKeeperForTests();
  delete (window as { ethereum?: unknown }).ethereum;
});

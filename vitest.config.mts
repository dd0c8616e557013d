import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: [
      { find: "@", replacement: path.resolve(__dirname, "frontend/src") },
      // ethers' Node build hashes with node:crypto, whose Buffers fail its own instanceof
      // Uint8Array check under jsdom; the browser build (what webpack bundles) uses pure JS.
      { find: /^\.\/crypto\.js$/, replacement: "./crypto-browser.js", customResolver: undefined },
    ],
  },
  esbuild: { jsx: "automatic" },
  test: {
    environment: "jsdom",
    globals: true,
    // scripts/mutate_ts.test.mjs: the TypeScript mutation generator (its setup is the jsdom one, harmless here).
    include: ["frontend/**/*.test.{ts,tsx}", "scripts/**/*.test.mjs"],
    setupFiles: ["frontend/test/setup.ts"],
    css: false,
    server: { deps: { inline: ["ethers"] } },
    // Two cores shared by several engineers: a small pool keeps the run polite.
    maxWorkers: 2,
    // Lazy chunks (ethers, dialogs, Leaflet) load during the tests; on a loaded two-core machine a
    // whole flow can take several seconds. A generous limit keeps slowness from reading as failure.
    testTimeout: 20_000,
  },
});

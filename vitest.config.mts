import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(__dirname, "frontend/src") } },
  esbuild: { jsx: "automatic" },
  test: {
    environment: "jsdom",
    globals: true,
    include: ["frontend/**/*.test.{ts,tsx}"],
    setupFiles: ["frontend/test/setup.ts"],
    css: false,
    // Two cores shared by several engineers: a small pool keeps the run polite.
    maxWorkers: 2,
  },
});

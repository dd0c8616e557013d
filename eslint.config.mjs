// ESLint (flat config): the front end, the e2e suite and the build scripts. Rules that find real
// bugs are errors: React's hooks rules (exhaustive deps included) and jsx-a11y's recommended set.
import js from "@eslint/js";
import jsxA11y from "eslint-plugin-jsx-a11y";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["frontend/build/", "e2e/artifacts/", "staticfiles/", "var/", ".venv/"] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ["frontend/**/*.{ts,tsx}"],
    languageOptions: { globals: globals.browser },
    extends: [reactHooks.configs.flat["recommended-latest"], jsxA11y.flatConfigs.recommended],
    rules: {
      "react-hooks/exhaustive-deps": "error",
      // A scrollable region must take focus so the arrow keys scroll it (axe's scrollable-region-focusable).
      "jsx-a11y/no-noninteractive-tabindex": ["error", { tags: [], roles: ["tabpanel", "region", "application"] }],
    },
  },
  {
    // The pick map is a role="application" widget: its arrow keys move the pin (maps/PickMap.tsx).
    files: ["frontend/src/maps/PickMap.tsx"],
    rules: { "jsx-a11y/no-noninteractive-element-interactions": "off" },
  },
  {
    // A CommonJS script: require() is how it imports.
    files: ["contracts/**/*.js"],
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    // The layers of the front end: tabs/ use maps/, wallet/, api/ and lib/, never the reverse.
    files: ["frontend/src/{maps,wallet,api,lib,components}/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["@/tabs", "@/tabs/*", "**/tabs/*"], message: "tabs/ depend on this folder, not the reverse." },
          ],
        },
      ],
    },
  },
  {
    files: ["**/*.mjs", "**/*.mts"],
    languageOptions: { globals: globals.node },
  },
  {
    files: ["contracts/**/*.js"],
    languageOptions: { sourceType: "commonjs", globals: globals.node },
  },
  {
    // The e2e suite's and the live benchmark's page.evaluate callbacks run in the browser.
    files: ["e2e/**/*.mjs", "bench/**/*.mjs"],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    rules: {
      // `_`-prefixed names are deliberately unused (a parameter a signature needs).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
);

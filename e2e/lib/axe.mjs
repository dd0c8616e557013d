// axe-core, run on the whole document. The page's CSP (script-src 'self') refuses an injected
// <script>, so the library is evaluated through the DevTools protocol, which CSP does not govern.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** axe's violations in the parts `selector` matches (the whole document without one), a line each. */
async function violations(page, selector) {
  if (!(await page.evaluate(() => typeof window.axe !== "undefined"))) await page.evaluate(AXE_SOURCE);
  const { violations } = await page.evaluate(
    (include) => window.axe.run(include ? { include: [include] } : document, { resultTypes: ["violations"] }),
    selector ?? null,
  );
  return violations.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help} — ${v.nodes
        .slice(0, 3)
        .map((n) => n.target.join(" "))
        .join(" | ")}`,
  );
}

export async function assertNoViolations(page, where) {
  assert.deepEqual(await violations(page), [], `axe found violations on ${where}`);
}

/** Only the parts `selector` matches. */
export async function assertNoViolationsIn(page, selector) {
  assert.deepEqual(await violations(page, selector), [], `axe found violations in ${selector}`);
}

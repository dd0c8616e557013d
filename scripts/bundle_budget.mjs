#!/usr/bin/env node
// The initial-bundle budget (docs/decisions.md, "Bundle budget"), run by `make test` right after the build.
//
// Reads webpack-stats.json (webpack-bundle-tracker), takes the files of the entry chunk only
// ("main": what the page's <script>/<link> tags load before anything renders; lazy chunks are
// fetched on demand and do not count), gzips each JS and CSS file at level 9 (what whitenoise's
// CompressedManifestStaticFilesStorage serves) and fails when the sum is above the budget.
//
//   node scripts/bundle_budget.mjs [--stats frontend/webpack-stats.json] [--chunk main] [--budget-kb 150] [--json]
//
// 1 KB = 1000 bytes. Exit 0 within budget, 1 above it, 2 when the stats cannot be read.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync, constants } from "node:zlib";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function option(args, name, fallback) {
  const index = args.indexOf(name);
  return index >= 0 && index + 1 < args.length ? args[index + 1] : fallback;
}

export function measure({ statsPath, chunk = "main" }) {
  const stats = JSON.parse(readFileSync(statsPath, "utf8"));
  if (stats.status !== "done") throw new Error(`${statsPath}: the build is not done (status ${stats.status})`);
  const names = stats.chunks?.[chunk];
  if (!Array.isArray(names) || names.length === 0) throw new Error(`${statsPath}: no entry chunk "${chunk}"`);
  const files = names
    .filter((name) => /\.(js|css)$/.test(name))
    .map((name) => {
      const asset = stats.assets?.[name];
      // The stats record absolute paths of the machine that built them; fall back to the build folder next to the stats.
      const candidates = [asset?.path, path.join(path.dirname(statsPath), "build", name)].filter(Boolean);
      let bytes;
      for (const candidate of candidates) {
        try {
          bytes = readFileSync(candidate);
          break;
        } catch {
          /* try the next place */
        }
      }
      if (!bytes) throw new Error(`${name}: not found (${candidates.join(", ")})`);
      return { name, raw: bytes.length, gzip: gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION }).length };
    });
  const total = files.reduce((sum, file) => sum + file.gzip, 0);
  return { chunk, files, gzipBytes: total };
}

function main(args) {
  const statsPath = path.resolve(option(args, "--stats", path.join(ROOT, "frontend", "webpack-stats.json")));
  const budgetKb = Number(option(args, "--budget-kb", "150"));
  let result;
  try {
    result = measure({ statsPath, chunk: option(args, "--chunk", "main") });
  } catch (error) {
    console.error(`bundle budget: ${error.message}`);
    return 2;
  }
  const budgetBytes = Math.round(budgetKb * 1000);
  const within = result.gzipBytes <= budgetBytes;
  if (args.includes("--json")) {
    console.log(JSON.stringify({ ...result, budgetBytes, within }));
  } else {
    for (const file of result.files) console.log(`  ${file.name}: ${file.raw} B, ${file.gzip} B gzipped`);
    const kb = (result.gzipBytes / 1000).toFixed(1);
    console.log(`bundle budget: initial JS+CSS of "${result.chunk}" is ${kb} KB gzipped (budget ${budgetKb} KB)`);
  }
  if (!within) {
    console.error(
      `bundle budget: FAILED, ${result.gzipBytes} B gzipped is over ${budgetBytes} B; lazy-load what the first paint does not need`,
    );
    return 1;
  }
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}

#!/usr/bin/env node
// The Solidity compiler for forge (foundry.toml, `solc`): the npm package `solc` that package.json
// pins, behind solc's command line. forge cannot download a compiler on these machines; it asks this
// script for `--version` and compiles through `--standard-json` (the input on stdin, the output on
// stdout), so forge and contracts/compile.js compile with the very same compiler.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";

const require = createRequire(import.meta.url);
const solc = require("solc");
const args = process.argv.slice(2);

if (args.includes("--version")) {
  // forge reads the version from the line "Version: X.Y.Z+commit.…".
  console.log("solc, the solidity compiler commandline interface");
  console.log(`Version: ${solc.version()}`);
  process.exit(0);
}
if (!args.includes("--standard-json")) {
  console.error("contracts/tools/solc.mjs: only --version and --standard-json are supported");
  process.exit(2);
}

// Sources forge did not inline are read from disk, relative to --base-path (or the working directory)
// and the --include-path folders.
const base = args.includes("--base-path") ? args[args.indexOf("--base-path") + 1] : process.cwd();
const includes = args.flatMap((a, i) => (a === "--include-path" ? [args[i + 1]] : []));
function findImports(importPath) {
  for (const root of [base, ...includes]) {
    try {
      return { contents: readFileSync(path.resolve(root, importPath), "utf8") };
    } catch {
      // try the next root
    }
  }
  return { error: `File not found: ${importPath}` };
}

const input = readFileSync(0, "utf8");
process.stdout.write(solc.compile(input, { import: findImports }));

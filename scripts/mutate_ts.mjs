/**
 * The TypeScript half of `make mutate` (scripts/mutate.py is the Python half): small realistic bugs,
 * one at a time, in the page's own verifier and its helpers; each must make one of the module's
 * tests fail. Survivors go to var/mutate/report-ts.txt (the format of var/mutate/report.txt).
 *
 * Operators (inside functions only, like scripts/mutate.py): comparison flipped (< <=, > >=,
 * === !==, == !=), && / || swapped, `!` dropped, + - * / swapped on numbers (a `+` with a string
 * operand, by its literal or by the type checker, is concatenation and left alone), an integer
 * literal +1 (bigint too: 40n -> 41n), true / false swapped, `return x` -> `return undefined` (not
 * `return null`, which every caller here reads with `!` or `??`; and the expression body of a
 * top-level `const f = (...) => expr` -> undefined). Never touched: import and export
 * declarations, string literals and template text, types (annotations, interfaces, aliases,
 * `as` and type arguments), console calls, and the messages shown to people: a call's or a `new`'s
 * argument that is a string (a literal, a template, a concatenation, a choice between strings).
 * Each change is a text edit at the position the TypeScript parser gives, so the rest of the file
 * is byte for byte the original; a mutant that would not parse is dropped.
 *
 * How each mutant runs: the mutated text is written over the module (the original is kept in memory
 * and in var/mutate/<module>.orig, put back in a `finally`, on SIGINT / SIGTERM and on exit; a
 * left-over .orig file stops the next run until `--restore` puts it back), then the module's tests
 * run with bail 1: killed when they fail, survived when they pass; a run over --timeout seconds
 * (default 60) is killed and counted "killed by timeout". Sequential: two cores, one module file.
 *
 * Runner, measured on the page verifier's two test files of the time (2026-11-25): `npx vitest run <tests>
 * --bail=1 --reporter=dot` starts a new process per mutant, 3.5 s for a passing run at load average
 * 0.1; vitest's node API (`createVitest` once, then `invalidateFile` + `runTestFiles` per mutant)
 * takes 2.2 s for a passing run and 0.9 s for a failing one. The same 8 sampled mutants at load
 * average 6: 37.7 s with the command line, 20.7 s with the node API. So the default (`--runner api`)
 * keeps one vitest in a child process (this file with `--serve`) for the whole module: the parent
 * writes the file and asks the child to run; on a timeout the child's process group is killed and a
 * new child started, so an endless loop in a mutant cannot hang the run. Each run still starts fresh
 * test workers (vitest's isolation), so no state passes from one mutant to the next; the original
 * is run again at the end as a check. `--runner cli` runs the npx command line per mutant instead.
 *
 * Usage: node scripts/mutate_ts.mjs [--list] [--sample N --seed S] [--runner api|cli] [file ...]
 *        node scripts/mutate_ts.mjs --restore      (put back a module a crashed run left mutated)
 * Default files: every key of TARGETS. */

import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import ts from "typescript";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const REPORT_DIR = path.join(ROOT, "var", "mutate");

/** Module -> the tests that guard it. */
export const TARGETS = {
  // The page's verifier: its rules of winners and money are held here to the shared vectors; its reading
  // and checks of a site and a chain run under node against anvil from the Python tests
  // (chain/tests/verify/), which this runner cannot use.
  "frontend/src/lib/verify/rules.ts": ["frontend/src/lib/verify/verify.test.ts"],
  "frontend/src/lib/commitment.ts": ["frontend/src/lib/commitment.test.ts", "frontend/src/lib/vectors.test.ts"],
  "frontend/src/lib/coordinates.ts": ["frontend/src/lib/vectors.test.ts"],
  // The pot's rules the page computes as the contract does: held to the shared vectors.
  "frontend/src/lib/protocol/geometry.ts": ["frontend/src/lib/protocol/geometry.test.ts"],
  "frontend/src/lib/protocol/commitment.ts": ["frontend/src/lib/protocol/commitment.test.ts"],
  "frontend/src/lib/protocol/encoding.ts": ["frontend/src/lib/protocol/encoding.test.ts"],
};

const K = ts.SyntaxKind;
const SWAPS = new Map([
  [K.LessThanToken, "<="],
  [K.LessThanEqualsToken, "<"],
  [K.GreaterThanToken, ">="],
  [K.GreaterThanEqualsToken, ">"],
  [K.EqualsEqualsEqualsToken, "!=="],
  [K.ExclamationEqualsEqualsToken, "==="],
  [K.EqualsEqualsToken, "!="],
  [K.ExclamationEqualsToken, "=="],
  [K.AmpersandAmpersandToken, "||"],
  [K.BarBarToken, "&&"],
  [K.PlusToken, "-"],
  [K.MinusToken, "+"],
  [K.AsteriskToken, "/"],
  [K.SlashToken, "*"],
]);
const LOG_METHODS = new Set(["log", "debug", "info", "warn", "warning", "error", "trace"]);
const STRING_METHODS = new Set(["toString", "toFixed", "padStart", "padEnd", "toLowerCase", "toUpperCase"]);

const unparen = (node) => (ts.isParenthesizedExpression(node) ? unparen(node.expression) : node);

/** A string by its syntax: a literal, a template, a concatenation, String(x), x.toFixed(...), a choice of strings. */
export function isStringy(raw) {
  const node = unparen(raw);
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node))
    return true;
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === K.PlusToken) {
    return isStringy(node.left) || isStringy(node.right);
  }
  if (ts.isConditionalExpression(node)) return isStringy(node.whenTrue) && isStringy(node.whenFalse);
  if (ts.isCallExpression(node)) {
    const callee = node.expression;
    if (ts.isIdentifier(callee) && callee.text === "String") return true;
    if (ts.isPropertyAccessExpression(callee) && STRING_METHODS.has(callee.name.text)) return true;
  }
  return false;
}

function isLogCall(node) {
  if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return false;
  const { expression: object, name } = node.expression;
  return (ts.isIdentifier(object) && object.text === "console") || LOG_METHODS.has(name.text);
}

function isSkippedDeclaration(node) {
  return (
    ts.isImportDeclaration(node) ||
    ts.isImportEqualsDeclaration(node) ||
    ts.isExportDeclaration(node) ||
    ts.isExportAssignment(node) ||
    ts.isInterfaceDeclaration(node) ||
    ts.isTypeAliasDeclaration(node) ||
    ts.isEnumDeclaration(node) ||
    ts.isModuleDeclaration(node) ||
    ts.isTypeNode(node) ||
    ts.isTypeParameterDeclaration(node) ||
    ts.isHeritageClause(node) ||
    ts.isDecorator(node)
  );
}

/** `n + 1` written the way the literal was (hex stays hex, a bigint keeps its n); null for a non-integer. */
export function incremented(text) {
  const bigint = text.endsWith("n");
  const digits = (bigint ? text.slice(0, -1) : text).replace(/_/g, "");
  const prefix = /^0[xXbBoO]/.test(digits) ? digits.slice(0, 2) : "";
  if (!prefix && !/^[0-9]+$/.test(digits)) return null; // 0.5, 1e3
  const radix = { "": 10, x: 16, b: 2, o: 8 }[prefix.slice(1).toLowerCase()];
  const value = BigInt(digits) + 1n;
  return `${prefix}${value.toString(radix)}${bigint ? "n" : ""}`;
}

let typeProgramCache = null;

/** A type checker over `source` as if it were `fileName` (the repository's tsconfig.json, so `@/`
 * imports resolve): tells a string `+` the syntax cannot (`SELECTOR + words.slice(2)`). */
function typeCheckerFor(fileName, source) {
  if (!typeProgramCache) {
    const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} };
    const parsed = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, "tsconfig.json"), {}, host);
    typeProgramCache = { options: { ...parsed.options, types: [], noEmit: true } };
  }
  const absolute = path.resolve(ROOT, fileName);
  const compilerHost = ts.createCompilerHost(typeProgramCache.options);
  const getSourceFile = compilerHost.getSourceFile.bind(compilerHost);
  compilerHost.getSourceFile = (name, languageVersion, ...rest) =>
    path.resolve(name) === absolute
      ? ts.createSourceFile(name, source, languageVersion, true)
      : getSourceFile(name, languageVersion, ...rest);
  const fileExists = compilerHost.fileExists.bind(compilerHost);
  compilerHost.fileExists = (name) => path.resolve(name) === absolute || fileExists(name);
  const program = ts.createProgram({ rootNames: [absolute], options: typeProgramCache.options, host: compilerHost });
  return { sourceFile: program.getSourceFile(absolute), checker: program.getTypeChecker() };
}

/**
 * The mutants of one module's text: [{ number, line, function, change, start, end, replacement, at }]
 * in source order (`at`: where the change is; [start, end) is the text replaced). `typed: true` also asks the type checker whether a `+` joins strings.
 */
export function mutantsOf(source, { fileName = "module.ts", typed = false } = {}) {
  let sourceFile;
  let checker = null;
  if (typed) ({ sourceFile, checker } = typeCheckerFor(fileName, source));
  else sourceFile = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found = [];
  const add = (fn, start, end, replacement, change, at = start) => {
    const line = sourceFile.getLineAndCharacterOfPosition(at).line + 1;
    found.push({ number: 0, line, function: fn, change, start, end, replacement, at });
  };
  const isStringTyped = (node) => {
    if (!checker) return false;
    const type = checker.getTypeAtLocation(node);
    return (type.flags & ts.TypeFlags.StringLike) !== 0;
  };

  const functionName = (node, outer) => {
    if (outer) return outer; // a callback or inner function belongs to the top-level function
    if (node.name && ts.isIdentifier(node.name)) {
      const owner = node.parent && ts.isClassLike(node.parent) && node.parent.name ? `${node.parent.name.text}.` : "";
      return owner + node.name.text;
    }
    const parent = node.parent;
    if ((ts.isVariableDeclaration(parent) || ts.isPropertyDeclaration(parent)) && ts.isIdentifier(parent.name)) {
      const owner = ts.isPropertyDeclaration(parent) && parent.parent.name ? `${parent.parent.name.text}.` : "";
      return owner + parent.name.text;
    }
    return "<anonymous>";
  };

  const mutate = (node, fn) => {
    if (ts.isBinaryExpression(node) && SWAPS.has(node.operatorToken.kind)) {
      const token = node.operatorToken;
      const concatenation =
        token.kind === K.PlusToken && (isStringy(node.left) || isStringy(node.right) || isStringTyped(node));
      const text = token.getText(sourceFile);
      const swap = SWAPS.get(token.kind);
      const at = token.getStart(sourceFile);
      if (token.kind === K.AmpersandAmpersandToken || token.kind === K.BarBarToken) {
        // In parentheses: `a && b && c` with its first && swapped is `(a || b) && c`, not `a || b && c`.
        const start = node.getStart(sourceFile);
        const swapped = `(${source.slice(start, at)}${swap}${source.slice(token.end, node.end)})`;
        add(fn, start, node.end, swapped, `${text} -> ${swap}`, at);
      } else if (!concatenation) {
        add(fn, at, token.end, swap, `${text} -> ${swap}`);
      }
    } else if (ts.isPrefixUnaryExpression(node) && node.operator === K.ExclamationToken) {
      const start = node.getStart(sourceFile);
      add(fn, start, start + 1, "", "! dropped");
    } else if (node.kind === K.TrueKeyword || node.kind === K.FalseKeyword) {
      const value = node.kind === K.TrueKeyword;
      add(fn, node.getStart(sourceFile), node.end, String(!value), `${value} -> ${!value}`);
    } else if (ts.isNumericLiteral(node) || ts.isBigIntLiteral(node)) {
      const text = node.getText(sourceFile);
      const next = incremented(text);
      const isName = node.parent && (ts.isPropertyAssignment(node.parent) || ts.isPropertyDeclaration(node.parent));
      if (next !== null && !(isName && node.parent.name === node)) {
        add(fn, node.getStart(sourceFile), node.end, next, `${text} -> ${next}`);
      }
    } else if (ts.isReturnStatement(node) && node.expression) {
      const value = unparen(node.expression);
      const empty = (ts.isIdentifier(value) && value.text === "undefined") || value.kind === K.NullKeyword;
      if (!empty && !ts.isVoidExpression(value)) {
        add(fn, node.expression.getStart(sourceFile), node.expression.end, "undefined", "return undefined");
      }
    }
  };

  const visit = (node, fn) => {
    if (isSkippedDeclaration(node) || isLogCall(node) || ts.isTaggedTemplateExpression(node)) return;
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const topLevel = fn === null;
      const name = functionName(node, fn);
      if (topLevel && ts.isArrowFunction(node) && !ts.isBlock(node.body) && ts.isVariableDeclaration(node.parent)) {
        const body = unparen(node.body);
        if (!(ts.isIdentifier(body) && body.text === "undefined")) {
          add(name, node.body.getStart(sourceFile), node.body.end, "undefined", "return undefined");
        }
      }
      ts.forEachChild(node, (child) => visit(child, name));
      return;
    }
    if (ts.isAsExpression(node) || ts.isSatisfiesExpression(node) || ts.isTypeAssertionExpression(node)) {
      visit(node.expression, fn);
      return;
    }
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      visit(node.expression, fn);
      for (const argument of node.arguments ?? []) if (!isStringy(argument)) visit(argument, fn);
      return;
    }
    if (fn !== null) mutate(node, fn);
    ts.forEachChild(node, (child) => visit(child, fn));
  };
  ts.forEachChild(sourceFile, (child) => visit(child, null));

  found.sort((a, b) => a.at - b.at);
  const parses = found.filter((m) => {
    const text = applyMutant(source, m);
    const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
    return file.parseDiagnostics.length === 0;
  });
  parses.forEach((m, i) => (m.number = i + 1));
  return parses;
}

export function applyMutant(source, { start, end, replacement }) {
  return source.slice(0, start) + replacement + source.slice(end);
}

/** A deterministic sample of `count` mutants (mulberry32 shuffle by `seed`), kept in source order. */
export function sample(mutants, count, seed) {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const order = mutants.map((m) => [random(), m]);
  order.sort((a, b) => a[0] - b[0]);
  return order
    .slice(0, count)
    .map(([, m]) => m)
    .sort((a, b) => a.number - b.number);
}

// --- Running the tests -----------------------------------------------------------------------

const backupPath = (module) => path.join(REPORT_DIR, `${module.replaceAll("/", "_")}.orig`);

/** One vitest for the whole module, in a child process of its own (`--serve`). */
class ApiRunner {
  constructor(module, tests) {
    this.module = path.join(ROOT, module);
    this.tests = tests.map((t) => path.join(ROOT, t));
    this.child = null;
  }

  async start() {
    const log = fs.openSync(path.join(REPORT_DIR, "vitest-ts.log"), "a");
    const script = fileURLToPath(import.meta.url);
    this.child = spawn(process.execPath, [script, "--serve", ...this.tests], {
      cwd: ROOT,
      detached: true, // its own process group: a timeout kills vitest's workers with it
      stdio: ["ignore", log, log, "ipc"],
    });
    fs.closeSync(log);
    this.pending = null;
    this.child.on("message", (message) => this.pending?.(message));
    this.child.on("exit", () => this.pending?.({ type: "exit" }));
    const ready = await this.#next(120_000);
    if (ready.type !== "ready") throw new Error(`vitest did not start (${ready.type}); see var/mutate/vitest-ts.log`);
  }

  #next(timeoutMs) {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ type: "timeout" }), timeoutMs);
      this.pending = (message) => {
        clearTimeout(timer);
        this.pending = null;
        resolve(message);
      };
    });
  }

  /** "failed", "passed" or "timeout". */
  async run(timeoutMs) {
    if (!this.child) await this.start();
    this.child.send({ type: "run", module: this.module });
    const answer = await this.#next(timeoutMs);
    if (answer.type === "result") return answer.failed ? "failed" : "passed";
    this.stop();
    return answer.type === "timeout" ? "timeout" : "failed";
  }

  stop() {
    if (!this.child) return;
    try {
      process.kill(-this.child.pid, "SIGKILL");
    } catch {
      // already gone
    }
    this.child = null;
  }
}

/** `npx vitest run <tests> --bail=1 --reporter=dot`, a new process per mutant. */
class CliRunner {
  constructor(_module, tests) {
    this.tests = tests;
  }

  run(timeoutMs) {
    return new Promise((resolve) => {
      const child = spawn("npx", ["vitest", "run", ...this.tests, "--bail=1", "--reporter=dot"], {
        cwd: ROOT,
        detached: true,
        stdio: "ignore",
      });
      this.child = child;
      const timer = setTimeout(() => {
        this.stop();
        resolve("timeout");
      }, timeoutMs);
      child.on("exit", (code) => {
        clearTimeout(timer);
        this.child = null;
        resolve(code === 0 ? "passed" : "failed");
      });
    });
  }

  stop() {
    if (!this.child) return;
    try {
      process.kill(-this.child.pid, "SIGKILL");
    } catch {
      // already gone
    }
    this.child = null;
  }
}

/** The child of ApiRunner: one vitest, a run of the test files per message. */
async function serve(tests) {
  const { createVitest } = await import("vitest/node");
  const vitest = await createVitest("test", { watch: false, bail: 1, reporters: [{}], root: ROOT });
  await vitest.standalone();
  process.on("message", async (message) => {
    if (message.type !== "run") return;
    vitest.invalidateFile(message.module);
    const result = await vitest.runTestFiles(tests);
    const failed = result.unhandledErrors.length > 0 || result.testModules.some((m) => m.state() !== "passed");
    process.send({ type: "result", failed });
  });
  process.on("disconnect", () => process.exit(0));
  process.send({ type: "ready" });
}

// --- The command line ------------------------------------------------------------------------

let current = null; // { file, original, runner } while a module is mutated

function restoreCurrent() {
  if (!current) return;
  fs.writeFileSync(current.file, current.original);
  fs.rmSync(current.backup, { force: true });
  current.runner?.stop();
  current = null;
}

async function mutateModule(module, mutants, { runnerKind, timeoutMs }) {
  const file = path.join(ROOT, module);
  const original = fs.readFileSync(file, "utf8");
  const backup = backupPath(module);
  const tests = TARGETS[module];
  const runner = runnerKind === "cli" ? new CliRunner(module, tests) : new ApiRunner(module, tests);
  fs.writeFileSync(backup, original);
  current = { file, original, backup, runner };
  const results = [];
  try {
    const baseline = await runner.run(timeoutMs);
    if (baseline !== "passed") return { baseline, results };
    for (const mutant of mutants) {
      fs.writeFileSync(file, applyMutant(original, mutant));
      const started = performance.now();
      const outcome = await runner.run(timeoutMs);
      fs.writeFileSync(file, original);
      const seconds = (performance.now() - started) / 1000;
      results.push({ ...mutant, outcome, seconds });
      const shown = outcome === "failed" ? "killed" : outcome === "timeout" ? "killed by timeout" : "SURVIVED";
      console.log(
        `  #${mutant.number} line ${mutant.line} ${mutant.function}: ${mutant.change}: ${shown} (${seconds.toFixed(1)} s)`,
      );
    }
    fs.writeFileSync(file, original);
    const after = await runner.run(timeoutMs); // the original still passes: no state left behind
    return { baseline, after, results };
  } finally {
    restoreCurrent();
  }
}

function onSignal(signal, code) {
  process.on(signal, () => {
    restoreCurrent();
    console.error(`mutate_ts: ${signal}, the original module is back`);
    process.exit(code);
  });
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      list: { type: "boolean", default: false },
      restore: { type: "boolean", default: false },
      serve: { type: "boolean", default: false },
      sample: { type: "string" },
      seed: { type: "string", default: "1" },
      runner: { type: "string", default: "api" },
      timeout: { type: "string", default: "60" },
    },
  });
  if (values.serve) return serve(positionals);
  fs.mkdirSync(REPORT_DIR, { recursive: true });
  const modules = positionals.length
    ? positionals.map((m) => path.relative(ROOT, path.resolve(m)))
    : Object.keys(TARGETS);
  if (values.restore) {
    for (const module of Object.keys(TARGETS)) {
      if (fs.existsSync(backupPath(module))) {
        fs.copyFileSync(backupPath(module), path.join(ROOT, module));
        fs.rmSync(backupPath(module));
        console.log(`restored ${module}`);
      }
    }
    return 0;
  }
  for (const module of modules) {
    if (!TARGETS[module]) throw new Error(`${module} is not in TARGETS (scripts/mutate_ts.mjs)`);
    const backup = backupPath(module);
    if (!values.list && fs.existsSync(backup)) {
      if (fs.readFileSync(backup, "utf8") !== fs.readFileSync(path.join(ROOT, module), "utf8")) {
        console.error(`${backup} exists: an earlier run stopped with ${module} mutated. Run with --restore first.`);
        return 2;
      }
      fs.rmSync(backup);
    }
  }
  onSignal("SIGINT", 130);
  onSignal("SIGTERM", 143);
  process.on("exit", restoreCurrent);

  const summary = [];
  for (const module of modules) {
    const source = fs.readFileSync(path.join(ROOT, module), "utf8");
    const all = mutantsOf(source, { fileName: module, typed: true });
    const chosen = values.sample ? sample(all, Number(values.sample), Number(values.seed)) : all;
    const of = values.sample ? ` (a sample of ${chosen.length} of ${all.length}, seed ${values.seed})` : "";
    if (values.list) {
      for (const m of chosen) console.log(`${module}:${m.line} #${m.number} ${m.function}: ${m.change}`);
      summary.push(`${module}: ${chosen.length} mutants${of}`);
      continue;
    }
    console.log(`== ${module}: ${chosen.length} mutants${of}, tests: ${TARGETS[module].join(" ")}`);
    const started = performance.now();
    const { baseline, after, results } = await mutateModule(module, chosen, {
      runnerKind: values.runner,
      timeoutMs: Number(values.timeout) * 1000,
    });
    const seconds = Math.round((performance.now() - started) / 1000);
    if (baseline !== "passed") {
      summary.push(`${module}: the baseline run ${baseline} (the tests do not pass on the original)`);
      continue;
    }
    const survivors = results.filter((r) => r.outcome === "passed");
    const timeouts = results.filter((r) => r.outcome === "timeout");
    summary.push(
      `${module}: ${results.length} mutants${of}, ${results.length - survivors.length} killed, ` +
        `${survivors.length} survived (${seconds} s)`,
    );
    summary.push(...survivors.map((s) => `  survivor #${s.number} line ${s.line} ${s.function}: ${s.change}`));
    summary.push(...timeouts.map((s) => `  killed by timeout #${s.number} line ${s.line} ${s.function}: ${s.change}`));
    if (after !== "passed") summary.push(`  warning: the original failed its tests after the run (${after})`);
  }
  const report = summary.join("\n");
  if (!values.list) fs.writeFileSync(path.join(REPORT_DIR, "report-ts.txt"), `${report}\n`);
  console.log(report);
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().then(
    (code) => {
      if (code !== undefined) process.exitCode = code;
    },
    (error) => {
      restoreCurrent();
      console.error(error);
      process.exitCode = 1;
    },
  );
}

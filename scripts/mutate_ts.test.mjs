// The mutation generator of scripts/mutate_ts.mjs: the mutants it makes, and what it never touches.
import { describe, expect, it } from "vitest";
import ts from "typescript";
import { applyMutant, incremented, mutantsOf, sample } from "./mutate_ts.mjs";

const SOURCE = `import { helper } from "./helper";
export { helper };
export const LIMIT = 10;
export interface Shape { size: 3; name: string }
type Pair = [1, 2];

export function check(a: number, b: number, ok: boolean): string | null {
  if (a < b && !ok) return null;
  console.log("a is", a + 1);
  if (a === 0) throw new Error("a must not be " + (b - 1));
  const units = (10n * 40n) as bigint;
  const label = \`\${a * b} units\` + units;
  return label;
}

const double = (x: number) => x * 2;
const flag = () => true;
`;

const changes = (source, options) => mutantsOf(source, options).map((m) => `${m.line} ${m.function}: ${m.change}`);

describe("mutantsOf", () => {
  it("makes the expected mutants, in source order", () => {
    expect(changes(SOURCE)).toEqual([
      "8 check: < -> <=",
      "8 check: && -> ||",
      "8 check: ! dropped",
      "10 check: === -> !==",
      "10 check: 0 -> 1",
      "11 check: 10n -> 11n",
      "11 check: * -> /",
      "11 check: 40n -> 41n",
      "12 check: * -> /", // inside a template that is a value, not a message
      "13 check: return undefined",
      "16 double: return undefined",
      "16 double: * -> /",
      "16 double: 2 -> 3",
      "17 flag: return undefined",
      "17 flag: true -> false",
    ]);
  });

  it("never touches imports, exports, strings, templates, types, console calls or messages", () => {
    const untouchable = [
      'import { helper } from "./helper";',
      "export { helper };",
      "export const LIMIT = 10;",
      "export interface Shape { size: 3; name: string }",
      "type Pair = [1, 2];",
      "a: number, b: number, ok: boolean): string | null {",
      "return null;",
      'console.log("a is", a + 1);',
      'throw new Error("a must not be " + (b - 1));',
      "as bigint",
      " units` + units;",
      "(x: number)",
    ];
    const ranges = untouchable.map((text) => {
      const start = SOURCE.indexOf(text);
      expect(start, text).toBeGreaterThanOrEqual(0);
      return [start, start + text.length, text];
    });
    for (const mutant of mutantsOf(SOURCE)) {
      // The characters that differ (an && swap rewrites its whole expression, in parentheses).
      const text = applyMutant(SOURCE, mutant);
      let first = 0;
      while (SOURCE[first] === text[first]) first++;
      let fromEnd = 0;
      while (SOURCE.at(-1 - fromEnd) === text.at(-1 - fromEnd) && fromEnd < SOURCE.length - first) fromEnd++;
      const last = SOURCE.length - fromEnd;
      for (const [start, end, kept] of ranges) {
        expect(first < end && start < Math.max(last, first + 1), `#${mutant.number} ${mutant.change}: ${kept}`).toBe(
          false,
        );
      }
    }
  });

  it("swaps && inside parentheses so the rest of a chain keeps its meaning", () => {
    const [mutant] = mutantsOf("function f(a, b, c) { if (a && b && c) g(); }").filter((m) => m.change === "&& -> ||");
    expect(applyMutant("function f(a, b, c) { if (a && b && c) g(); }", mutant)).toBe(
      "function f(a, b, c) { if ((a || b) && c) g(); }",
    );
  });

  it("every mutant parses and changes the text", () => {
    for (const mutant of mutantsOf(SOURCE)) {
      const text = applyMutant(SOURCE, mutant);
      expect(text).not.toBe(SOURCE);
      const file = ts.createSourceFile("m.ts", text, ts.ScriptTarget.Latest);
      expect(file.parseDiagnostics, `#${mutant.number}`).toEqual([]);
    }
  });

  it("leaves a + alone that the type checker knows joins strings", () => {
    const source =
      'const SELECTOR = "0xa9059cbb";\nexport function data(words: string) { return SELECTOR + words.slice(2); }\n';
    const fileName = "frontend/src/lib/__mutate_probe__.ts"; // not on disk: the checker reads `source`
    expect(changes(source, { fileName })).toContain("2 data: + -> -");
    expect(changes(source, { fileName, typed: true })).toEqual(["2 data: return undefined", "2 data: 2 -> 3"]);
  });
});

describe("helpers", () => {
  it("increments integer literals the way they were written", () => {
    expect(["0", "99", "10_000", "0x1f", "0b11", "40n", "0xffn", "0.5", "1e3"].map(incremented)).toEqual([
      "1",
      "100",
      "10001",
      "0x20",
      "0b100",
      "41n",
      "0x100n",
      null,
      null,
    ]);
  });

  it("samples the same mutants for the same seed, in source order", () => {
    const all = mutantsOf(SOURCE);
    const first = sample(all, 5, 7).map((m) => m.number);
    expect(sample(all, 5, 7).map((m) => m.number)).toEqual(first);
    expect(first).toHaveLength(5);
    expect([...first].sort((a, b) => a - b)).toEqual(first);
    expect(sample(all, 5, 8).map((m) => m.number)).not.toEqual(first);
  });
});

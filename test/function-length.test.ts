/**
 * Every function in the {@link ROOTS} fits on a screen: under {@link FUNCTION_LINE_LIMIT} lines, tests aside.
 * A longer one is split into named steps. The table below proves the check can fail.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { FUNCTION_LINE_LIMIT, longFunctions } from "./support/function-length";

const repoRoot = path.resolve(__dirname, "..");

/** The folders whose functions are held to the limit, one a line. */
const ROOTS = ["src", "toolchain/src", "bench", "tools"];

/** Folders under a root that hold no source of the project: installed packages, build output, scratch. */
const SKIPPED = new Set(["node_modules", "dist", "tmp", "peers"]);

/** The TypeScript and JavaScript sources under `root` (a path from the repository root), tests and declarations aside. */
function sourcesUnder(root: string): string[] {
  return fs.readdirSync(path.join(repoRoot, root), { withFileTypes: true }).flatMap((entry) => {
    const file = `${root}/${entry.name}`;
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : sourcesUnder(file);
    return /\.[jt]s$/.test(file) && !file.endsWith(".test.ts") && !file.endsWith(".d.ts") ? [file] : [];
  });
}

/** A body of `n` statement lines. */
const body = (n: number): string => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join("\n");

describe("function length", () => {
  it.each([
    ["a declaration at the limit", `function long() {\n${body(FUNCTION_LINE_LIMIT - 2)}\n}`, ["long"]],
    ["an arrow assigned to a const", `const arrow = () => {\n${body(90)}\n};`, ["arrow"]],
    ["a method", `class C {\n  method() {\n${body(90)}\n  }\n}`, ["method"]],
    ["nothing in a function one line under the limit", `function fits() {\n${body(FUNCTION_LINE_LIMIT - 3)}\n}`, []],
    ["a long callback and the function around it", `function outer() {\n[1].map(() => {\n${body(90)}\n});\n}`, ["outer", "<anonymous>"]],
  ])("finds %s", (_label, source, names) => {
    expect(longFunctions(source).map((found) => found.name)).toEqual(names);
  });

  it(`keeps every function of ${ROOTS.join("/, ")}/ under ${FUNCTION_LINE_LIMIT} lines`, () => {
    const files = ROOTS.flatMap(sourcesUnder);
    expect(files.length).toBeGreaterThan(50);
    for (const root of ROOTS)
      expect(
        files.some((file) => file.startsWith(`${root}/`)),
        root,
      ).toBe(true);
    const long = files.flatMap((file) =>
      longFunctions(fs.readFileSync(path.join(repoRoot, file), "utf8"), file).map(({ name, line, lines }) => `${file}:${line} ${name} (${lines} lines)`),
    );
    expect(long, "split these into named steps").toEqual([]);
  });
});

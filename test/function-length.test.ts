/**
 * Every function in src/, toolchain/src/ and tools/ fits on a screen: under {@link FUNCTION_LINE_LIMIT} lines, tests aside.
 * A longer one is split into named steps. The table below proves the check can fail.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { FUNCTION_LINE_LIMIT, longFunctions } from "./support/function-length";

const repoRoot = path.resolve(__dirname, "..");

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

  it(`keeps every function of src/, toolchain/src/ and tools/ under ${FUNCTION_LINE_LIMIT} lines`, () => {
    const files = ["src", "toolchain/src", "tools"]
      .flatMap((root) => (fs.readdirSync(path.join(repoRoot, root), { recursive: true }) as string[]).map((file) => `${root}/${file.split(path.sep).join("/")}`))
      .filter((file) => /\.[jt]s$/.test(file) && !file.endsWith(".test.ts") && !file.endsWith(".d.ts") && !file.includes("node_modules/"));
    expect(files.length).toBeGreaterThan(50);
    expect(files.filter((file) => file.startsWith("tools/")).length).toBeGreaterThan(20);
    const long = files.flatMap((file) =>
      longFunctions(fs.readFileSync(path.join(repoRoot, file), "utf8"), file).map(({ name, line, lines }) => `${file}:${line} ${name} (${lines} lines)`),
    );
    expect(long, "split these into named steps").toEqual([]);
  });
});

/**
 * The README's usage snippets are excerpts of the example projects the tests run or compile, so
 * a snippet cannot drift from code that works: each fenced block of a program language must stand,
 * line for line (indentation aside), in the example of its language.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.join(__dirname, "..");
const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
/** The README's Usage section: its program snippets, one per language. */
const usage = readme.slice(readme.indexOf("\n## Usage\n"), readme.indexOf("\n## ", readme.indexOf("\n## Usage\n") + 1));

/** The example file each snippet language is an excerpt of. */
const SOURCES: Record<string, string> = {
  ts: "examples/quickstart/index.ts",
  yaml: "examples/yaml/Pulumi.yaml",
  go: "examples/go/main.go",
  python: "examples/python/__main__.py",
  csharp: "examples/csharp/Program.cs",
  java: "examples/java/src/main/java/myproject/App.java",
};

/** Lines without their indentation, blank ones kept, so an excerpt may sit at any depth. */
const lines = (text: string): string[] => text.split("\n").map((line) => line.trim());

/** Whether `excerpt`'s lines appear one after another in `source`'s. */
function isExcerpt(excerpt: string, source: string): boolean {
  const want = lines(excerpt.trimEnd());
  const have = lines(source);
  return have.some((_, start) => want.every((line, k) => have[start + k] === line));
}

const blocks = [...usage.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].filter(([, language]) => language! in SOURCES);

describe("README snippets", () => {
  it("show a program in every language", () => {
    expect([...new Set(blocks.map(([, language]) => language))].sort()).toEqual(Object.keys(SOURCES).sort());
  });

  it.each(blocks.map(([, language, body]) => [language!, body!] as const))("the %s snippet is an excerpt of its example", (language, body) => {
    const source = fs.readFileSync(path.join(root, SOURCES[language]!), "utf8");
    expect(isExcerpt(body, source), `README ${language} snippet not found in ${SOURCES[language]}`).toBe(true);
  });

  it("tells an excerpt from a changed line", () => {
    expect(isExcerpt("b\n  c", "a\n  b\n    c\nd")).toBe(true);
    expect(isExcerpt("b\nx", "a\nb\nc")).toBe(false);
  });
});

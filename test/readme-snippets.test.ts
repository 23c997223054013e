/**
 * The program snippets of the README's Usage section (TypeScript and YAML) and of
 * docs/languages.md (every native SDK's language) are excerpts of the example projects the tests
 * run or compile, so a snippet cannot drift from code that works: each fenced block of a program
 * language must stand, line for line (indentation aside), in the example of its language.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.join(__dirname, "..");
const read = (file: string): string => fs.readFileSync(path.join(root, file), "utf8");
const readme = read("README.md");
/** The README's Usage section. */
const usage = readme.slice(readme.indexOf("\n## Usage\n"), readme.indexOf("\n## ", readme.indexOf("\n## Usage\n") + 1));
/** The page that shows the other languages. */
const languages = read("docs/languages.md");

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

/** The fenced blocks of `text` in a program language, as [language, body]. */
const programBlocks = (text: string): (readonly [string, string])[] =>
  [...text.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].filter(([, language]) => language! in SOURCES).map(([, language, body]) => [language!, body!] as const);

const PAGES = { "README.md (Usage)": programBlocks(usage), "docs/languages.md": programBlocks(languages) };
const blocks = Object.entries(PAGES).flatMap(([page, found]) => found.map(([language, body]) => [page, language, body] as const));
const languagesOf = (found: (readonly [string, string])[]): string[] => [...new Set(found.map(([language]) => language))].sort();

describe("README and docs/languages.md snippets", () => {
  it("show a TypeScript and a YAML program in the README, and every native SDK's language in docs/languages.md", () => {
    expect(languagesOf(PAGES["README.md (Usage)"])).toEqual(["ts", "yaml"]);
    expect(languagesOf(PAGES["docs/languages.md"])).toEqual(["csharp", "go", "java", "python", "yaml"]);
    expect(new Set(blocks.map(([, language]) => language))).toEqual(new Set(Object.keys(SOURCES)));
  });

  it.each(blocks)("%s: the %s snippet is an excerpt of its example", (page, language, body) => {
    const source = read(SOURCES[language]!);
    expect(isExcerpt(body, source), `${page} ${language} snippet not found in ${SOURCES[language]}`).toBe(true);
  });

  it("tells an excerpt from a changed line", () => {
    expect(isExcerpt("b\n  c", "a\n  b\n    c\nd")).toBe(true);
    expect(isExcerpt("b\nx", "a\nb\nc")).toBe(false);
  });
});

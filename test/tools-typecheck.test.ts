/**
 * `npm run typecheck` (tsc -p tsconfig.spec.json) checks every script of tools/ and test/tiers.js,
 * plain CommonJS with JSDoc types: a new script is in the check the day it is added, or this fails
 * and names it. The config is read as tsc reads it, so the files listed are the ones tsc checks.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./support/pulumi-workspace";

const CONFIG = path.join(repoRoot, "tsconfig.spec.json");

/** The scripts that must be checked: every JavaScript file under tools/ (outside installed packages), and test/tiers.js. */
function scripts(): string[] {
  const tools = fs.globSync("tools/**/*.{js,cjs,mjs}", { cwd: repoRoot, exclude: (f) => f.includes("node_modules") });
  return [...tools, "test/tiers.js"].map((f) => f.split(path.sep).join("/")).sort();
}

/** tsconfig.spec.json as tsc parses it, its `include` replaced when given. */
function parsedConfig(include?: string[]): ts.ParsedCommandLine {
  const { config, error } = ts.readConfigFile(CONFIG, (file) => ts.sys.readFile(file));
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, "\n"));
  return ts.parseJsonConfigFileContent(include ? { ...config, include } : config, ts.sys, repoRoot, undefined, CONFIG);
}

/** The scripts that `parsed` leaves out of the type-check: not among its files, or with checking off. */
function unchecked(parsed: ts.ParsedCommandLine): string[] {
  const checked = new Set(parsed.fileNames.map((f) => path.relative(repoRoot, f).split(path.sep).join("/")));
  return scripts().filter(
    (f) => !checked.has(f) || /^\s*\/\/\s*@ts-nocheck/m.test(fs.readFileSync(path.join(repoRoot, f), "utf8")) || parsed.options.checkJs !== true,
  );
}

describe("the type-check of the scripts", () => {
  it("covers every script of tools/ and test/tiers.js, with checkJs on", () => {
    expect(scripts().length).toBeGreaterThan(20);
    expect(parsedConfig().errors).toEqual([]);
    expect(unchecked(parsedConfig()), "add these to tsconfig.spec.json's include").toEqual([]);
  });

  it("names a script that the include leaves out", () => {
    const raw: { include: string[] } = parsedConfig().raw;
    const include = raw.include.filter((glob) => glob !== "tools");
    expect(unchecked(parsedConfig([...include, "tools/release.js"]))).toContain("tools/publish.js");
    expect(unchecked(parsedConfig([...include, "tools/release.js"]))).not.toContain("tools/release.js");
  });
});

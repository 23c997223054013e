#!/usr/bin/env node
// @ts-check
/**
 * Renders the Pulumi Registry's API pages of a package schema (by default the native provider's,
 * src/native/schema.json) into a folder outside the repository, with gen-docs: pkg/v3's
 * codegen/docs, the Registry's generator, pinned by tools/pinned/pulumi-docsgen and built into the
 * project cache on first use (docs/maintainers/toolchain.md, "gen-docs, for the Registry's pages").
 * test/release/registry-docs.test.ts checks the pages against the schema.
 *
 * Usage: npm run build && node tools/render-docs.js [--schema <schema.json>] <out-dir>
 */
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.join(__dirname, "..");
const SCHEMA_FILE = path.join(ROOT, "src", "native", "schema.json");

/**
 * gen-docs, as a PinnedGoTool of toolchain/src/pulumi-cli.ts. Its version is the release of
 * github.com/pulumi/pulumi/pkg/v3 that tools/pinned/pulumi-docsgen/go.mod pins: 3.143.0, the last one
 * holding codegen/docs.
 */
const GEN_DOCS = {
  name: "gen-docs",
  version: "3.143.0",
  moduleDir: path.join(__dirname, "pinned", "pulumi-docsgen"),
  goPackage: "./gen-docs",
  binary: process.platform === "win32" ? "gen-docs.exe" : "gen-docs",
  sources: [path.join("gen-docs", "main.go")],
};

/** @typedef {(tool: typeof GEN_DOCS, options: { log?: (line: string) => void }) => Promise<string>} ToolResolver */

/** The toolchain's resolvePinnedGoTool from the built package (dist/). @type {ToolResolver} */
function resolveFromDist(tool, options) {
  const built = path.join(ROOT, "toolchain", "dist", "pulumi-cli.js");
  if (!fs.existsSync(built)) throw new Error(`${built} is missing: run \`npm run build\` first.`);
  return require(built).resolvePinnedGoTool(tool, options);
}

/** True when `dir` is `root` or inside it. @param {string} dir @param {string} root */
function isInside(dir, root) {
  const relative = path.relative(root, dir);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/**
 * Renders the pages of `schemaFile` into `outDir`, which must be outside the repository and empty
 * or absent, and returns their paths relative to it (e.g. `datasource/_index.md`).
 * @param {string} schemaFile
 * @param {string} outDir
 * @param {{ log?: (line: string) => void, resolveTool?: ToolResolver }} [options]
 * @returns {Promise<string[]>}
 */
async function renderDocs(schemaFile, outDir, options = {}) {
  const out = path.resolve(outDir);
  if (isInside(out, ROOT)) throw new Error(`${out} is inside the repository: render the pages somewhere else.`);
  if (fs.existsSync(out) && fs.readdirSync(out).length > 0) throw new Error(`${out} is not empty: its pages would mix with the new ones.`);
  const binary = await (options.resolveTool ?? resolveFromDist)(GEN_DOCS, options.log ? { log: options.log } : {});
  const printed = execFileSync(binary, [path.resolve(schemaFile), out], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 300_000 });
  return printed.split("\n").filter(Boolean);
}

/** `[--schema <file>] <out-dir>` as { schema, out }. @param {string[]} args */
function parseArguments(args) {
  const usage = "usage: node tools/render-docs.js [--schema <schema.json>] <out-dir>";
  const at = args.indexOf("--schema");
  const schema = at >= 0 ? args[at + 1] : SCHEMA_FILE;
  const rest = at >= 0 ? args.filter((_, i) => i !== at && i !== at + 1) : args;
  if (!schema || rest.length !== 1 || rest[0]?.startsWith("-")) throw new Error(usage);
  return { schema, out: /** @type {string} */ (rest[0]) };
}

async function main() {
  const { schema, out } = parseArguments(process.argv.slice(2));
  const pages = await renderDocs(schema, out, { log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${pages.length} pages of ${path.resolve(schema)} in ${path.resolve(out)}:\n${pages.map((p) => `  ${p}\n`).join("")}`);
}

module.exports = { GEN_DOCS, SCHEMA_FILE, renderDocs };

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}

#!/usr/bin/env node
// @ts-check
/**
 * Builds the native provider as a plugin archive for programs without node_modules (YAML, Go,
 * Python, C#): dist/native/bin.js and everything it loads bundled into one executable JavaScript
 * file, `pulumi-resource-analytics`, in a .tar.gz that
 * `pulumi plugin install resource analytics <version> --file <archive>` installs. The file runs on
 * the Node.js found on PATH (20.18.1 or newer); the archive holds no other dependency.
 * Usage: npm run build && node tools/build-plugin-archive.js [output directory, default dist/plugin]
 */
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const esbuild = require("esbuild");

const ROOT = path.join(__dirname, "..");
const PLUGIN = "pulumi-resource-analytics";

/** Builds the archive into `outDir` and returns its path. */
function buildPluginArchive(outDir = path.join(ROOT, "dist", "plugin")) {
  const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-plugin-"));
  try {
    const executable = path.join(staging, PLUGIN);
    esbuild.buildSync({
      entryPoints: [path.join(ROOT, "dist", "native", "bin.js")],
      bundle: true,
      platform: "node",
      target: "node20",
      format: "cjs",
      outfile: executable,
      legalComments: "none",
      logLevel: "error",
    });
    fs.chmodSync(executable, 0o755);
    fs.copyFileSync(path.join(ROOT, "LICENSE"), path.join(staging, "LICENSE"));
    fs.mkdirSync(outDir, { recursive: true });
    const archive = path.join(outDir, `${PLUGIN}-v${version}.tar.gz`);
    execFileSync("tar", ["-czf", archive, "-C", staging, PLUGIN, "LICENSE"]);
    return archive;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

module.exports = { PLUGIN, buildPluginArchive };

if (require.main === module) {
  const archive = buildPluginArchive(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
  process.stdout.write(`wrote ${path.relative(process.cwd(), archive)} (${Math.round(fs.statSync(archive).size / 1024)} KiB)\n`);
}

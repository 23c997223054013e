#!/usr/bin/env node
// @ts-check
/**
 * Builds the native provider as a plugin archive for programs without node_modules (YAML, Go,
 * Python, C#): dist/native/bin.js and everything it loads bundled into one executable JavaScript
 * file, `pulumi-resource-analytics`, in a .tar.gz that
 * `pulumi plugin install resource analytics <version> --file <archive>` installs. The file runs on
 * the Node.js found on PATH (20.18.1 or newer); the archive holds no other dependency, and does
 * not depend on the platform (tools/build-plugin-binary.js builds the single-file executable).
 * Two builds of one commit give the same bytes (tools/tar-gz.js).
 * Usage: npm run build && node tools/build-plugin-archive.js [output directory, default dist/plugin]
 */
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const esbuild = require("esbuild");
const { writeTarGz } = require("./tar-gz.js");

const ROOT = path.join(__dirname, "..");
const PLUGIN = "pulumi-resource-analytics";

/** The package's version. @returns {string} */
function packageVersion() {
  return JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).version;
}

/**
 * The time stamped on every archive entry: SOURCE_DATE_EPOCH when set, else the last commit's
 * time, so that two builds of one commit agree.
 */
function sourceDateEpoch() {
  if (process.env.SOURCE_DATE_EPOCH) return Number(process.env.SOURCE_DATE_EPOCH);
  try {
    return Number(execFileSync("git", ["log", "-1", "--format=%ct"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
  } catch {
    return 0;
  }
}

/**
 * Bundles dist/native/bin.js and what it loads into `outfile`, one CommonJS file starting
 * `#!/usr/bin/env node`; returns esbuild's metafile (the files bundled).
 * @param {string} outfile
 */
function bundlePlugin(outfile) {
  return esbuild.buildSync({
    entryPoints: [path.join(ROOT, "dist", "native", "bin.js")],
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    outfile,
    legalComments: "none",
    logLevel: "error",
    metafile: true,
    // Paths as the checkout names them, so a node_modules that is a link (a git worktree sharing
    // another checkout's install) gives the same bytes: the bundle's comments name each module's path.
    preserveSymlinks: true,
  }).metafile;
}

/**
 * Writes a plugin archive: the executable `source` at the root as `name`, beside LICENSE.
 * @param {string} archive @param {string} source @param {string} name
 */
function writePluginArchive(archive, source, name) {
  writeTarGz(
    archive,
    [
      { name, source, mode: 0o755 },
      { name: "LICENSE", source: path.join(ROOT, "LICENSE"), mode: 0o644 },
    ],
    sourceDateEpoch(),
  );
}

/** Builds the archive into `outDir` and returns its path. */
function buildPluginArchive(outDir = path.join(ROOT, "dist", "plugin")) {
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-plugin-"));
  try {
    const executable = path.join(staging, PLUGIN);
    bundlePlugin(executable);
    fs.mkdirSync(outDir, { recursive: true });
    const archive = path.join(outDir, `${PLUGIN}-v${packageVersion()}.tar.gz`);
    writePluginArchive(archive, executable, PLUGIN);
    return archive;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

module.exports = { PLUGIN, ROOT, buildPluginArchive, bundlePlugin, packageVersion, writePluginArchive };

if (require.main === module) {
  const archive = buildPluginArchive(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
  process.stdout.write(`wrote ${path.relative(process.cwd(), archive)} (${Math.round(fs.statSync(archive).size / 1024)} KiB)\n`);
}

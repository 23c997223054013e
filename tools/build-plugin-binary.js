#!/usr/bin/env node
// @ts-check
/**
 * Builds the native provider as a single executable for the platform it runs on: the plugin bundle
 * (tools/build-plugin-archive.js) injected into a copy of the pinned Node.js of PLUGIN_LINE
 * (tools/node-runtime.js) as a Node.js single-executable application, so the plugin starts with no
 * Node.js installed. The blob is prepared by that same `node`, as Node.js requires. On linux-x64
 * that Node.js is fetched and sha512-checked into the project cache, whatever `node` runs the build;
 * elsewhere the `node` running the build is used and must be exactly the pinned release. Writes
 * `<out>/<os>-<arch>/pulumi-resource-analytics[.exe]` and the archive the engine downloads,
 * `<out>/pulumi-resource-analytics-v<version>-<os>-<arch>.tar.gz` with the executable at its root.
 * A single executable can only be built on its target platform: run this on each.
 * Usage: npm run build && node tools/build-plugin-binary.js [output directory, default build/plugin]
 */
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { LAZY_FILE, PLUGIN, ROOT, bundlePlugin, packageVersion, writePluginArchive } = require("./build-plugin-archive.js");
const { PLUGIN_LINE, nodeRuntime, supportedLine } = require("./node-runtime.js");
const { snapshotBlob } = require("./plugin-snapshot.js");

/** The fuse Node.js checks for an injected blob (the Node.js single-executable documentation's own). */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

/** @type {Record<string, string>} Go's GOOS of a Node.js platform. */
const GOOS = { linux: "linux", darwin: "darwin", win32: "windows" };
/** @type {Record<string, string>} Go's GOARCH of a Node.js architecture. */
const GOARCH = { x64: "amd64", arm64: "arm64" };

/** Pulumi's names (Go's GOOS and GOARCH) of a Node.js platform and architecture. */
function pulumiPlatform(platform = process.platform, arch = process.arch) {
  const goos = GOOS[platform];
  const goarch = GOARCH[arch];
  if (!goos || !goarch) throw new Error(`No single-file plugin for ${platform}-${arch}: use the script archive (npm run build:plugin).`);
  return { os: goos, arch: goarch };
}

/**
 * The name of the archive the engine fetches for a version and platform.
 * @param {string} version
 * @param {{ os: string, arch: string }} platform
 */
function platformArchiveName(version, platform) {
  return `${PLUGIN}-v${version}-${platform.os}-${platform.arch}.tar.gz`;
}

/**
 * @typedef {object} BuildingNode The `node` running the build.
 * @property {string} platform
 * @property {string} arch
 * @property {string} version Its release, `X.Y.Z`.
 * @property {string} execPath
 */

/** @type {BuildingNode} */
const THIS_NODE = { platform: process.platform, arch: process.arch, version: process.versions.node, execPath: process.execPath };

/**
 * The `node` executable the single file is made of: the pinned release of PLUGIN_LINE, fetched and
 * verified into the project cache on linux-x64 (the only platform nodeRuntime fetches for); on
 * other platforms the `node` running the build, which must be exactly that release.
 * @param {BuildingNode} [building]
 * @param {(line: string) => void} [log]
 * @returns {Promise<string>}
 */
async function pinnedBaseNode(building = THIS_NODE, log = undefined) {
  if (building.platform === "linux" && building.arch === "x64") return (await nodeRuntime(PLUGIN_LINE, log ? { log } : {})).node;
  const pinned = /** @type {string} */ (supportedLine(PLUGIN_LINE).pinned);
  if (building.version === pinned) return building.execPath;
  throw new Error(
    `The single-file plugin embeds Node.js ${pinned} (Node.js ${PLUGIN_LINE}, pinned in tools/node-runtime.js); on ${building.platform}-${building.arch} it is made from the node running the build, ` +
      `which is ${building.version}: run the build with Node.js ${pinned}`,
  );
}

/**
 * Makes the single-executable blob of the bundle in `staging` with `node`, the executable it will
 * be injected into; returns its path. With `snapshot`, the blob holds the plugin's start-up
 * snapshot instead (tools/plugin-snapshot.js), which only the Node.js build that made it loads.
 * @param {string} staging
 * @param {string} node
 * @param {boolean} snapshot
 */
function seaBlob(staging, node, snapshot) {
  if (snapshot) return snapshotBlob(staging, node);
  const bundle = path.join(staging, "plugin.js");
  bundlePlugin(bundle);
  // The entry runs as a CommonJS script, where a `#!` line is a syntax error.
  fs.writeFileSync(bundle, fs.readFileSync(bundle, "utf8").replace(/^#!.*\n/, ""));
  // Paths relative to the staging folder: the blob keeps the entry's path, which must not vary between builds.
  // No code cache: it is tied to the V8 build and flags, and the plugin's start-up is short without it.
  // The shared logic (bundlePlugin's second file) is an asset, compiled on the first Check rather than at each start.
  const assets = { [LAZY_FILE]: LAZY_FILE };
  const config = { main: "plugin.js", output: "sea-prep.blob", disableExperimentalSEAWarning: true, useCodeCache: false, assets };
  fs.writeFileSync(path.join(staging, "sea-config.json"), JSON.stringify(config));
  execFileSync(node, ["--experimental-sea-config", "sea-config.json"], { cwd: staging, stdio: "ignore" });
  return path.join(staging, "sea-prep.blob");
}

/** @typedef {{ binary: string, archive: string }} BuiltPlugin The single-file executable and its plugin archive. */

/**
 * Builds the executable and its archive into `outDir`; returns both paths. `options.node` names
 * another `node` executable to make it of (the bench compares Node.js releases); by default it is
 * the pinned one ({@link pinnedBaseNode}). `options.snapshot: false` puts the plugin's script in
 * the blob instead of its start-up snapshot (which only a blob made by the target's own `node` can hold).
 * @param {string} [outDir]
 * @param {{ node?: string, snapshot?: boolean, log?: (line: string) => void }} [options]
 * @returns {Promise<BuiltPlugin>}
 */
async function buildPluginBinary(outDir = path.join(ROOT, "build", "plugin"), options = {}) {
  const platform = pulumiPlatform();
  const node = options.node ?? (await pinnedBaseNode(THIS_NODE, options.log));
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-plugin-sea-"));
  try {
    const blob = seaBlob(staging, node, options.snapshot ?? true);
    const binDir = path.join(outDir, `${platform.os}-${platform.arch}`);
    fs.mkdirSync(binDir, { recursive: true });
    const name = platform.os === "windows" ? `${PLUGIN}.exe` : PLUGIN;
    const binary = path.join(binDir, name);
    fs.rmSync(binary, { force: true });
    fs.copyFileSync(node, binary);
    fs.chmodSync(binary, 0o755);
    const macos = platform.os === "darwin";
    if (macos) execFileSync("codesign", ["--remove-signature", binary]);
    const { inject } = require("postject");
    await inject(binary, "NODE_SEA_BLOB", fs.readFileSync(blob), { sentinelFuse: SEA_FUSE, machoSegmentName: macos ? "NODE_SEA" : undefined });
    if (macos) execFileSync("codesign", ["--sign", "-", binary]);
    const archive = path.join(outDir, platformArchiveName(packageVersion(), platform));
    writePluginArchive(archive, binary, name);
    return { binary, archive };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

module.exports = { buildPluginBinary, pinnedBaseNode, platformArchiveName, pulumiPlatform };

if (require.main === module) {
  buildPluginBinary(process.argv[2] ? path.resolve(process.argv[2]) : undefined).then(
    ({ binary, archive }) => {
      for (const file of [binary, archive]) process.stdout.write(`wrote ${path.relative(process.cwd(), file)} (${Math.round(fs.statSync(file).size / 1048576)} MiB)\n`);
    },
    (error) => {
      process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}

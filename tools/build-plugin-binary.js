#!/usr/bin/env node
// @ts-check
/**
 * Builds the native provider as single executables: the plugin bundle
 * (tools/build-plugin-archive.js) built by the pinned Node.js of PLUGIN_LINE
 * (tools/lib/node-runtime.js)'s own `node --build-sea` into a copy of that Node.js, so the plugin
 * starts with no Node.js installed (the targets, the pinned `node` and the build are
 * tools/lib/single-executable.js's, which the reference server's single file shares). {@link TARGETS} says which platform is built where: on
 * linux-x64, Linux x64, Linux arm64 and Windows x64, each into the npm registry's official
 * Node.js of that platform, fetched and sha512-checked into the project cache; macOS only on
 * macOS, from the `node` running the build, which must be exactly the pinned release. A file of
 * the plugin's scripts carries no code cache or snapshot, so the pinned Node.js of the building
 * platform builds it for any platform (the Windows file). The file of the platform the build runs
 * on carries the plugin's V8 start-up snapshot instead (tools/lib/plugin-snapshot.js), built by its
 * own `node`, and so, on linux-x64, does the linux-arm64 file, built by its own `node` run
 * under qemu-user ({@link snapshotLauncher}). Writes
 * `<out>/<os>-<arch>/pulumi-resource-analytics[.exe]` and the archive the engine downloads,
 * `<out>/pulumi-resource-analytics-v<version>-<os>-<arch>.tar.gz` with the executable at its root,
 * for each platform built here. Two builds of one commit give the same bytes.
 * Usage: npm run build && node tools/build-plugin-binary.js [output directory, default build/plugin]
 */
"use strict";
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { LAZY_FILE, PLUGIN, ROOT, bundlePlugin, packageVersion } = require("./build-plugin-archive.js");
const { SNAPSHOT_BUILD_FLAGS, snapshotApp, snapshotBuildEnv } = require("./lib/plugin-snapshot.js");
const { THIS_NODE, TARGETS, executableFileName, pinnedBaseNode, scriptsApp, targetOf, targetsBuiltOn, writeSingleExecutable } = require("./lib/single-executable.js");

/** @typedef {import("./lib/single-executable.js").PluginTarget} PluginTarget */

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
  return executableFileName(PLUGIN, platform);
}

/**
 * Writes the single file's application of the plugin into `staging`: its scripts (the bundle and,
 * as an asset compiled on the first Check rather than at each start, the shared logic, bundlePlugin's
 * second file), which serve every platform, or, with `snapshot`, its start-up snapshot
 * (tools/lib/plugin-snapshot.js), which only the `node` that builds it loads.
 * @param {string} staging @param {boolean} snapshot
 * @returns {Promise<import("./lib/single-executable.js").SeaApplication>}
 */
async function pluginApp(staging, snapshot) {
  if (snapshot) return snapshotApp(staging);
  const bundle = path.join(staging, "plugin.js");
  bundlePlugin(bundle);
  return scriptsApp(staging, { main: fs.readFileSync(bundle, "utf8"), assets: { [LAZY_FILE]: LAZY_FILE } });
}

/** @typedef {import("./lib/single-executable.js").BuiltExecutable} BuiltPlugin A single-file executable, its plugin archive and its platform. */

/** Where qemu-user finds the AArch64 dynamic loader and C libraries (Debian's libc6-arm64-cross, libstdc++6-arm64-cross, libatomic1-arm64-cross). */
const ARM64_LIBRARIES = "/usr/aarch64-linux-gnu";

/**
 * How this machine runs `target`'s own `node` to make its start-up snapshot: directly for the
 * platform the build runs on ([]), through qemu-user for linux-arm64 on linux-x64 (throws, naming
 * what to install, when qemu-aarch64-static or the AArch64 libraries are missing), or not at all
 * (undefined: that file carries the scripts).
 * @param {PluginTarget} target
 * @returns {string[] | undefined}
 */
function snapshotLauncher(target) {
  if (target === targetOf()) return [];
  if (!(target === targetOf("linux", "arm64") && process.platform === "linux" && process.arch === "x64")) return undefined;
  const qemu = spawnSync("qemu-aarch64-static", ["--version"], { stdio: "ignore" });
  if (qemu.error || !["ld-linux-aarch64.so.1", "libatomic.so.1"].every((lib) => fs.existsSync(path.join(ARM64_LIBRARIES, "lib", lib)))) {
    throw new Error(
      `the linux-arm64 single file is built with its start-up snapshot by its own Node.js under qemu-user, which needs qemu-aarch64-static on PATH and the AArch64 libraries in ${ARM64_LIBRARIES}: install qemu-user-static, libc6-arm64-cross, libstdc++6-arm64-cross and libatomic1-arm64-cross (Debian, Ubuntu)`,
    );
  }
  return ["qemu-aarch64-static", "-L", ARM64_LIBRARIES];
}

/**
 * How each target's file is built, each application written once in `staging`: the start-up
 * snapshot for the platform the build runs on and for any other whose `node` runs here
 * ({@link snapshotLauncher}), each built by that target's own `node`, the only one that loads it;
 * the scripts, built by `builder`, for every other platform (or for all of them without `snapshot`).
 * @param {string} staging @param {string} builder @param {boolean} snapshot
 * @returns {(target: PluginTarget, node: string) => Promise<import("./lib/single-executable.js").SeaBuild>}
 */
function seaBuilds(staging, builder, snapshot) {
  /** @type {Map<string, import("./lib/single-executable.js").SeaApplication>} */
  const apps = new Map();
  return async (target, node) => {
    const launcher = snapshot ? snapshotLauncher(target) : undefined;
    const kind = launcher ? "snapshot" : "scripts";
    const dir = path.join(staging, kind);
    let app = apps.get(kind);
    if (app === undefined) {
      fs.mkdirSync(dir);
      app = await pluginApp(dir, launcher !== undefined);
      apps.set(kind, app);
    }
    if (!launcher) return { staging: dir, app, executable: node, builder };
    return { staging: dir, app, executable: node, builder: node, launcher, flags: SNAPSHOT_BUILD_FLAGS, env: snapshotBuildEnv() };
  };
}

/**
 * Builds the executables and archives of `options.targets` (default: every target this platform
 * builds, {@link targetsBuiltOn}) into `outDir`. `options.node` names another
 * `node` executable to make the file of this platform of (the bench compares Node.js releases);
 * by default each target's is the pinned one ({@link pinnedBaseNode}). The file of this platform
 * starts from the plugin's V8 start-up snapshot unless `options.snapshot` is false (see {@link seaBuilds}).
 * @param {string} [outDir]
 * @param {{ node?: string, targets?: readonly PluginTarget[], snapshot?: boolean, log?: (line: string) => void }} [options]
 * @returns {Promise<BuiltPlugin[]>}
 */
async function buildPluginBinaries(outDir = path.join(ROOT, "build", "plugin"), options = {}) {
  const targets = options.targets ?? targetsBuiltOn();
  if (options.node && targets.some((t) => t !== targetOf())) throw new Error("a build from another node makes only this platform's file");
  const builder = options.node ?? (await pinnedBaseNode(THIS_NODE, options.log));
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-plugin-sea-"));
  try {
    const builds = seaBuilds(staging, builder, options.snapshot ?? true);
    /** @type {BuiltPlugin[]} */
    const built = [];
    for (const target of targets) {
      const node = options.node ?? (await pinnedBaseNode(THIS_NODE, options.log, target));
      const archiveName = platformArchiveName(packageVersion(), target);
      built.push(await writeSingleExecutable({ outDir, name: PLUGIN, archiveName, target, sea: await builds(target, node) }));
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

module.exports = { ARM64_LIBRARIES, TARGETS, buildPluginBinaries, buildPluginBinary, executableName, pinnedBaseNode, platformArchiveName, pulumiPlatform, targetOf, targetsBuiltOn };

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

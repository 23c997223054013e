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
 * on carries the plugin's V8 start-up snapshot instead (tools/lib/start-up-snapshot.js), built by its
 * own `node`, and so, on linux-x64, does the linux-arm64 file, built by its own `node` run
 * under qemu-user. Writes
 * `<out>/<os>-<arch>/pulumi-resource-analytics[.exe]` and the archive the engine downloads,
 * `<out>/pulumi-resource-analytics-v<version>-<os>-<arch>.tar.gz` with the executable at its root,
 * for each platform built here. Two builds of one commit give the same bytes.
 * Usage: npm run build && node tools/build-plugin-binary.js [output directory, default build/plugin]
 */
"use strict";
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { LAZY_FILE, PLUGIN, ROOT, bundlePlugin, packageVersion } = require("./build-plugin-archive.js");
const { ARM64_LIBRARIES, seaBuilds, snapshotApp } = require("./lib/start-up-snapshot.js");
const {
  THIS_NODE,
  TARGETS,
  executableFileName,
  isTarget,
  pinnedBaseNode,
  scriptsApp,
  targetOf,
  targetsBuiltOn,
  writeSingleExecutable,
} = require("./lib/single-executable.js");

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

/** The plugin's start-up snapshot (tools/lib/start-up-snapshot.js): src/native/snapshot-entry.ts and what it loads. */
const PLUGIN_SNAPSHOT = { entry: path.join("dist", "native", "snapshot-entry.js"), name: PLUGIN };

/**
 * Writes the single file's application of the plugin's scripts into `staging`: the bundle and,
 * as an asset compiled on the first Check rather than at each start, the shared logic (bundlePlugin's
 * second file), which serve every platform.
 * @param {string} staging
 * @returns {Promise<import("./lib/single-executable.js").SeaApplication>}
 */
async function pluginScriptsApp(staging) {
  const bundle = path.join(staging, "plugin.js");
  bundlePlugin(bundle);
  return scriptsApp(staging, { main: fs.readFileSync(bundle, "utf8"), assets: { [LAZY_FILE]: LAZY_FILE } });
}

/** @typedef {import("./lib/single-executable.js").BuiltExecutable} BuiltPlugin A single-file executable, its plugin archive and its platform. */

/**
 * Builds the executables and archives of `options.targets` (default: every target this platform
 * builds, {@link targetsBuiltOn}) into `outDir`. `options.node` names another
 * `node` executable to make the file of this platform of (the bench compares Node.js releases);
 * by default each target's is the pinned one ({@link pinnedBaseNode}). The file of this platform
 * starts from the plugin's V8 start-up snapshot unless `options.snapshot` is false (see
 * tools/lib/start-up-snapshot.js's seaBuilds).
 * @param {string} [outDir]
 * @param {{ node?: string, targets?: readonly PluginTarget[], snapshot?: boolean, log?: (line: string) => void }} [options]
 * @returns {Promise<BuiltPlugin[]>}
 */
async function buildPluginBinaries(outDir = path.join(ROOT, "build", "plugin"), options = {}) {
  const targets = options.targets ?? targetsBuiltOn();
  if (options.node && targets.some((t) => !isTarget(t))) throw new Error("a build from another node makes only this platform's file");
  const builder = options.node ?? (await pinnedBaseNode(THIS_NODE, options.log));
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-plugin-sea-"));
  try {
    const scripts = pluginScriptsApp;
    const builds = seaBuilds(staging, builder, options.snapshot === false ? { scripts } : { scripts, snapshot: (dir) => snapshotApp(dir, PLUGIN_SNAPSHOT) });
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

module.exports = {
  ARM64_LIBRARIES,
  TARGETS,
  buildPluginBinaries,
  buildPluginBinary,
  executableName,
  pinnedBaseNode,
  platformArchiveName,
  pulumiPlatform,
  targetOf,
  targetsBuiltOn,
};

if (require.main === module) {
  buildPluginBinaries(process.argv[2] ? path.resolve(process.argv[2]) : undefined).then(
    (built) => {
      for (const file of built.flatMap((b) => [b.binary, b.archive]))
        process.stdout.write(`wrote ${path.relative(process.cwd(), file)} (${Math.round(fs.statSync(file).size / 1048576)} MiB)\n`);
    },
    (error) => {
      process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}

#!/usr/bin/env node
// @ts-check
/**
 * Builds the reference server (`analytics-reference-server`, dist/reference-server/bin.js) as
 * single executables, so it runs where no Node.js is installed, by the pinned Node.js of
 * PLUGIN_LINE's `node --build-sea` into a copy of that Node.js: the same Node.js, targets and build
 * as the single-file plugin (tools/lib/single-executable.js). zod and `pg` (the background schema
 * sync's client, an optional peer dependency of the npm package) are each bundled into an asset
 * compiled on first use ({@link LAZY_PACKAGES}), and the console page's files
 * (src/reference-server/control/console-page/) are assets that the page's routes read with
 * `node:sea`'s getAsset. The file of the platform the build runs on, and on linux-x64 the
 * linux-arm64 file, built by its own `node` under qemu-user, start from the server's V8 start-up
 * snapshot ({@link SERVER_SNAPSHOT}, tools/lib/start-up-snapshot.js), its modules loaded; every other
 * file (Windows x64) carries the bin and what it loads at start bundled by esbuild into its main
 * script. pg's native bindings (`pg-native`) stay out: the bundle's `pg-native` is a module that is
 * not found, as pg expects when they are not installed. Writes
 * `<out>/<os>-<arch>/analytics-reference-server[.exe]` and
 * `<out>/analytics-reference-server-v<version>-<os>-<arch>.tar.gz` (the executable at its root, and
 * LICENSE) for each platform built here: on linux-x64, Linux x64, Linux arm64 and Windows x64; on
 * macOS, its own. Two builds of one commit give the same bytes.
 * Usage: npm run build && node tools/build-reference-server-binary.js [output directory, default build/reference-server]
 */
"use strict";
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const esbuild = require("esbuild");
const { BUNDLE_OPTIONS, ROOT, packageVersion } = require("./build-plugin-archive.js");
const { THIS_NODE, pinnedBaseNode, scriptsApp, targetsBuiltOn, writeSingleExecutable } = require("./lib/single-executable.js");
const { loadedOnFirstUse, seaBuilds, snapshotApp } = require("./lib/start-up-snapshot.js");

/** The executable's name (package.json's bin). */
const REFERENCE_SERVER = "analytics-reference-server";

/** What pg finds when it looks for its native bindings: nothing, as when `pg-native` is not installed (pg then uses its JavaScript client). */
const PG_NATIVE_MISSING = `throw Object.assign(new Error("Cannot find module 'pg-native': the single file carries pg without its native bindings"), { code: "MODULE_NOT_FOUND" });`;

/** @type {import("esbuild").Plugin} `pg-native` resolved to {@link PG_NATIVE_MISSING}. */
const withoutPgNative = {
  name: "without-pg-native",
  setup(build) {
    build.onResolve({ filter: /^pg-native$/ }, () => ({ path: "pg-native", namespace: "missing" }));
    build.onLoad({ filter: /.*/, namespace: "missing" }, () => ({ contents: PG_NATIVE_MISSING, loader: "js" }));
  },
};

/**
 * The packages the server loads on first use rather than at start (zod on the first validation, pg
 * on the first schema sync; src/lazy-zod.ts, src/reference-server/sync/pg-loader.ts), each bundled
 * on its own into the single file's asset `<name>.js`. V8 pre-parses every function of a script it
 * compiles, so the 1.1 MB of them in the main script would cost every start.
 */
const LAZY_PACKAGES = ["zod", "pg"];

/**
 * What a lazy package's `require` runs in the main bundle, once: its asset read and compiled.
 * Its code gets the single file's `require`, which loads built-in modules, all a lazy package needs.
 * @param {string} name
 */
function lazyPackageLoader(name) {
  const asset = JSON.stringify(`${name}.js`);
  return `const text = require("node:sea").getAsset(${asset}, "utf8");
const wrapped = "(function (exports, require, module) {" + text + "\\n})";
require("node:vm").runInThisContext(wrapped, { filename: ${asset} })(module.exports, require, module);
`;
}

/** @type {import("esbuild").Plugin} Each of {@link LAZY_PACKAGES} resolved to its {@link lazyPackageLoader}. */
const lazyPackages = {
  name: "lazy-packages",
  setup(build) {
    const filter = new RegExp(`^(${LAZY_PACKAGES.join("|")})$`);
    build.onResolve({ filter }, (args) => ({ path: args.path, namespace: "lazy" }));
    build.onLoad({ filter: /.*/, namespace: "lazy" }, (args) => ({ contents: lazyPackageLoader(args.path), loader: "js" }));
  },
};

/**
 * The server's start-up snapshot (tools/lib/start-up-snapshot.js): src/reference-server/snapshot-entry.ts
 * and what it loads, but for {@link LAZY_PACKAGES}, which stay assets compiled on first use, and
 * node:http, which a snapshot cannot hold, loaded when the server starts.
 */
const SERVER_SNAPSHOT = {
  entry: path.join("dist", "reference-server", "snapshot-entry.js"),
  name: REFERENCE_SERVER,
  plugins: [lazyPackages, loadedOnFirstUse(["node:http"])],
};

/**
 * dist/reference-server/bin.js and everything it loads at start as one CommonJS script (`main`),
 * each of {@link LAZY_PACKAGES} as one more (`lazy`, by file name), and esbuild's metafile of all
 * of them (the files bundled).
 * @returns {Promise<{ main: string, lazy: Record<string, string>, metafile: import("esbuild").Metafile }>}
 */
async function referenceServerBundle() {
  const entry = path.join(ROOT, "dist", "reference-server", "bin.js");
  if (!fs.existsSync(entry)) throw new Error(`${path.relative(ROOT, entry)} is missing: run npm run build first`);
  const main = await esbuild.build({ ...BUNDLE_OPTIONS, entryPoints: [entry], plugins: [lazyPackages] });
  /** @type {Record<string, string>} */
  const lazy = {};
  const metafile = { inputs: { ...main.metafile.inputs }, outputs: main.metafile.outputs };
  for (const name of LAZY_PACKAGES) {
    const stdin = { contents: `module.exports = require(${JSON.stringify(name)});`, resolveDir: ROOT, sourcefile: `${name}.js` };
    const built = await esbuild.build({ ...BUNDLE_OPTIONS, stdin, plugins: [withoutPgNative] });
    lazy[`${name}.js`] = built.outputFiles[0].text;
    Object.assign(metafile.inputs, built.metafile.inputs);
  }
  return { main: main.outputFiles[0].text, lazy, metafile };
}

/**
 * The console page's files as the single file's assets: each asset's key (as the page's routes
 * read it, src/reference-server/control/console.ts) and the built file it is made of.
 * @returns {Record<string, string>}
 */
function consolePageAssets() {
  /** @type {{ CONSOLE_PAGE_DIR: string, CONSOLE_PAGE_FILES: readonly string[], consoleAssetKey(file: string): string }} */
  const console = require(path.join(ROOT, "dist", "reference-server", "control", "console.js"));
  return Object.fromEntries(console.CONSOLE_PAGE_FILES.map((file) => [console.consoleAssetKey(file), path.join(console.CONSOLE_PAGE_DIR, file)]));
}

/**
 * The name of a platform's archive of a version.
 * @param {string} version @param {{ os: string, arch: string }} platform
 */
function referenceServerArchiveName(version, platform) {
  return `${REFERENCE_SERVER}-v${version}-${platform.os}-${platform.arch}.tar.gz`;
}

/**
 * Builds the executables and archives of `options.targets` (default: every target this platform
 * builds) into `outDir`: each from its start-up snapshot, built by the target's own `node`, where
 * that `node` runs here, else from its scripts, built by the pinned Node.js of this platform.
 * @param {string} [outDir]
 * @param {{ targets?: readonly import("./lib/single-executable.js").PluginTarget[], log?: (line: string) => void }} [options]
 * @returns {Promise<import("./lib/single-executable.js").BuiltExecutable[]>}
 */
async function buildReferenceServerBinaries(outDir = path.join(ROOT, "build", "reference-server"), options = {}) {
  const targets = options.targets ?? targetsBuiltOn();
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-reference-server-sea-"));
  try {
    const { main, lazy } = await referenceServerBundle();
    for (const [file, text] of Object.entries(lazy)) fs.writeFileSync(path.join(staging, file), text);
    const assets = { ...Object.fromEntries(Object.keys(lazy).map((file) => [file, path.join(staging, file)])), ...consolePageAssets() };
    const builds = seaBuilds(staging, await pinnedBaseNode(THIS_NODE, options.log), {
      scripts: async (dir) => scriptsApp(dir, { main, assets }),
      snapshot: (dir) => snapshotApp(dir, SERVER_SNAPSHOT, assets),
    });
    const built = [];
    for (const target of targets) {
      const sea = await builds(target, await pinnedBaseNode(THIS_NODE, options.log, target));
      built.push(
        await writeSingleExecutable({ outDir, name: REFERENCE_SERVER, archiveName: referenceServerArchiveName(packageVersion(), target), target, sea }),
      );
    }
    return built;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

module.exports = { REFERENCE_SERVER, SERVER_SNAPSHOT, buildReferenceServerBinaries, referenceServerArchiveName, referenceServerBundle };

if (require.main === module) {
  buildReferenceServerBinaries(process.argv[2] ? path.resolve(process.argv[2]) : undefined).then(
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

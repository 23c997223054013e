#!/usr/bin/env node
// @ts-check
/**
 * Builds the native provider as a plugin archive for programs without node_modules (YAML, Go,
 * Python, C#): dist/native/bin.js and everything it loads bundled into one executable JavaScript
 * file, `pulumi-resource-analytics`, with the code only a Check or Create needs in `provider-core.js`
 * beside it (compiled on first use), in a .tar.gz that
 * `pulumi plugin install resource analytics <version> --file <archive>` installs. The file runs on
 * the Node.js found on PATH (20.18.1 or newer); the archive holds no other dependency, and does
 * not depend on the platform (tools/build-plugin-binary.js builds the single-file executable).
 * Two builds of one commit give the same bytes ({@link writeTarGz}).
 * Usage: npm run build && node tools/build-plugin-archive.js [output directory, default dist/plugin]
 */
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const esbuild = require("esbuild");
const tar = require("tar");

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
 * The options both of the plugin's bundles are built with.
 * @satisfies {import("esbuild").BuildOptions}
 */
const BUNDLE_OPTIONS = /** @type {const} */ ({
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  write: false,
  legalComments: "none",
  logLevel: "error",
  metafile: true,
  // Paths as the checkout names them, so a node_modules that is a link (a git worktree sharing
  // another checkout's install) gives the same bytes: the bundle's comments name each module's path.
  preserveSymlinks: true,
  // Module paths relative to the checkout, not to the folder the build runs from.
  absWorkingDir: ROOT,
});

/** How the plugin's code loads the shared check, diff and create logic (src/native/provider.ts's `impl`), as tsc writes it. */
const LAZY_REQUIRE = 'require("../provider-core/operations")';

/** The file of the shared logic beside the plugin's bundle: in the script archive, and as an asset of the single file. */
const LAZY_FILE = "provider-core.js";

/**
 * What replaces {@link LAZY_REQUIRE} in the bundle: the shared logic read (the single file's asset,
 * or the file beside the script) and compiled on its first use, once.
 */
const LAZY_LOADER = `
/** The shared check, diff and create logic (${LAZY_FILE}), compiled on first use. */
function __analyticsProviderImpl() {
  if (__analyticsProviderImpl.module === undefined) {
    const sea = require("node:sea");
    const file = require("node:path").join(__dirname, ${JSON.stringify(LAZY_FILE)});
    const text = sea.isSea() ? sea.getAsset(${JSON.stringify(LAZY_FILE)}, "utf8") : require("node:fs").readFileSync(file, "utf8");
    const wrapped = "(function (exports, require, module, __filename, __dirname) {" + text + "\\n})";
    const lazyModule = { exports: {} };
    require("node:vm").runInThisContext(wrapped, { filename: file })(lazyModule.exports, require, lazyModule, file, __dirname);
    __analyticsProviderImpl.module = lazyModule;
  }
  return __analyticsProviderImpl.module.exports;
}
`;

/**
 * The plugin as two CommonJS bundles: `main`, dist/native/bin.js and what it loads at start, and
 * `lazy`, the shared logic (dist/provider-core/operations.js, which loads zod, undici and the
 * client), which `main` reads and compiles on its first use ({@link LAZY_LOADER}). V8 pre-parses
 * every function of a script it compiles, so the 2.3 MB of code only a Check or Create runs would
 * otherwise cost every start, and the process the engine starts for the schema alone.
 */
function pluginBundles() {
  const main = esbuild.buildSync({ ...BUNDLE_OPTIONS, entryPoints: [path.join(ROOT, "dist", "native", "bin.js")], external: ["../provider-core/operations"] });
  const lazy = esbuild.buildSync({ ...BUNDLE_OPTIONS, entryPoints: [path.join(ROOT, "dist", "provider-core", "operations.js")] });
  const text = main.outputFiles[0].text;
  if (text.split(LAZY_REQUIRE).length !== 2) throw new Error(`dist/native/ should load the shared logic exactly once, as ${LAZY_REQUIRE}`);
  const metafile = { inputs: { ...lazy.metafile.inputs, ...main.metafile.inputs }, outputs: main.metafile.outputs };
  return { main: `${text.replace(LAZY_REQUIRE, "__analyticsProviderImpl()")}${LAZY_LOADER}`, lazy: lazy.outputFiles[0].text, metafile };
}

/**
 * Bundles dist/native/bin.js and what it loads into `outfile`, one CommonJS file starting
 * `#!/usr/bin/env node`, and the shared logic into {@link LAZY_FILE} beside it (see
 * {@link pluginBundles}); returns esbuild's metafile (the files bundled, both bundles').
 * @param {string} outfile
 */
function bundlePlugin(outfile) {
  const { main, lazy, metafile } = pluginBundles();
  fs.writeFileSync(outfile, main, { mode: 0o755 });
  fs.writeFileSync(path.join(path.dirname(outfile), LAZY_FILE), lazy);
  return metafile;
}

/** The compression level of every .tar.gz the release writes: zlib's default, as `gzip` and `tar -z` use. */
const GZIP_LEVEL = 6;

/**
 * Writes `archive`, a gzipped tar (node-tar) of `entries` in the order given, each the file
 * `source` stored as `name` with `mode`, whose bytes depend only on the entries: every mtime
 * `mtime` (seconds since the epoch), node-tar's portable form (no owner, user or group names,
 * no atime or ctime; gzip's OS byte fixed, no timestamp or file name in its header).
 * @param {string} archive @param {readonly { name: string, source: string, mode: number }[]} entries @param {number} mtime
 */
function writeTarGz(archive, entries, mtime) {
  const byPath = new Map(entries.map((entry) => [path.resolve(entry.source), entry]));
  if (byPath.size !== entries.length) throw new Error(`${path.basename(archive)}: a file given twice`);
  /** Names each file as the archive has it, with its mode (whatever the file's on this machine). @param {import("tar").WriteEntry} written */
  const onWriteEntry = (written) => {
    const entry = /** @type {{ name: string, mode: number }} */ (byPath.get(written.absolute));
    written.path = entry.name;
    if (written.stat) written.stat.mode = (written.stat.mode & ~0o7777) | entry.mode;
  };
  /** @type {import("tar").TarOptionsWithAliasesSyncFile} */
  const options = {
    file: archive,
    sync: true,
    gzip: { level: GZIP_LEVEL },
    portable: true,
    mtime: new Date(mtime * 1000),
    preservePaths: true,
    noDirRecurse: true,
    onWriteEntry,
  };
  tar.create(options, [...byPath.keys()]);
}

/**
 * Writes a plugin archive: the executable `source` at the root as `name`, beside LICENSE and the `extra` files (paths).
 * @param {string} archive @param {string} source @param {string} name @param {string[]} [extra]
 */
function writePluginArchive(archive, source, name, extra = []) {
  writeTarGz(
    archive,
    [
      { name, source, mode: 0o755 },
      ...extra.map((file) => ({ name: path.basename(file), source: file, mode: 0o644 })),
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
    writePluginArchive(archive, executable, PLUGIN, [path.join(staging, LAZY_FILE)]);
    return archive;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

module.exports = { BUNDLE_OPTIONS, LAZY_FILE, PLUGIN, ROOT, buildPluginArchive, bundlePlugin, packageVersion, sourceDateEpoch, writePluginArchive, writeTarGz };

if (require.main === module) {
  const archive = buildPluginArchive(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
  process.stdout.write(`wrote ${path.relative(process.cwd(), archive)} (${Math.round(fs.statSync(archive).size / 1024)} KiB)\n`);
}

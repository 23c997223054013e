// @ts-check
/**
 * The single-file plugin's V8 start-up snapshot: what tools/build-plugin-binary.js builds into the
 * single file in place of the plugin's script when the file's own `node` runs the build (a snapshot
 * only loads in the Node.js build that made it). The snapshot's main
 * script is dist/native/snapshot-entry.js and everything it loads, bundled into one script; Node.js
 * runs it once, while it builds the file (`useSnapshot`), and the single file then starts from the
 * heap it left, in which the gRPC service, the protobuf messages and the provider's shared logic
 * are loaded and the contract's schemas built, and runs the function it named.
 * Two builds give the same bytes, whoever builds them where: the `node` building the snapshot
 * runs with {@link SNAPSHOT_BUILD_FLAGS} and an empty environment (but for Windows' SystemRoot), the bundle is compiled under a
 * fixed name ({@link SNAPSHOT_MAIN}), and the entry clears the building process's pid from the heap
 * (Node.js sets it again at start). Without any one of these, two builds differ.
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const esbuild = require("esbuild");
const { BUNDLE_OPTIONS, ROOT } = require("../build-plugin-archive.js");

/**
 * The flags of the `node` that builds the snapshot. `--predictable`: V8 runs no concurrent compiler
 * or collector threads, so the heap's layout is the same each time (V8 leaves the flag out of the
 * hash a snapshot is checked against). `--no-warnings`: the warning Node.js prints when the build
 * loads a built-in it has not verified in snapshots (`node:vm`) names the building process's pid,
 * and what it writes stays in the heap. The empty environment keeps what the builder's shell sets
 * (FORCE_COLOR, NODE_OPTIONS, …) out of the heap.
 */
const SNAPSHOT_BUILD_FLAGS = ["--predictable", "--no-warnings"];

/** The name the snapshot's code has in stack traces, the same in every build. */
const SOURCE_URL = "pulumi-resource-analytics.js";

/**
 * The snapshot's main script: it reads the bundle ({@link snapshotBundle}) from beside itself and
 * compiles it as a function of `require` named {@link SOURCE_URL}. Node.js names the main script
 * by its absolute path, which lies in a fresh staging folder in each build, and the snapshot keeps
 * the name of every script whose code it holds; the main script's own code is gone by the time the
 * heap is written.
 */
const SNAPSHOT_MAIN = `"use strict";
const source = require("node:fs").readFileSync(require("node:path").join(__dirname, "snapshot-bundle.js"), "utf8");
require("node:vm").compileFunction(source, ["require"], { filename: ${JSON.stringify(SOURCE_URL)} })(require);
`;

/**
 * zod's `locales` (the error messages of some fifty languages, a sixth of the bundle) holding only
 * English, the one zod configures itself with and the only one the plugin's messages use: an
 * esbuild plugin answering zod's own `require("../locales/index.cjs")` with a module of `en` alone.
 * @type {import("esbuild").Plugin}
 */
const ZOD_ENGLISH_ONLY = {
  name: "zod-english-only",
  setup(build) {
    // The module's name, which the bundle keeps, is relative to the checkout: an absolute one would differ between checkouts.
    build.onResolve({ filter: /^\.\.\/locales\/index\.cjs$/ }, (args) =>
      args.importer.includes(`${path.sep}zod${path.sep}`)
        ? { path: path.relative(ROOT, path.join(path.dirname(args.importer), args.path)).split(path.sep).join("/"), namespace: "zod-english-only" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod-english-only" }, (args) => ({
      contents: `"use strict";\nObject.defineProperty(exports, "__esModule", { value: true });\nexports.en = require("./en.cjs").default;\n`,
      resolveDir: path.dirname(path.join(ROOT, args.path)),
      loader: "js",
    }));
  },
};

/**
 * dist/native/snapshot-entry.js and everything it loads, as one script (an immediately invoked
 * function: the snapshot's code gets `require`, of built-in modules only, and no `module` or
 * `exports`; zod's locales English alone, {@link ZOD_ENGLISH_ONLY}). The snapshot holds its source, which each start loads: without comments and
 * spaces (names kept, for stack traces) it is 1.9 MB instead of 2.9, and in ASCII, since one
 * character beyond Latin-1 (some of zod's and undici's comments have them; esbuild escapes those
 * of strings) makes V8 keep the whole source at two bytes a character.
 */
async function snapshotBundle() {
  const options = { ...BUNDLE_OPTIONS, format: /** @type {const} */ ("iife"), metafile: false, minifyWhitespace: true, minifySyntax: true, plugins: [ZOD_ENGLISH_ONLY] };
  const built = await esbuild.build({ ...options, entryPoints: [path.join(ROOT, "dist", "native", "snapshot-entry.js")] });
  return built.outputFiles[0].text.replace(/[^\x00-\x7f]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * Writes the snapshot's main script and bundle into `staging`; returns the single file's
 * application ({@link import("./single-executable.js").SeaApplication}), which the target's own
 * `node` builds with {@link SNAPSHOT_BUILD_FLAGS} in {@link snapshotBuildEnv}.
 * @param {string} staging
 * @returns {Promise<import("./single-executable.js").SeaApplication>}
 */
async function snapshotApp(staging) {
  fs.writeFileSync(path.join(staging, "snapshot-bundle.js"), await snapshotBundle());
  fs.writeFileSync(path.join(staging, "snapshot.js"), SNAPSHOT_MAIN);
  return { main: "snapshot.js", useSnapshot: true };
}

/**
 * The environment of the `node` that builds the snapshot: empty, but for Windows' SystemRoot,
 * without which a process cannot load its system libraries (and so, under qemu-user, without
 * QEMU_LD_PREFIX: the launcher names the libraries with `-L`).
 * @returns {NodeJS.ProcessEnv}
 */
function snapshotBuildEnv() {
  return process.platform === "win32" ? { SystemRoot: process.env.SystemRoot } : {};
}

module.exports = { SNAPSHOT_BUILD_FLAGS, snapshotApp, snapshotBuildEnv, snapshotBundle };

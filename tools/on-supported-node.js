#!/usr/bin/env node
// @ts-check
/**
 * Runs a command on a supported Node.js line: as it is when this `node` is on one, otherwise (on
 * linux-x64) with the pinned Node.js of tools/lib/node-runtime.js's FALLBACK_LINE first on PATH, fetched
 * and verified into the project cache on first use. `npm test` and `npm run demo` go through it, so
 * the README's two commands work on a machine whose own `node` is past its end of life.
 * Usage: node tools/on-supported-node.js <command> [args...]
 */
"use strict";
const { spawn } = require("node:child_process");
const path = require("node:path");
const { FALLBACK_LINE, NODE_LINES, isSupported, majorOf, nodeRuntime, supportedLines } = require("./lib/node-runtime.js");

/** The sentence that says why Node.js `version` is not used. @param {string} version */
function refusal(version) {
  const ended = NODE_LINES.find((l) => l.line === majorOf(version))?.endOfLife;
  const why = ended ? `reached its end of life on ${ended}` : "is not a supported line";
  return `Node.js ${version} ${why}; this project runs on Node.js ${supportedLines()
    .map((l) => l.line)
    .join(", ")}`;
}

/**
 * The environment for a command run from a `node` at `version`: `env` as it is on a supported line,
 * else `env` with the pinned Node.js of FALLBACK_LINE first on PATH.
 * @param {string} version
 * @param {{ env?: NodeJS.ProcessEnv, root?: string, log?: (line: string) => void }} [options]
 * @returns {Promise<NodeJS.ProcessEnv>}
 */
async function commandEnvironment(version, options = {}) {
  const env = options.env ?? process.env;
  if (isSupported(version)) return env;
  const log = options.log ?? ((/** @type {string} */ line) => process.stderr.write(`[node] ${line}\n`));
  try {
    const runtime = await nodeRuntime(FALLBACK_LINE, { log, ...(options.root ? { root: options.root } : {}) });
    log(`${refusal(version)}: running on Node.js ${runtime.version} from ${runtime.binDir}`);
    return { ...env, PATH: `${runtime.binDir}${path.delimiter}${env.PATH ?? ""}` };
  } catch (error) {
    throw new Error(`${refusal(version)}, and none could be fetched: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) throw new Error("usage: node tools/on-supported-node.js <command> [args...]");
  const env = await commandEnvironment(process.versions.node);
  const child = spawn(command, args, { stdio: "inherit", env, shell: process.platform === "win32" });
  // Ctrl-C reaches the whole process group, the command included: wait for it to exit.
  process.on("SIGINT", () => {});
  process.on("SIGTERM", () => child.kill("SIGTERM"));
  child.on("exit", (code, signal) => {
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}

module.exports = { commandEnvironment };

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}

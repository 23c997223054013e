#!/usr/bin/env node
// @ts-check
/**
 * Runs a single-file reference server (tools/build-reference-server-binary.js) once through what a
 * user does with it, to prove a built file works on the machine it is for before it ships:
 * `--version` must print the package's version and the pinned Node.js, as the plugin's; `openapi` must print the OpenAPI document of this version; `mint-key --user smoke --state <file>`
 * must print a key; started on that state file with `--port 0`, it must print its
 * `Reference server listening on <url>` line (the time from start to that line is printed, in
 * milliseconds) and answer a POST of an organization with that key with 201; SIGTERM must end it.
 * Prints one line per step; exits 1 naming the step that failed. Needs only Node.js (no `npm ci`),
 * like tools/smoke-plugin.js, whose process handling it shares.
 * Usage: node tools/smoke-reference-server.js <executable> [--stdio-files] [-- <launcher> [launcher args]]
 *   (`--stdio-files` and the launcher as tools/smoke-plugin.js takes them).
 */
"use strict";
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { STEP_TIMEOUT_MS, checkVersion, exited, packageVersion, runToEnd, smokeMain, stdioOf } = require("./smoke-plugin.js");

/** The line the server prints once it listens, with its URL. */
const LISTENING = /^Reference server listening on (http:\/\/\S+)$/m;

/**
 * Starts the server and waits for its listening line; returns the process, its URL and the milliseconds to that line.
 * @param {string[]} command @param {import("./smoke-plugin.js").PluginStdio} io @param {NodeJS.ProcessEnv} env
 * @returns {Promise<{ child: import("node:child_process").ChildProcess, url: string, readyMs: number }>}
 */
async function startServer(command, io, env) {
  const started = process.hrtime.bigint();
  const child = spawn(/** @type {string} */ (command[0]), command.slice(1), { stdio: io.stdio, env });
  io.attach(child);
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  for (;;) {
    const match = LISTENING.exec(io.read().stdout);
    if (match) return { child, url: /** @type {string} */ (match[1]), readyMs: Number(process.hrtime.bigint() - started) / 1e6 };
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`it exited (${child.exitCode ?? child.signalCode}) before listening: ${io.read().stderr}`);
    if (Date.now() > deadline) throw new Error(`no listening line within ${STEP_TIMEOUT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * POSTs an organization with `key`; throws unless the server answers 201 with it.
 * @param {string} url @param {string} key @param {(line: string) => void} log
 */
async function createOrganization(url, key, log) {
  const response = await fetch(`${url}/api/public/organizations`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Smoke" }),
    signal: AbortSignal.timeout(STEP_TIMEOUT_MS),
  });
  const body = /** @type {{ data?: { name?: string } }} */ (await response.json());
  if (response.status !== 201 || body.data?.name !== "Smoke")
    throw new Error(`POST /api/public/organizations answered ${response.status}: ${JSON.stringify(body)}`);
  log("POST /api/public/organizations: 201");
}

/**
 * Runs every step against `executable`; resolves once the server has ended, rejects naming the failed step.
 * @param {string} executable
 * @param {{ launcher?: string[], stdioFiles?: boolean, env?: NodeJS.ProcessEnv, log?: (line: string) => void }} [options]
 */
async function smokeReferenceServer(executable, options = {}) {
  const log = options.log ?? ((line) => process.stdout.write(`${line}\n`));
  const files = options.stdioFiles === true;
  const command = [...(options.launcher ?? []), executable];
  const env = options.env ?? process.env;
  checkVersion(command, files, env, log);
  const document = JSON.parse(runToEnd([...command, "openapi"], files, env));
  if (document.openapi !== "3.1.0" || document.info?.version !== packageVersion())
    throw new Error(`openapi printed OpenAPI ${document.openapi} of version ${document.info?.version}, not 3.1.0 of ${packageVersion()}`);
  log(`openapi: OpenAPI ${document.openapi}, version ${document.info.version}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "smoke-reference-server-"));
  const io = stdioOf(files);
  try {
    const state = path.join(dir, "state.json");
    const key = runToEnd([...command, "mint-key", "--user", "smoke", "--state", state], files, env).trim();
    if (!/^analytics_key_\S+$/.test(key)) throw new Error(`mint-key printed ${key.length} characters, not a key`);
    log("mint-key: a key");
    const { child, url, readyMs } = await startServer([...command, "--port", "0", "--state", state], io, env);
    try {
      log(`listening: ${Math.round(readyMs)} ms after start`);
      await createOrganization(url, key, log);
    } finally {
      child.kill("SIGTERM");
      log((await exited(child, 30_000)) ? "ended when sent SIGTERM" : "did not end within 30 s: killed");
    }
  } finally {
    io.remove();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { smokeReferenceServer };

if (require.main === module) smokeMain("smoke-reference-server.js", smokeReferenceServer);

#!/usr/bin/env node
// @ts-check
/**
 * Starts a single-file plugin as the engine does and speaks to it once, to prove a built file
 * runs on the machine it is for before it ships: `--version` must print the package's version and
 * the pinned Node.js; started with no argument it must print its port as its first line of
 * stdout; then one `GetPluginInfo` (its version) and one `Check` of an Organization over gRPC
 * (HTTP/2, `node:http2`, the gRPC length-prefixed framing, the protobuf messages written here by
 * hand), and closing its stdin must end it. Prints one line per step; exits 1 naming the step that
 * failed. Needs only Node.js (no `npm ci`): the release workflow runs it where the file was built,
 * and on the runner of each platform it was built for.
 * Usage: node tools/smoke-plugin.js <executable> [--stdio-files] [-- <launcher> [launcher args]]
 *   `-- qemu-aarch64-static -L /usr/aarch64-linux-gnu` runs it through a launcher (an emulator);
 *   `--stdio-files` gives it files for stdout and stderr and nothing for stdin, for Wine, where
 *   Node.js cannot open a pipe as stdio (`Error: open EBADF`); it is then stopped with SIGTERM.
 */
"use strict";
const { spawn, spawnSync } = require("node:child_process");
const fs = require("node:fs");
const http2 = require("node:http2");
const os = require("node:os");
const path = require("node:path");
const { PLUGIN_LINE, supportedLine } = require("./lib/node-runtime.js");

/** The package's version, which the plugin must say. (Not build-plugin-archive.js's: this script runs where no `npm ci` has.) */
const packageVersion = () => String(JSON.parse(fs.readFileSync(path.join(__dirname, "..", "package.json"), "utf8")).version);

/** How long a step may take: an emulated arm64 plugin starts in seconds, not milliseconds. */
const STEP_TIMEOUT_MS = 120_000;

/** A protobuf varint. @param {number} n */
function varint(n) {
  const bytes = [];
  while (n > 0x7f) {
    bytes.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  bytes.push(n);
  return Buffer.from(bytes);
}

/** A length-delimited protobuf field (a string, bytes or a message). @param {number} number @param {Buffer | string} payload */
function lengthField(number, payload) {
  const bytes = Buffer.from(payload);
  return Buffer.concat([varint((number << 3) | 2), varint(bytes.length), bytes]);
}

/** A google.protobuf.Struct of string values. @param {Record<string, string>} values */
function stringStruct(values) {
  return Buffer.concat(
    Object.entries(values).map(([key, value]) => lengthField(1, Buffer.concat([lengthField(1, key), lengthField(2, lengthField(3, value))]))),
  );
}

/**
 * The fields of a protobuf message: each length-delimited field's bytes, by number (varint fields as numbers).
 * @param {Buffer} message
 * @returns {Map<number, Array<Buffer | number>>}
 */
function fieldsOf(message) {
  /** @type {Map<number, Array<Buffer | number>>} */
  const fields = new Map();
  let at = 0;
  const read = () => {
    let value = 0;
    for (let shift = 1; ; shift *= 128) {
      const byte = /** @type {number} */ (message[at++]);
      value += (byte & 0x7f) * shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < message.length) {
    const tag = read();
    const wire = tag & 7;
    /** @type {Buffer | number} */
    let value;
    if (wire === 0) value = read();
    else if (wire === 2) {
      const length = read();
      value = message.subarray(at, at + length);
      at += length;
    } else if (wire === 1 || wire === 5) {
      value = message.subarray(at, (at += wire === 1 ? 8 : 4));
    } else throw new Error(`protobuf wire type ${wire} is not expected here`);
    fields.set(tag >> 3, [...(fields.get(tag >> 3) ?? []), value]);
  }
  return fields;
}

/** The string values of a google.protobuf.Struct (others left out). @param {Buffer} struct */
function structStrings(struct) {
  /** @type {Record<string, string>} */
  const values = {};
  for (const entry of fieldsOf(struct).get(1) ?? []) {
    const parts = fieldsOf(/** @type {Buffer} */ (entry));
    const value = fieldsOf(/** @type {Buffer} */ (parts.get(2)?.[0] ?? Buffer.alloc(0))).get(3)?.[0];
    if (Buffer.isBuffer(value)) values[String(parts.get(1)?.[0])] = value.toString("utf8");
  }
  return values;
}

/**
 * One unary gRPC call: the message in the length-prefixed frame, the answer's message, or an error with its grpc-status and grpc-message.
 * @param {http2.ClientHttp2Session} session @param {string} method @param {Buffer} message
 * @returns {Promise<Buffer>}
 */
function unary(session, method, message) {
  return new Promise((resolve, reject) => {
    const prefix = Buffer.alloc(5);
    prefix.writeUInt32BE(message.length, 1);
    const stream = session.request({ ":method": "POST", ":path": method, "content-type": "application/grpc", te: "trailers" });
    stream.setTimeout(STEP_TIMEOUT_MS, () => stream.close(http2.constants.NGHTTP2_CANCEL));
    /** @type {Buffer[]} */
    const chunks = [];
    /** @type {http2.IncomingHttpHeaders} */
    let status = {};
    stream.on("response", (headers) => (status = headers));
    stream.on("trailers", (trailers) => (status = { ...status, ...trailers }));
    stream.on("data", (chunk) => chunks.push(chunk));
    stream.on("error", reject);
    stream.on("close", () => {
      const body = Buffer.concat(chunks);
      if (status["grpc-status"] !== "0")
        reject(new Error(`${method} answered grpc-status ${String(status["grpc-status"])}: ${decodeURIComponent(String(status["grpc-message"] ?? ""))}`));
      else if (body.length < 5 || body.readUInt32BE(1) !== body.length - 5) reject(new Error(`${method} answered ${body.length} bytes, not one gRPC message`));
      else resolve(body.subarray(5));
    });
    stream.end(Buffer.concat([prefix, message]));
  });
}

/**
 * @typedef {object} PluginStdio Where a plugin's stdio goes, and what it wrote there.
 * @property {import("node:child_process").StdioOptions} stdio
 * @property {(child?: import("node:child_process").ChildProcess) => void} attach Called once the process is started.
 * @property {() => { stdout: string, stderr: string }} read What it has written so far.
 * @property {() => void} remove Removes the files, if any.
 */

/**
 * Pipes, as the engine gives them, or with `files` two files in a temp folder for stdout and
 * stderr and nothing for stdin.
 * @param {boolean} files
 * @returns {PluginStdio}
 */
function stdioOf(files) {
  if (!files) {
    const written = { stdout: "", stderr: "" };
    const attach = (/** @type {import("node:child_process").ChildProcess | undefined} */ child) => {
      child?.stdout?.on("data", (chunk) => (written.stdout += chunk));
      child?.stderr?.on("data", (chunk) => (written.stderr += chunk));
    };
    return { stdio: ["pipe", "pipe", "pipe"], attach, read: () => written, remove: () => {} };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "smoke-plugin-"));
  const fds = [fs.openSync(path.join(dir, "stdout"), "w"), fs.openSync(path.join(dir, "stderr"), "w")];
  return {
    stdio: ["ignore", fds[0], fds[1]],
    attach: () => fds.forEach((fd) => fs.closeSync(fd)),
    read: () => ({ stdout: fs.readFileSync(path.join(dir, "stdout"), "utf8"), stderr: fs.readFileSync(path.join(dir, "stderr"), "utf8") }),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * The command's stdout once it has exited: `executable --version` (through its launcher).
 * @param {string[]} command @param {boolean} files @param {NodeJS.ProcessEnv} env
 */
function runToEnd(command, files, env) {
  const io = stdioOf(files);
  try {
    const result = spawnSync(/** @type {string} */ (command[0]), command.slice(1), { stdio: io.stdio, encoding: "utf8", timeout: STEP_TIMEOUT_MS, env });
    io.attach();
    const output = files ? io.read() : { stdout: result.stdout, stderr: result.stderr };
    if (result.status !== 0) throw new Error(`${command.join(" ")} exited ${result.status ?? result.signal}: ${output.stderr}`);
    return output.stdout;
  } finally {
    io.remove();
  }
}

/**
 * The `executable` (through `launcher`) started as the engine starts it, with its first line of
 * stdout as its port.
 * @param {string[]} command The launcher's words and the executable.
 * @param {PluginStdio} io
 * @param {NodeJS.ProcessEnv} env
 * @returns {Promise<{ child: import("node:child_process").ChildProcess, port: number }>}
 */
async function startPlugin(command, io, env) {
  const child = spawn(/** @type {string} */ (command[0]), command.slice(1), { stdio: io.stdio, env });
  io.attach(child);
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  while (!io.read().stdout.includes("\n")) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`it exited (${child.exitCode ?? child.signalCode}) before printing its port: ${io.read().stderr}`);
    if (Date.now() > deadline) throw new Error(`no port line within ${STEP_TIMEOUT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const { stdout } = io.read();
  const line = stdout.slice(0, stdout.indexOf("\n")).trim();
  if (!/^\d+$/.test(line)) throw new Error(`its first line of stdout is ${JSON.stringify(line)}, not a port`);
  return { child, port: Number(line) };
}

/** Waits for `child` to exit, for at most `ms`; kills it after. @param {import("node:child_process").ChildProcess} child @param {number} ms @returns {Promise<boolean>} */
function exited(child, ms) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(true);
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve(false);
    }, ms);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** The URN of an Organization `acme` of a stack `smoke`, and what its Check sends. */
const CHECK_URN = "urn:pulumi:smoke::smoke::analytics:index:Organization::acme";
const CHECK_NEWS = { name: "Acme" };

/**
 * The gRPC calls: GetPluginInfo's version, and Check's inputs for {@link CHECK_NEWS}, which must
 * come back unchanged with no failure.
 * @param {number} port @param {(line: string) => void} log
 */
async function callPlugin(port, log) {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  session.on("error", () => {});
  try {
    const info = await unary(session, "/pulumirpc.ResourceProvider/GetPluginInfo", Buffer.alloc(0));
    const version = String(fieldsOf(info).get(1)?.[0] ?? "");
    if (version !== packageVersion()) throw new Error(`GetPluginInfo answered version ${JSON.stringify(version)}, not ${packageVersion()}`);
    log(`GetPluginInfo: version ${version}`);
    const request = Buffer.concat([
      lengthField(1, CHECK_URN),
      lengthField(2, stringStruct({})),
      lengthField(3, stringStruct(CHECK_NEWS)),
      lengthField(5, Buffer.alloc(32)),
    ]);
    const response = fieldsOf(await unary(session, "/pulumirpc.ResourceProvider/Check", request));
    const inputs = structStrings(/** @type {Buffer} */ (response.get(1)?.[0] ?? Buffer.alloc(0)));
    const failures = (response.get(2) ?? []).map((failure) =>
      fieldsOf(/** @type {Buffer} */ (failure))
        .get(2)?.[0]
        ?.toString(),
    );
    if (failures.length > 0 || inputs.name !== CHECK_NEWS.name)
      throw new Error(`Check answered inputs ${JSON.stringify(inputs)} and failures ${JSON.stringify(failures)}`);
    log(`Check: Organization inputs ${JSON.stringify(inputs)}, no failure`);
  } finally {
    session.close();
  }
}

/**
 * Runs `--version` and throws unless it printed the package's version and the pinned Node.js, as every single file must.
 * @param {string[]} command @param {boolean} files @param {NodeJS.ProcessEnv} env @param {(line: string) => void} log
 */
function checkVersion(command, files, env, log) {
  const expected = `${packageVersion()} (Node.js v${supportedLine(PLUGIN_LINE).pinned})`;
  const printed = runToEnd([...command, "--version"], files, env).trim();
  if (printed !== expected) throw new Error(`--version printed ${JSON.stringify(printed)}, not ${JSON.stringify(expected)}`);
  log(`--version: ${printed}`);
}

/**
 * Runs every step against `executable`; resolves once the plugin has ended, rejects naming the failed step.
 * @param {string} executable
 * @param {{ launcher?: string[], stdioFiles?: boolean, env?: NodeJS.ProcessEnv, log?: (line: string) => void }} [options]
 */
async function smokePlugin(executable, options = {}) {
  const log = options.log ?? ((line) => process.stdout.write(`${line}\n`));
  const files = options.stdioFiles === true;
  const command = [...(options.launcher ?? []), executable];
  const env = options.env ?? process.env;
  checkVersion(command, files, env, log);
  const io = stdioOf(files);
  try {
    const { child, port } = await startPlugin(command, io, env);
    try {
      log(`port: ${port}`);
      await callPlugin(port, log);
    } finally {
      if (files) child.kill("SIGTERM");
      else child.stdin?.end();
      const ended = await exited(child, 30_000);
      log(ended ? `ended when ${files ? "sent SIGTERM" : "its stdin closed"}` : "did not end within 30 s: killed");
    }
  } finally {
    io.remove();
  }
}

module.exports = { STEP_TIMEOUT_MS, checkVersion, exited, packageVersion, runToEnd, smokeMain, smokePlugin, stdioOf };

/**
 * The command line of a smoke script: `node tools/<script> <executable> [--stdio-files] [-- <launcher> [launcher args]]`,
 * running `smoke` on the executable and exiting 0, 1 (its failure) or 2 (bad usage).
 * @param {string} script The script's file name, for the usage line.
 * @param {(executable: string, options: { launcher: string[], stdioFiles: boolean }) => Promise<unknown>} smoke
 */
function smokeMain(script, smoke) {
  const args = process.argv.slice(2);
  const dashes = args.indexOf("--");
  const own = dashes < 0 ? args : args.slice(0, dashes);
  const executable = own.find((arg) => !arg.startsWith("--"));
  if (!executable) {
    process.stderr.write(`usage: node tools/${script} <executable> [--stdio-files] [-- <launcher> [launcher args]]\n`);
    process.exit(2);
  }
  smoke(path.resolve(executable), { launcher: dashes < 0 ? [] : args.slice(dashes + 1), stdioFiles: own.includes("--stdio-files") }).then(
    () => process.exit(0),
    (error) => {
      process.stderr.write(`smoke test of ${executable} failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}

if (require.main === module) smokeMain("smoke-plugin.js", smokePlugin);

// @ts-check
/**
 * BuildKit, the builder of the reference server's container image: the pinned buildkitd and
 * buildctl (tools/pinned/buildkit, built into the project cache on first use), buildkitd started
 * for one build in a temp folder of its own and stopped after it; or, with `docker buildx`, the
 * BuildKit of the current builder (the release workflow's). Both take one Dockerfile build the
 * same way: its platforms, its build arguments with SOURCE_DATE_EPOCH, and one `--output`.
 */
"use strict";
const { execFile, spawn } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

/** The pinned release; tools/pinned/buildkit/go.mod requires the same. */
const BUILDKIT_VERSION = "0.35.1";

/**
 * One program of the pinned module, as a PinnedGoTool of toolchain/src/pulumi-cli.ts.
 * @param {"buildkitd" | "buildctl"} name
 */
const buildkitTool = (name) => ({
  name,
  version: BUILDKIT_VERSION,
  moduleDir: path.join(__dirname, "..", "pinned", "buildkit"),
  goPackage: `github.com/moby/buildkit/cmd/${name}`,
  binary: name,
  ldflags: `-X github.com/moby/buildkit/version.Version=v${BUILDKIT_VERSION} -X github.com/moby/buildkit/version.Package=github.com/moby/buildkit`,
});
const BUILDKITD = buildkitTool("buildkitd");
const BUILDCTL = buildkitTool("buildctl");

/** How long buildkitd may take to answer, and to stop once asked. */
const START_MS = 60_000;
const STOP_MS = 20_000;

/**
 * One Dockerfile build: the Dockerfile, the folder of its context, its platforms (`linux/amd64`),
 * its build arguments, the time that dates the image and its files (SOURCE_DATE_EPOCH, in
 * seconds), and the exporter's options (`type=oci,dest=…`).
 * @typedef {{ dockerfile: string, context: string, platforms: string[], args: Record<string, string>, epoch: number, output: string }} DockerfileBuild
 */

/** The build arguments, SOURCE_DATE_EPOCH last. @param {DockerfileBuild} build @returns {[string, string][]} */
const buildArguments = (build) => [...Object.entries(build.args), ["SOURCE_DATE_EPOCH", String(build.epoch)]];

/**
 * Runs `command`, resolving with its stdout; a failure rejects with what it printed.
 * @param {string} command @param {string[]} args @param {string} what in the error, e.g. `buildctl build`
 * @returns {Promise<string>}
 */
function run(command, args, what) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${what} failed (${error.code ?? error.signal}):\n${stderr}${stdout}`));
      else resolve(stdout);
    });
  });
}

/** The toolchain's resolvePinnedGoTool, from its build (toolchain/dist, which `npm run build` writes). */
function pinnedGoToolResolver() {
  const built = path.join(__dirname, "..", "..", "toolchain", "dist", "pulumi-cli.js");
  if (!fs.existsSync(built)) throw new Error(`${built} is missing: run \`npm run build\` first.`);
  /** @type {{ resolvePinnedGoTool: (tool: typeof BUILDKITD, options?: { log?: (line: string) => void }) => Promise<string> }} */
  const toolchain = require(built);
  return toolchain.resolvePinnedGoTool;
}

/** The pinned buildkitd and buildctl, built on first use. @param {(line: string) => void} log */
async function resolveBuildkit(log) {
  const resolve = pinnedGoToolResolver();
  return { buildkitd: await resolve(BUILDKITD, { log }), buildctl: await resolve(BUILDCTL, { log }) };
}

/**
 * A buildkitd of its own in `dir`: its state, its socket and its log there, the OCI worker (runc)
 * with the native snapshotter, no containerd, no configuration file but an empty one of `dir`.
 * @param {string} buildkitd @param {string} dir
 */
function spawnBuildkitd(buildkitd, dir) {
  const config = path.join(dir, "buildkitd.toml");
  fs.writeFileSync(config, "");
  const addr = `unix://${path.join(dir, "buildkitd.sock")}`;
  const logFile = path.join(dir, "buildkitd.log");
  const out = fs.openSync(logFile, "a");
  const args = ["--config", config, "--root", path.join(dir, "root"), "--addr", addr, "--oci-worker-snapshotter", "native", "--containerd-worker", "false"];
  const child = spawn(buildkitd, args, { stdio: ["ignore", out, out] });
  fs.closeSync(out);
  /** @type {Promise<string>} */
  const exited = new Promise((resolve) => {
    child.once("error", (error) => resolve(error.message));
    child.once("exit", (code, signal) => resolve(signal ? `signal ${signal}` : `exit ${code}`));
  });
  return { child, addr, exited, log: () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8") : "") };
}

/** @typedef {ReturnType<typeof spawnBuildkitd>} Buildkitd */

/** Resolves after `ms` with `value`. @template T @param {number} ms @param {T} value @returns {Promise<T>} */
const after = (ms, value) => new Promise((resolve) => setTimeout(resolve, ms, value));

/**
 * Waits until buildkitd answers `buildctl debug workers`; rejects with its log when it exits or
 * does not answer within {@link START_MS}.
 * @param {Buildkitd} daemon @param {string} buildctl
 */
async function waitForWorkers(daemon, buildctl) {
  /** @type {string | undefined} */
  let gone;
  void daemon.exited.then((how) => (gone = how));
  const deadline = Date.now() + START_MS;
  for (;;) {
    const answer = await run(buildctl, ["--addr", daemon.addr, "debug", "workers"], "buildctl debug workers").then(
      () => "",
      (error) => error.message,
    );
    if (!answer) return;
    if (gone) throw new Error(`buildkitd stopped before it answered (${gone}):\n${daemon.log()}`);
    if (Date.now() > deadline) throw new Error(`buildkitd did not answer within ${START_MS / 1000} s:\n${answer}\n${daemon.log()}`);
    await after(250, undefined);
  }
}

/** Stops buildkitd: SIGTERM, then SIGKILL after {@link STOP_MS}; resolves once it has exited. @param {Buildkitd} daemon */
async function stopBuildkitd(daemon) {
  if (daemon.child.exitCode !== null || daemon.child.signalCode !== null || daemon.child.pid === undefined) return;
  daemon.child.kill("SIGTERM");
  if ((await Promise.race([daemon.exited, after(STOP_MS, "")])) === "") {
    daemon.child.kill("SIGKILL");
    await daemon.exited;
  }
}

/**
 * What {@link withBuildkitd} gives its body: buildctl's runner on that buildkitd (its arguments
 * after `--addr`, and the words its error starts with), the daemon's pid and its folder.
 * @typedef {{ buildctl: (args: string[], what: string) => Promise<string>, pid: number, dir: string }} RunningBuildkitd
 */

/**
 * Runs `body` with a buildkitd started for it and stops buildkitd after, whether `body` succeeded
 * or not; its folder goes with it.
 * @template T
 * @param {(buildkitd: RunningBuildkitd) => Promise<T>} body
 * @param {{ log?: (line: string) => void }} [options]
 * @returns {Promise<T>}
 */
async function withBuildkitd(body, { log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const { buildkitd, buildctl } = await resolveBuildkit(log);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-buildkitd-"));
  const daemon = spawnBuildkitd(buildkitd, dir);
  try {
    await waitForWorkers(daemon, buildctl);
    /** @type {RunningBuildkitd["buildctl"]} */
    const runBuildctl = (args, what) => run(buildctl, ["--addr", daemon.addr, ...args], what);
    return await body({ buildctl: runBuildctl, pid: /** @type {number} */ (daemon.child.pid), dir });
  } finally {
    await stopBuildkitd(daemon);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Builds `build` with the pinned BuildKit: buildctl's Dockerfile frontend on a buildkitd of its own.
 * @param {DockerfileBuild} build @param {{ log?: (line: string) => void }} [options]
 */
function buildWithBuildctl(build, options) {
  const args = ["build", "--frontend", "dockerfile.v0", "--local", `context=${build.context}`, "--local", `dockerfile=${path.dirname(build.dockerfile)}`];
  args.push("--opt", `filename=${path.basename(build.dockerfile)}`, "--opt", `platform=${build.platforms.join(",")}`);
  for (const [key, value] of buildArguments(build)) args.push("--opt", `build-arg:${key}=${value}`);
  args.push("--output", build.output);
  return withBuildkitd(async ({ buildctl }) => void (await buildctl(args, "buildctl build")), options);
}

/**
 * Builds `build` with `docker buildx` on its current builder (one that exports OCI, e.g. the
 * docker-container driver's BuildKit), without the provenance and SBOM attestations buildx adds.
 * @param {DockerfileBuild} build
 */
async function buildWithBuildx(build) {
  const args = ["buildx", "build", "--platform", build.platforms.join(","), "--provenance=false", "--sbom=false"];
  for (const [key, value] of buildArguments(build)) args.push("--build-arg", `${key}=${value}`);
  args.push("--output", build.output, "--file", build.dockerfile, build.context);
  await run("docker", args, "docker buildx build");
}

module.exports = { BUILDCTL, BUILDKITD, BUILDKIT_VERSION, buildWithBuildctl, buildWithBuildx, withBuildkitd };

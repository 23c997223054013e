/**
 * The reference server's container image of this test run's release folder
 * (test/support/release-folder.ts), loaded into podman's local storage once per run however many
 * test files ask for it (its linux/amd64 and linux/arm64 images, under tags naming the run, which
 * the end of the run removes: test/support/test-run.js), and containers of it that the caller
 * starts and {@link removeContainers} removes with the volumes and networks made for them.
 */
import { execFile } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { withLock } from "../../toolchain/src/go-build";
import { repoRoot } from "./pulumi-workspace";
import { sharedReleaseFolder } from "./release-folder";
import { IMAGE_REPOSITORY, currentRunId, runFolder, runImageTag } from "./test-run.js";

export { IMAGE_REPOSITORY };

/** A command's outcome: its exit code (never thrown) and what it printed. */
export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `command` with `args`, resolving with its exit code and output (a failure is a code, not an exception). */
export function run(command: string, args: readonly string[], timeoutMs = 120_000): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** Runs podman, throwing with its output when it fails. */
export async function podman(args: readonly string[], timeoutMs?: number): Promise<string> {
  const result = await run("podman", args, timeoutMs);
  if (result.code !== 0) throw new Error(`podman ${args.join(" ")} exited ${result.code}:\n${result.stderr}${result.stdout}`);
  return result.stdout.trim();
}

/** The run's image: the release's OCI tar, its version, the index's digest and each platform's local reference. */
export interface ReferenceImage {
  /** The release's `analytics-reference-server-v<version>-oci.tar`. */
  archive: string;
  /** The package's version, the tag of the image's full name in the archive's index.json. */
  version: string;
  /** The digest of the archive's image index. */
  indexDigest: string;
  /** The linux/amd64 image in podman's storage, `localhost/analytics-reference-server:run-<id>`. */
  ref: string;
  /** The linux/arm64 image, `<ref>-arm64`. */
  arm64Ref: string;
}

const version = (): string => JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")).version;

/** The run's image, loaded into podman (`skopeo copy oci-archive:... containers-storage:...`) by the first caller of the run. */
export async function referenceImage(log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Promise<ReferenceImage> {
  const runId = currentRunId();
  const release = await sharedReleaseFolder(log);
  const archive = path.join(release, `analytics-reference-server-v${version()}-oci.tar`);
  const ref = `${IMAGE_REPOSITORY}:${runImageTag(runId)}`;
  const image = { archive, version: version(), ref, arm64Ref: `${ref}-arm64` };
  const marker = path.join(runFolder(runId), ".image-loaded");
  await withLock(
    `${runFolder(runId)}.image.lock`,
    log,
    async () => {
      if (fs.existsSync(marker)) return;
      for (const [arch, target] of [
        ["amd64", image.ref],
        ["arm64", image.arm64Ref],
      ]) {
        const copied = await run(
          "skopeo",
          ["copy", "--quiet", "--override-os", "linux", "--override-arch", arch, `oci-archive:${archive}`, `containers-storage:${target}`],
          300_000,
        );
        if (copied.code !== 0) throw new Error(`skopeo could not load the ${arch} image of ${archive}:\n${copied.stderr}`);
      }
      log(`[image] loaded ${image.ref} and ${image.arm64Ref} from ${archive}`);
      fs.writeFileSync(marker, "");
    },
    "the reference server image",
  );
  const raw = await run("skopeo", ["inspect", "--raw", `oci-archive:${archive}`]);
  if (raw.code !== 0) throw new Error(`skopeo inspect ${archive}: ${raw.stderr}`);
  return { ...image, indexDigest: `sha256:${crypto.createHash("sha256").update(raw.stdout).digest("hex")}` };
}

/** How to start a container of the image. */
export interface ContainerOptions {
  /** The image (default: the run's linux/amd64 one). */
  image?: string;
  /** `--platform` (linux/arm64 runs under qemu-user). */
  platform?: "linux/amd64" | "linux/arm64";
  /** Its environment, e.g. `ANALYTICS_API_KEY` or `ANALYTICS_ALLOWED_HOSTS`. */
  env?: Record<string, string>;
  /** A named volume mounted at /data (see {@link createVolume}). */
  volume?: string;
  /** Publish 8080 on a free port of 127.0.0.1 and wait for the server to answer (default true). */
  publish?: boolean;
  /** A podman network (see {@link createNetwork}) and the name other containers reach it by. */
  network?: string;
  alias?: string;
  /** Replaces the image's entrypoint (one program). */
  entrypoint?: string;
  /** Replaces the image's Cmd. */
  args?: string[];
  /** Further `podman run` options, e.g. a health check. */
  runOptions?: string[];
}

/** A container started by {@link startContainer}. */
export interface StartedContainer {
  containerId: string;
  /** `http://127.0.0.1:<port>` when published. */
  url: string;
  port: number;
  /** What it printed to stdout and stderr so far. */
  logs(): Promise<string>;
  /** Its logs once they hold `text` (a server may answer before its line reaches the log), or an error after `timeoutMs`. */
  waitForLogs(text: string | RegExp, timeoutMs?: number): Promise<string>;
  /** `podman stop` (SIGTERM, then the image's stop timeout). */
  stop(): Promise<void>;
  /** `podman start` again, then waits as at the first start; the port may change. */
  start(): Promise<void>;
}

const containers: string[] = [];
const volumes: string[] = [];
const networks: string[] = [];

/** A unique name for something this run makes in podman. */
function uniqueName(kind: string): string {
  return `analytics-test-${kind}-${process.pid}-${crypto.randomBytes(4).toString("hex")}`;
}

/** A fresh named volume, removed by {@link removeContainers}. */
export async function createVolume(): Promise<string> {
  const name = uniqueName("volume");
  await podman(["volume", "create", name]);
  volumes.push(name);
  return name;
}

/** A fresh podman network (with DNS: containers reach each other by alias), removed by {@link removeContainers}. */
export async function createNetwork(): Promise<string> {
  const name = uniqueName("net");
  await podman(["network", "create", name]);
  networks.push(name);
  return name;
}

/** `podman run` arguments for `options`. */
function runArguments(options: ContainerOptions, image: string): string[] {
  const args = ["run", "-d", "--name", uniqueName("server")];
  if (options.platform) args.push("--platform", options.platform);
  for (const [key, value] of Object.entries(options.env ?? {})) args.push("--env", `${key}=${value}`);
  if (options.volume) args.push("--volume", `${options.volume}:/data`);
  if (options.publish !== false) args.push("--publish", "127.0.0.1::8080");
  if (options.network) args.push("--network", options.network);
  if (options.alias) args.push("--network-alias", options.alias);
  if (options.entrypoint) args.push("--entrypoint", options.entrypoint);
  return [...args, ...(options.runOptions ?? []), image, ...(options.args ?? [])];
}

/** The published port of 8080, then the server answering GET /_reference/ready with 200. */
async function waitReady(containerId: string, timeoutMs: number): Promise<number> {
  const port = Number(/:(\d+)\s*$/.exec(await podman(["port", containerId, "8080/tcp"]))?.[1]);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/_reference/ready`)).status === 200) return port;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`container ${containerId} not ready after ${timeoutMs} ms:\n${await podman(["logs", containerId])}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts a container of the image (the run's linux/amd64 one, or the arm64 one for `platform: "linux/arm64"`) and, when published, waits until it is ready. */
export async function startContainer(options: ContainerOptions = {}): Promise<StartedContainer> {
  const image = options.image ?? (options.platform === "linux/arm64" ? (await referenceImage()).arm64Ref : (await referenceImage()).ref);
  const containerId = await podman(runArguments(options, image));
  containers.push(containerId);
  const readyWithin = options.platform === "linux/arm64" ? 120_000 : 30_000;
  const started: StartedContainer = {
    containerId,
    url: "",
    port: 0,
    logs: async () => {
      const result = await run("podman", ["logs", containerId]);
      return result.stdout + result.stderr;
    },
    waitForLogs: async (text, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const logs = await started.logs();
        if (typeof text === "string" ? logs.includes(text) : new RegExp(text.source, text.flags.replace("g", "")).test(logs)) return logs;
        if (Date.now() > deadline) throw new Error(`container ${containerId} did not log ${String(text)} within ${timeoutMs} ms:\n${logs}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    stop: async () => void (await podman(["stop", containerId])),
    start: async () => {
      await podman(["start", containerId]);
      if (options.publish !== false) setPort(await waitReady(containerId, readyWithin));
    },
  };
  const setPort = (port: number) => Object.assign(started, { port, url: `http://127.0.0.1:${port}` });
  if (options.publish !== false) setPort(await waitReady(containerId, readyWithin));
  return started;
}

/** Removes every container this process started, then its volumes and networks. */
export async function removeContainers(): Promise<void> {
  for (const id of containers.splice(0)) await run("podman", ["rm", "--force", "--time", "0", id]);
  for (const name of volumes.splice(0)) await run("podman", ["volume", "rm", "--force", name]);
  for (const name of networks.splice(0)) await run("podman", ["network", "rm", "--force", name]);
}

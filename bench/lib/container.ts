/**
 * Scenario container's measurement: the reference server's image (tools/build-reference-server-image.js)
 * started by podman and by a dockerd of its own (bench/lib/dockerd.ts), each beside that engine's
 * floor (bench/fixtures/container-floor: a static program answering 200 on the same port), and
 * its linux-x64 single file and `node dist/reference-server/bin.js` on the host. Each start is
 * timed from the start command to the first 200 of `GET /_reference/ready`: `<engine> run -d` of
 * the image (its own command line, the key in ANALYTICS_API_KEY, the port published on 127.0.0.1),
 * the host's processes with a state file, the same key user and key. One warm-up round, then
 * `reps` rounds of one start of each, the order alternating; a ratio is the median of the rounds'
 * own. And each platform's image size, compressed (config and layer, as a registry stores them).
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { startDockerd } from "./dockerd";
import { bounded, type Figure } from "./figure";
import { askOnceListening, freePort, spawnGroup } from "./spawned";
import { median, pairedRatio, round } from "./stats";
import { repoRoot } from "./workspace";

/** What is started: each engine's server image and floor image, and the server on the host. */
export type ContainerSubject = "podman" | "podman floor" | "docker" | "docker floor" | "single" | "script";

/**
 * Everything the scenario measured: ms from the start command to the first 200 of
 * /_reference/ready, per start, per subject; the image's compressed bytes per platform (config and
 * layer, as a pull fetches them); the image index's digest; each subject's command line.
 */
export interface ContainerResult {
  readyMs: Record<ContainerSubject, number[]>;
  imageBytes: Record<string, number>;
  indexDigest: string;
  commands: Record<ContainerSubject, string>;
}

/** The images' names in podman's storage and dockerd's while the bench runs. */
const IMAGE = "localhost/analytics-reference-server:bench";
const FLOOR = "localhost/analytics-container-floor:bench";
/** The user the key is registered for, as the image's own command line names it. */
const KEY_USER = "ci";
/** Targets. */
const CONTAINER_TARGET = 1.3;
const SINGLE_TARGET = 1.0;
const SIZE_TARGET_MB = 60;

/** The linux-amd64 and linux-arm64 single files and the image index made of them, into bench/tmp/container. */
async function buildImage(log: (line: string) => void): Promise<{ single: string; layout: string; indexDigest: string; imageBytes: Record<string, number> }> {
  const tools = path.join(repoRoot, "tools");
  const { buildReferenceServerBinaries } = require(path.join(tools, "build-reference-server-binary.js")) as {
    buildReferenceServerBinaries: (
      out: string,
      options: { targets: readonly unknown[]; log: (line: string) => void },
    ) => Promise<Array<{ binary: string; target: { os: string; arch: string } }>>;
  };
  const { TARGETS } = require(path.join(tools, "lib", "single-executable.js")) as { TARGETS: ReadonlyArray<{ os: string; arch: string }> };
  const { buildReferenceServerImage } = require(path.join(tools, "build-reference-server-image.js")) as {
    buildReferenceServerImage: (options: { binaries: { amd64: string; arm64: string }; outDir: string; time: Date; log: (line: string) => void }) => Promise<{
      layout: string;
      indexDigest: string;
      manifests: Array<{ platform: string; compressedSize: number }>;
    }>;
  };
  const out = path.join(repoRoot, "bench", "tmp", "container");
  fs.rmSync(out, { recursive: true, force: true });
  const built = await buildReferenceServerBinaries(path.join(out, "binaries"), { targets: TARGETS.filter((t) => t.os === "linux"), log });
  const binary = (arch: string): string => built.find((b) => b.target.os === "linux" && b.target.arch === arch)!.binary;
  const image = await buildReferenceServerImage({
    binaries: { amd64: binary("amd64"), arm64: binary("arm64") },
    outDir: path.join(out, "image"),
    time: new Date(),
    log,
  });
  const imageBytes = Object.fromEntries(image.manifests.map((m) => [m.platform, m.compressedSize]));
  return { single: binary("amd64"), layout: image.layout, indexDigest: image.indexDigest, imageBytes };
}

/** The floor's image, from bench/fixtures/container-floor (floor.c built static by gcc), into podman's storage. */
function buildFloor(): void {
  const fixture = path.join(repoRoot, "bench", "fixtures", "container-floor");
  const context = path.join(repoRoot, "bench", "tmp", "container", "floor");
  fs.mkdirSync(context, { recursive: true });
  execFileSync("gcc", ["-static", "-Os", "-s", "-o", path.join(context, "floor"), path.join(fixture, "floor.c")], { stdio: "inherit" });
  execFileSync("podman", ["build", "--quiet", "--timestamp", "0", "-t", FLOOR, "-f", path.join(fixture, "Containerfile"), context], { stdio: "ignore" });
}

/**
 * One start of `argv` (`<port>` and `<state>` filled in): an engine's `run -d`, removed with `rm -f`
 * once ready, or a process on the host, stopped once ready; milliseconds to ready.
 */
async function startOnce(argv: readonly string[], key: string): Promise<number> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-container-state-"));
  const [command, ...args] = argv.map((a) => a.replace("<port>", String(port)).replace("<state>", path.join(dir, "state.json"))) as [string, ...string[]];
  const started = performance.now();
  const id = args.includes("run") ? execFileSync(command, args, { env: { ...process.env, ANALYTICS_API_KEY: key }, encoding: "utf8" }).trim() : undefined;
  const child = id ? undefined : spawnGroup(command, args, { ANALYTICS_API_KEY: key });
  try {
    // The first 200 of /_reference/ready, asked every millisecond while refused or not yet 200.
    await askOnceListening({ url: `http://127.0.0.1:${port}/_reference/ready`, method: "GET" }, (answer) => answer.status === 200);
    return performance.now() - started;
  } catch (error) {
    throw new Error(`${argv.join(" ")}: ${(error as Error).message} ${child?.stderr().slice(0, 500) ?? ""}`, { cause: error });
  } finally {
    if (id) execFileSync(command, [...args.slice(0, args.indexOf("run")), "rm", "-f", id], { stdio: "ignore" });
    await child?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Builds both images, loads them into podman and a dockerd of its own, and runs the scenario; `log` gets progress lines. */
export async function runContainerScenario(reps: number, log: (line: string) => void): Promise<ContainerResult> {
  const { single, layout, indexDigest, imageBytes } = await buildImage(log);
  buildFloor();
  const dockerd = await startDockerd(log);
  const key = `analytics_key_${randomBytes(48)
    .toString("base64")
    .replace(/[^0-9A-Za-z]/g, "")
    .slice(0, 32)}`;
  const hostArgs = ["--host", "127.0.0.1", "--port", "<port>", "--state", "<state>", "--key-user", KEY_USER];
  const run = (engine: string[], image: string): string[] => [...engine, "run", "-d", "--rm", "-p", "127.0.0.1:<port>:8080", "-e", "ANALYTICS_API_KEY", image];
  const docker = ["docker", "--host", dockerd.host];
  const argv: Record<ContainerSubject, string[]> = {
    podman: run(["podman"], IMAGE),
    "podman floor": run(["podman"], FLOOR),
    docker: run(docker, IMAGE),
    "docker floor": run(docker, FLOOR),
    single: [single, ...hostArgs],
    script: [process.execPath, path.join(repoRoot, "dist", "reference-server", "bin.js"), ...hostArgs],
  };
  const names = Object.keys(argv) as ContainerSubject[];
  const readyMs = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<ContainerSubject, number[]>;
  try {
    const skopeo = (from: string, to: string, ...options: string[]) => execFileSync("skopeo", ["copy", "--quiet", ...options, from, to], { stdio: "inherit" });
    skopeo(`oci:${layout}`, `containers-storage:${IMAGE}`);
    skopeo(`oci:${layout}`, `docker-daemon:${IMAGE}`, "--dest-daemon-host", dockerd.host);
    skopeo(`containers-storage:${FLOOR}`, `docker-daemon:${FLOOR}`, "--dest-daemon-host", dockerd.host);
    for (let rep = 0; rep <= reps; rep++) {
      for (const name of rep % 2 === 0 ? names : [...names].reverse()) {
        const ms = await startOnce(argv[name], key);
        if (rep > 0) readyMs[name].push(ms); // the first round warms the disk caches
        log(`container rep ${rep}/${reps} ${name}: ready in ${ms.toFixed(0)} ms${rep === 0 ? " (warm-up)" : ""}`);
      }
    }
  } finally {
    execFileSync("podman", ["rmi", "-f", IMAGE, FLOOR], { stdio: "ignore" });
    await dockerd.close();
  }
  const word = (a: string): string =>
    a === process.execPath ? "node" : a === dockerd.host ? "<dockerd's socket>" : path.isAbsolute(a) ? path.relative(repoRoot, a) : a;
  const commands = Object.fromEntries(names.map((name) => [name, `ANALYTICS_API_KEY=<key> ${argv[name].map(word).join(" ")}`])) as Record<
    ContainerSubject,
    string
  >;
  return { readyMs, imageBytes, indexDigest, commands };
}

/** The scenario's figures beside their targets: the start ratios (medians of each round's ratio) and each platform's size. */
export function containerFigures(result: ContainerResult): Figure[] {
  const ratio = (name: string, a: ContainerSubject, b: ContainerSubject, target: number): Figure => {
    const [x, y] = [result.readyMs[a], result.readyMs[b]];
    return bounded(
      "container",
      `${name}: ${round(median(x), 1)} ms / ${round(median(y), 1)} ms (start to ready, medians of ${x.length} rounds)`,
      pairedRatio(x, y),
      "≤",
      target,
    );
  };
  return [
    ratio("podman: server image / floor image", "podman", "podman floor", CONTAINER_TARGET),
    ratio("Docker: server image / floor image", "docker", "docker floor", CONTAINER_TARGET),
    ratio("podman: server image / single file on the host", "podman", "single", CONTAINER_TARGET),
    ratio("single file / node dist/reference-server/bin.js", "single", "script", SINGLE_TARGET),
    ...Object.entries(result.imageBytes).map(
      ([platform, bytes]): Figure => ({
        scenario: "container",
        name: `image size, ${platform} (compressed: config and layer)`,
        value: `${round(bytes / 1e6, 1)} MB (${round(bytes / 1048576, 1)} MiB)`,
        target: `≤ ${SIZE_TARGET_MB} MB`,
        status: bytes / 1e6 <= SIZE_TARGET_MB ? "pass" : "miss",
      }),
    ),
  ];
}

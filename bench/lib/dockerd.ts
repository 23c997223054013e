/**
 * Debian's Docker daemon (docker.io's `dockerd`, as root) for a test: on its own data root, exec
 * root and socket under a temporary folder, its API on that socket only and published ports on
 * 127.0.0.1 only. It writes no iptables rules (`--iptables=false`: a published port is served by
 * docker-proxy), and the FORWARD chain's policy, which a dockerd that does write them sets to DROP,
 * is put back as it was when the daemon stops, so podman's networks keep working; so is the
 * bridge docker0, removed when the daemon made it. The bench's container scenario and the release
 * rehearsal's Docker test (through test/support/dockerd.ts) start it.
 */
import { execFile, execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const DOCKERD = "/usr/sbin/dockerd";

/** The bridge dockerd makes for its containers, and leaves behind when it stops. */
const BRIDGE = "/sys/class/net/docker0";

/** A running daemon: `docker` runs its client against it. */
export interface Dockerd {
  /** The daemon's socket, as `docker --host` and `skopeo --dest-daemon-host` take it. */
  host: string;
  /** `docker <args>` against this daemon: its stdout, trimmed; throws with its output when it fails. */
  docker(args: readonly string[], timeoutMs?: number): Promise<string>;
  /** Stops the daemon, removes its folder and puts the FORWARD policy back. */
  close(): Promise<void>;
}

/** The FORWARD chain's policy (ACCEPT or DROP). */
export function forwardPolicy(): string {
  return /^-P FORWARD (\S+)/m.exec(execFileSync("iptables", ["-S", "FORWARD"], { encoding: "utf8" }))?.[1] ?? "";
}

/** Starts dockerd and waits until its API answers. */
export async function startDockerd(log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Promise<Dockerd> {
  if (!fs.existsSync(DOCKERD)) throw new Error(`${DOCKERD} is missing: install Debian's docker.io (apt-get install docker.io)`);
  const policy = forwardPolicy();
  const bridgeBefore = fs.existsSync(BRIDGE);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-dockerd-"));
  const socket = `unix://${path.join(dir, "docker.sock")}`;
  const args = [
    "--data-root",
    path.join(dir, "data"),
    "--exec-root",
    path.join(dir, "exec"),
    "--pidfile",
    path.join(dir, "dockerd.pid"),
    "--host",
    socket,
    "--ip",
    "127.0.0.1",
    "--iptables=false",
    "--ip6tables=false",
    "--ip-forward=false",
  ];
  const child = spawn(DOCKERD, args, { stdio: ["ignore", "ignore", "pipe"] });
  let output = "";
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const docker = (dockerArgs: readonly string[], timeoutMs = 120_000) =>
    new Promise<string>((resolve, reject) => {
      execFile("docker", ["--host", socket, ...dockerArgs], { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
        if (error) reject(new Error(`docker ${dockerArgs.join(" ")} failed: ${error.message}\n${stderr}${stdout}`));
        else resolve(String(stdout).trim());
      });
    });
  const close = async () => {
    // SIGTERM: dockerd stops its containers and containerd, then exits.
    if (child.exitCode === null && child.signalCode === null) await new Promise((resolve) => (child.once("exit", resolve), child.kill("SIGTERM")));
    if (forwardPolicy() !== policy) execFileSync("iptables", ["-P", "FORWARD", policy]);
    if (!bridgeBefore && fs.existsSync(BRIDGE)) execFileSync("ip", ["link", "delete", "docker0"]);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  for (const started = Date.now(); ; ) {
    if (child.exitCode !== null) throw (await close(), new Error(`dockerd exited (${child.exitCode}) before serving:\n${output}`));
    if (
      await docker(["version", "--format", "{{.Server.Version}}"], 10_000).then(
        () => true,
        () => false,
      )
    )
      break;
    if (Date.now() - started > 60_000) throw (await close(), new Error(`dockerd did not answer on ${socket} within 60 s:\n${output}`));
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  log(`[dockerd] ${await docker(["version", "--format", "{{.Server.Version}}"])} on ${socket}`);
  return { host: socket, docker, close };
}

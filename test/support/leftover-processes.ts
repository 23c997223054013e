/**
 * Processes a test run left behind. The global setup puts a marker in the environment before any
 * worker forks; every process the suite starts (CLI runs, language hosts, provider plugins, server
 * bins) inherits it, even after its parent died and it was reparented. At teardown, /proc tells
 * which of them are still alive. Linux only: elsewhere the scan finds nothing.
 */
import * as fs from "node:fs";

import { TEST_RUN_MARKER } from "./test-run.js";

export { TEST_RUN_MARKER, newRunId } from "./test-run.js";

/** One live process carrying the marker. */
export interface MarkedProcess {
  pid: number;
  /** Command line, arguments joined by spaces. */
  cmdline: string;
  /** Working directory, as /proc shows it (ends in " (deleted)" once the directory is gone). */
  cwd: string;
}

/** The live processes whose environment holds `name=value`, except the pids in `exclude`. */
export function findMarkedProcesses(value: string, options: { name?: string; exclude?: ReadonlySet<number> } = {}): MarkedProcess[] {
  const needle = `${options.name ?? TEST_RUN_MARKER}=${value}`;
  const found: MarkedProcess[] = [];
  for (const pid of listPids()) {
    if (pid === process.pid || options.exclude?.has(pid)) continue;
    let environ: string;
    try {
      environ = fs.readFileSync(`/proc/${pid}/environ`, "latin1");
    } catch {
      continue; // Gone, or not ours to read.
    }
    if (!environ.split("\0").includes(needle)) continue;
    if (isZombie(pid)) continue; // Exited; only waiting for its parent to reap it.
    found.push({ pid, cmdline: readOr(`/proc/${pid}/cmdline`, "?").split("\0").filter(Boolean).join(" "), cwd: linkOr(`/proc/${pid}/cwd`, "?") });
  }
  return found;
}

/** Pids of this process and its ancestors (vitest's own processes, when called from a worker or the main process). */
export function selfAndAncestors(): Set<number> {
  const pids = new Set<number>();
  let pid = process.pid;
  while (pid > 1 && !pids.has(pid)) {
    pids.add(pid);
    const ppid = parentPid(pid);
    if (ppid === undefined) break;
    pid = ppid;
  }
  return pids;
}

/**
 * vitest's own processes, which carry the marker without being the suite's doing: this process, its
 * ancestors, the pool's forked workers (children of this process titled `node (vitest N)`), which
 * vitest still holds when the global teardown runs, and the esbuild service this process runs for
 * its transforms (it carries the marker when tools/test-tiers.js set it before vitest started).
 */
export function vitestProcesses(): Set<number> {
  const pids = selfAndAncestors();
  for (const entry of listPids()) {
    if (parentPid(entry) !== process.pid) continue;
    const cmdline = readOr(`/proc/${entry}/cmdline`, "").replace(/\0/g, " ").trim();
    if (/^node \(vitest \d+\)$/.test(cmdline) || /\/esbuild --service=/.test(cmdline)) pids.add(entry);
  }
  return pids;
}

/**
 * Waits up to `graceMs` for the marked processes to go (stragglers still shutting down), then
 * returns those still alive. `exclude` may be a function, to be asked again on every poll.
 */
export async function survivors(
  value: string,
  options: { name?: string; exclude?: ReadonlySet<number> | (() => ReadonlySet<number>); graceMs?: number } = {},
): Promise<MarkedProcess[]> {
  const deadline = Date.now() + (options.graceMs ?? 5_000);
  for (;;) {
    // Taken again on every poll: vitest may fork a worker while we wait.
    const exclude = typeof options.exclude === "function" ? options.exclude() : options.exclude;
    const alive = findMarkedProcesses(value, { ...(options.name === undefined ? {} : { name: options.name }), ...(exclude === undefined ? {} : { exclude }) });
    if (alive.length === 0 || Date.now() >= deadline) return alive;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A report of survivors, one line each. */
export function describeProcesses(processes: readonly MarkedProcess[]): string {
  return processes.map((p) => `  pid ${p.pid}, cwd ${p.cwd}: ${p.cmdline}`).join("\n");
}

function listPids(): number[] {
  try {
    return fs
      .readdirSync("/proc")
      .filter((entry) => /^\d+$/.test(entry))
      .map(Number);
  } catch {
    return [];
  }
}

function parentPid(pid: number): number | undefined {
  const stat = readOr(`/proc/${pid}/stat`, "");
  if (stat === "") return undefined;
  // Fields after the command name (which may hold spaces and parentheses): state, ppid, ...
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

function isZombie(pid: number): boolean {
  const stat = readOr(`/proc/${pid}/stat`, "");
  return stat === "" || stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
}

function readOr(file: string, fallback: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return fallback;
  }
}

function linkOr(file: string, fallback: string): string {
  try {
    return fs.readlinkSync(file);
  } catch {
    return fallback;
  }
}

/** What /proc says of a process: its memory, its CPU time, its program; sampled over a command's run. */
import * as fs from "node:fs";
import { performance } from "node:perf_hooks";

/** The text of /proc/<pid>/<file>, or undefined once the process has gone (or is not ours to read). */
function procFile(pid: number | string, file: string): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return undefined;
  }
}

/** A process's peak resident set size so far, KiB (VmHWM of /proc/<pid>/status, a high-water mark the kernel keeps); undefined once it has gone. */
function procPeakKiB(pid: number): number | undefined {
  const status = procFile(pid, "status");
  return status === undefined ? undefined : Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
}

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system) in a /proc/<pid>/stat line, µs. */
export function cpuMicrosOfStat(stat: string): number {
  // Fields after the command name (which may hold spaces and parentheses); utime and stime are the 12th and 13th, in clock ticks.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error(`not a /proc/<pid>/stat line: ${JSON.stringify(stat.slice(0, 80))}`);
  return ((utime + stime) * 1_000_000) / TICKS_PER_SECOND;
}

/** The file name of a /proc/<pid>/cmdline's program (its first field, without the directory). */
export function programOfCmdline(cmdline: string): string {
  const program = cmdline.split("\0")[0] ?? "";
  return program.slice(program.lastIndexOf("/") + 1);
}

/** Pids of the processes whose working directory is `cwd`. */
function processesIn(cwd: string): number[] {
  return fs
    .readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry) && readLink(`/proc/${entry}/cwd`) === cwd)
    .map(Number);
}

const readLink = (file: string): string | undefined => {
  try {
    return fs.readlinkSync(file);
  } catch {
    return undefined;
  }
};

/**
 * What {@link sampledRun} adds to a command's result: its wall time in ms, the provider's peak RSS in
 * MiB (0 if none ran), and CPU seconds of the provider processes, of every process in the command's
 * directory (CLI, language host, program, providers) and of the engine's own (`pulumi` or `tofu`).
 */
export interface Sampled {
  ms: number;
  providerPeakMiB: number;
  providerCpuS: number;
  allCpuS: number;
  engineCpuS: number;
}

/**
 * Runs `command`, timed, tracking meanwhile (a poll every 100 ms) the peak RSS and the CPU time of
 * every process in `cwd` whose command line holds `marker`, the CPU time of those running the
 * program named `engine` (the `pulumi` CLI, or `tofu`), and of every process in `cwd`. Since the
 * peak and CPU time only grow, the last poll before a process exits carries them up to that moment
 * (the CPU of its last 100 ms is missed, as is a process living less than that). The peak reported
 * is the largest seen; CPU seconds are summed over the processes.
 */
export async function sampledRun<R>(cwd: string, marker: string, engine: string, command: () => Promise<R>): Promise<R & Sampled> {
  // By pid: the providers' peak RSS (KiB) and CPU time (µs), every process's CPU time, the engine's.
  const [peaks, cpu, allCpu, engineCpu] = [new Map<number, number>(), new Map<number, number>(), new Map<number, number>(), new Map<number, number>()];
  const raise = (map: Map<number, number>, pid: number, value: number): void => void map.set(pid, Math.max(map.get(pid) ?? 0, value));
  const poll = (): void => {
    for (const pid of processesIn(cwd)) {
      const [stat, cmdline] = [procFile(pid, "stat"), procFile(pid, "cmdline")];
      if (stat === undefined || cmdline === undefined) continue;
      const micros = cpuMicrosOfStat(stat);
      raise(allCpu, pid, micros);
      if (programOfCmdline(cmdline) === engine) raise(engineCpu, pid, micros);
      if (!cmdline.includes(marker)) continue;
      raise(cpu, pid, micros);
      raise(peaks, pid, procPeakKiB(pid) ?? 0);
    }
  };
  const timer = setInterval(poll, 100);
  const started = performance.now();
  const result = await command().finally(() => clearInterval(timer));
  const seconds = (micros: Map<number, number>): number => [...micros.values()].reduce((sum, v) => sum + v, 0) / 1_000_000;
  return {
    ...result,
    ms: performance.now() - started,
    providerPeakMiB: Math.max(0, ...peaks.values()) / 1024,
    providerCpuS: seconds(cpu),
    allCpuS: seconds(allCpu),
    engineCpuS: seconds(engineCpu),
  };
}

import * as fs from "node:fs";

/** One process's resident set size now and its peak so far, KiB (VmRSS and VmHWM of /proc/<pid>/status). */
export interface ProcMemory {
  rssKiB: number;
  peakKiB: number;
}

/** VmRSS and VmHWM of a process; undefined once it has gone. */
export function procMemory(pid: number): ProcMemory | undefined {
  let status: string;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return undefined;
  }
  const field = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
  return { rssKiB: field("VmRSS"), peakKiB: field("VmHWM") };
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

/** CPU time (user + system) a process has used so far, µs; undefined once it has gone. */
export function procCpuMicros(pid: number): number | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  return cpuMicrosOfStat(stat);
}

/** Pids of processes whose working directory is `cwd` and whose command line contains `marker`. */
export function findProcesses(cwd: string, marker: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readlinkSync(`/proc/${entry}/cwd`) !== cwd) continue;
      if (fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) found.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** The file name of a /proc/<pid>/cmdline's program (its first field, without the directory). */
export function programOfCmdline(cmdline: string): string {
  const program = cmdline.split("\0")[0] ?? "";
  return program.slice(program.lastIndexOf("/") + 1);
}

/**
 * Tracks the peak RSS (VmHWM, which the kernel keeps as a high-water mark) and the CPU time of
 * every process matching `cwd` and `marker`, the CPU time of the processes in `cwd` that run the
 * program named `engine` (the `pulumi` CLI, or `tofu`), and of every process in `cwd`, polling
 * every `intervalMs` until stopped. Since VmHWM and CPU time only grow, the last poll before a
 * process exits carries them up to that moment (the CPU of its last `intervalMs` is missed, as is
 * a process living less than that).
 */
export class PeakRssSampler {
  private readonly peaks = new Map<number, number>();
  private readonly cpu = new Map<number, number>();
  private readonly allCpu = new Map<number, number>();
  private readonly engineCpu = new Map<number, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly cwd: string,
    private readonly marker: string,
    private readonly engine = "",
    intervalMs = 100,
  ) {
    this.timer = setInterval(() => this.poll(), intervalMs);
  }

  private poll(): void {
    for (const pid of findProcesses(this.cwd, "")) {
      const micros = procCpuMicros(pid);
      if (micros !== undefined) this.allCpu.set(pid, Math.max(this.allCpu.get(pid) ?? 0, micros));
      if (micros !== undefined && this.engine && programOf(pid) === this.engine) this.engineCpu.set(pid, Math.max(this.engineCpu.get(pid) ?? 0, micros));
      if (!commandLineHas(pid, this.marker)) continue;
      const mem = procMemory(pid);
      if (mem) this.peaks.set(pid, Math.max(this.peaks.get(pid) ?? 0, mem.peakKiB));
      if (micros !== undefined) this.cpu.set(pid, Math.max(this.cpu.get(pid) ?? 0, micros));
    }
  }

  /** Stops polling; returns the largest peak seen in MiB (0 when no process matched). */
  stop(): number {
    clearInterval(this.timer);
    return Math.max(0, ...this.peaks.values()) / 1024;
  }

  /** CPU seconds (user + system) of the processes matching the marker, summed; with `all`, of every process in `cwd`. */
  cpuSeconds(all = false): number {
    return sumSeconds(all ? this.allCpu : this.cpu);
  }

  /** CPU seconds (user + system) of the engine's processes (0 without an `engine`). */
  engineCpuSeconds(): number {
    return sumSeconds(this.engineCpu);
  }
}

/** Microseconds by pid, summed, in seconds. */
function sumSeconds(micros: Map<number, number>): number {
  let total = 0;
  for (const value of micros.values()) total += value;
  return total / 1_000_000;
}

/** The program a process runs (see {@link programOfCmdline}); "" once it has gone. */
function programOf(pid: number): string {
  try {
    return programOfCmdline(fs.readFileSync(`/proc/${pid}/cmdline`, "utf8"));
  } catch {
    return "";
  }
}

/** Whether a process's command line contains `marker` (false once it has gone). */
function commandLineHas(pid: number, marker: string): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker);
  } catch {
    return false;
  }
}

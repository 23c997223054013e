import * as fs from "node:fs";

/** One process's memory as /proc/<pid>/status reports it. */
export interface ProcMemory {
  /** Resident set size now, KiB (VmRSS). */
  rssKiB: number;
  /** Peak resident set size so far, KiB (VmHWM). */
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

/** CPU time (user + system) a process has used so far, µs; undefined once it has gone. */
export function procCpuMicros(pid: number): number | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // Fields after the command name (which may hold spaces); utime and stime are the 12th and 13th, in clock ticks.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticksPerSecond = 100;
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / ticksPerSecond;
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

/**
 * Tracks the peak RSS (VmHWM, which the kernel keeps as a high-water mark) of every process
 * matching `cwd` and `marker`, polling every `intervalMs` until stopped. Since VmHWM only grows,
 * the last poll before a process exits carries its peak up to that moment.
 */
export class PeakRssSampler {
  private readonly peaks = new Map<number, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly cwd: string,
    private readonly marker: string,
    intervalMs = 100,
  ) {
    this.timer = setInterval(() => this.poll(), intervalMs);
  }

  private poll(): void {
    for (const pid of findProcesses(this.cwd, this.marker)) {
      const mem = procMemory(pid);
      if (mem) this.peaks.set(pid, Math.max(this.peaks.get(pid) ?? 0, mem.peakKiB));
    }
  }

  /** Stops polling; returns the largest peak seen in MiB (0 when no process matched). */
  stop(): number {
    clearInterval(this.timer);
    return Math.max(0, ...this.peaks.values()) / 1024;
  }
}

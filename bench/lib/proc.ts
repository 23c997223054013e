/** What /proc says of a process: its memory, its CPU time, its program; sampled over a command's run. */
import * as fs from "node:fs";

/** The text of /proc/<pid>/<file>, or undefined once the process has gone (or is not ours to read). */
function procFile(pid: number | string, file: string): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return undefined;
  }
}

/** A process's peak resident set size so far, KiB (VmHWM of /proc/<pid>/status, a high-water mark the kernel keeps); undefined once it has gone. */
export function procPeakKiB(pid: number): number | undefined {
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
  return fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry) && readLink(`/proc/${entry}/cwd`) === cwd).map(Number);
}

const readLink = (file: string): string | undefined => {
  try {
    return fs.readlinkSync(file);
  } catch {
    return undefined;
  }
};

/**
 * Tracks, polling every `intervalMs` until stopped, the peak RSS and the CPU time of every process
 * in `cwd` whose command line holds `marker`, the CPU time of those running the program named
 * `engine` (the `pulumi` CLI, or `tofu`), and of every process in `cwd`. Since the peak and CPU
 * time only grow, the last poll before a process exits carries them up to that moment (the CPU of
 * its last `intervalMs` is missed, as is a process living less than that).
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
    const raise = (map: Map<number, number>, pid: number, value: number): void => void map.set(pid, Math.max(map.get(pid) ?? 0, value));
    for (const pid of processesIn(this.cwd)) {
      const [stat, cmdline] = [procFile(pid, "stat"), procFile(pid, "cmdline")];
      if (stat === undefined || cmdline === undefined) continue;
      const micros = cpuMicrosOfStat(stat);
      raise(this.allCpu, pid, micros);
      if (this.engine && programOfCmdline(cmdline) === this.engine) raise(this.engineCpu, pid, micros);
      if (!cmdline.includes(this.marker)) continue;
      raise(this.cpu, pid, micros);
      raise(this.peaks, pid, procPeakKiB(pid) ?? 0);
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
const sumSeconds = (micros: Map<number, number>): number => [...micros.values()].reduce((sum, v) => sum + v, 0) / 1_000_000;

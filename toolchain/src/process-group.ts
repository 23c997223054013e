/**
 * Stopping a child process together with everything it started. A `pulumi` run is a tree: the CLI
 * starts the language host and each provider plugin (the dynamic-provider host included) in a
 * process group *of its own* (Go's Setpgid), so neither `child.kill()` nor a signal to the CLI's
 * group reaches them; once the CLI is gone they are reparented and nothing links them to it. So a
 * tree is signalled from its leaf set up: every descendant (found by parent pid in /proc) is first
 * stopped with SIGSTOP, so none can fork or lose its parent while it is being collected, then the
 * signal goes to the child's group and to each descendant's group (or the pid, when the
 * descendant leads none). Where there is no /proc, only the child's group is signalled.
 *
 * Spawn such children with `detached: true` (their own group, so a terminal's Ctrl-C does not hit
 * them behind this process's back) and register them with {@link trackProcessTree}: signals this
 * process receives are passed on to their groups, and any tree still running when it exits is killed.
 */
import type { ChildProcess } from "node:child_process";
import * as fs from "node:fs";

/** A process as /proc describes it. */
interface ProcStat {
  ppid: number;
  /** Start time in clock ticks since boot: with the pid, identifies the process (pids are reused). */
  start: string;
  /** State letter (R, S, D, T, Z, ...). */
  state: string;
}

const hasProc = fs.existsSync("/proc/self/stat");

function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // Fields after the command name (which may hold spaces and parentheses): state is field 3, ppid 4, starttime 22.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0] ?? "", ppid: Number(fields[1]), start: fields[19] ?? "" };
}

/** Pids of every live descendant of `pid`, nearest first; empty where there is no /proc. */
export function descendantPids(pid: number): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (!stat || stat.state === "Z") continue;
    const siblings = children.get(stat.ppid);
    if (siblings) siblings.push(Number(entry));
    else children.set(stat.ppid, [Number(entry)]);
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      if (found.includes(child)) continue;
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

function send(target: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(target, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Sends `signal` to the process group `pid` leads, or to `pid` alone when that group is gone (or
 * it leads none). Returns whether anything was signalled.
 */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  return send(-pid, signal) || send(pid, signal);
}

/** A process signalled by {@link signalProcessTree}. */
export interface TreeMember {
  pid: number;
  /** Its start time, to tell it from a later process given the same pid; empty without /proc. */
  start: string;
}

/**
 * Sends `signal` to `pid`'s group and to every process descended from it, plugins in groups of
 * their own included (see the module comment). Returns the processes it reached, for
 * {@link killLeftovers}: after the signal, those orphaned can no longer be found from `pid`.
 */
export function signalProcessTree(pid: number, signal: NodeJS.Signals): TreeMember[] {
  const members = new Map<number, TreeMember>();
  // Freeze the tree, level by level, until a pass finds no new process.
  for (let pass = 0; pass < 20; pass++) {
    const fresh = [pid, ...descendantPids(pid)].filter((p) => !members.has(p));
    if (fresh.length === 0) break;
    for (const p of fresh) {
      const stat = readStat(p);
      if (stat === undefined && hasProc) continue; // Already gone (and its pid free for reuse).
      members.set(p, { pid: p, start: stat?.start ?? "" });
      send(p, "SIGSTOP");
    }
  }
  signalGroup(pid, signal);
  for (const member of members.values()) if (member.pid !== pid) signalGroup(member.pid, signal);
  if (signal !== "SIGKILL" && signal !== "SIGSTOP") {
    // Let them handle it.
    send(-pid, "SIGCONT");
    for (const member of members.values()) signalGroup(member.pid, "SIGCONT");
  }
  return [...members.values()];
}

/** Whether a process signalled earlier is still alive (not exited, not a zombie, pid not reused). */
export function isAlive(member: TreeMember): boolean {
  const stat = readStat(member.pid);
  if (stat === undefined) return member.start === "" && send(member.pid, 0);
  return stat.state !== "Z" && stat.start === member.start;
}

/** SIGKILLs each of `members` still alive; returns those it killed. */
export function killLeftovers(members: readonly TreeMember[]): TreeMember[] {
  const alive = members.filter(isAlive);
  for (const member of alive) signalGroup(member.pid, "SIGKILL");
  return alive;
}

/** Options of {@link stopProcessTree}. */
export interface StopOptions {
  /** First signal, for a clean shutdown (default SIGTERM). */
  signal?: NodeJS.Signals;
  /** How long the tree gets to exit before it is SIGKILLed (default 5 s). */
  graceMs?: number;
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Stops `child` and everything it started: `signal` to the tree, SIGKILL to what is left of it
 * after `graceMs`, and resolves once the child has exited and the rest of the tree is gone.
 */
export async function stopProcessTree(child: ChildProcess, options: StopOptions = {}): Promise<void> {
  const pid = child.pid;
  // An exited child's pid may already name another process, and what it left is out of reach.
  if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const members = signalProcessTree(pid, options.signal ?? "SIGTERM");
  const deadline = Date.now() + (options.graceMs ?? 5_000);
  let done = false;
  void exited.then(() => (done = true));
  while (Date.now() < deadline && (!done || members.some(isAlive))) await delay(50);
  if (!done || members.some(isAlive)) {
    if (!done) members.push(...signalProcessTree(pid, "SIGKILL"));
    killLeftovers(members);
  }
  await exited;
  for (let i = 0; i < 100 && members.some(isAlive); i++) await delay(20);
}

const tracked = new Set<ChildProcess>();
const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

function killTracked(): void {
  for (const child of tracked) if (child.pid !== undefined) signalProcessTree(child.pid, "SIGKILL");
  tracked.clear();
}

/**
 * Passes a signal this process received on to the tracked groups (as a terminal would have, had
 * they not been detached), then, unless someone else handles it, dies of it as it would have.
 */
function forward(signal: NodeJS.Signals): void {
  for (const child of tracked) if (child.pid !== undefined) signalGroup(child.pid, signal);
  if (process.listenerCount(signal) > 1) return; // Someone else decides what this process does.
  uninstall();
  process.kill(process.pid, signal);
}

function install(): void {
  process.on("exit", killTracked);
  for (const signal of FORWARDED) process.on(signal, forward);
}

function uninstall(): void {
  process.off("exit", killTracked);
  for (const signal of FORWARDED) process.off(signal, forward);
}

/**
 * Registers a child spawned with `detached: true` until it exits: while it runs, SIGINT, SIGTERM
 * and SIGHUP received by this process are passed on to its group, and if this process exits first,
 * its whole tree is SIGKILLed. Returns the child.
 */
export function trackProcessTree<T extends ChildProcess>(child: T): T {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return child;
  if (tracked.size === 0) install();
  tracked.add(child);
  child.once("exit", () => {
    tracked.delete(child);
    if (tracked.size === 0) uninstall();
  });
  return child;
}

/**
 * Starts of a plugin (or of Node.js's floor) as scenario F measures them: spawn to the port line,
 * then the engine's calls up to the first answer, each form started in turn.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { repoRoot } from "./workspace";

/** Node.js's floor: listens with node:http2, prints its port line, answers one gRPC unary call. */
export const HTTP2_FLOOR = path.join(repoRoot, "bench", "fixtures", "http2-floor.js");

/** How one form is started and asked: its command line, the calls up to its first answer, its environment. */
export type StartCommand = [command: string, args: string[], ask: (port: number) => Promise<void>, env?: NodeJS.ProcessEnv];

/** Milliseconds from spawn to the port line and to the first answer, per start, per form. */
export interface Starts<K extends string> {
  startMs: Record<K, number[]>;
  firstCheckMs: Record<K, number[]>;
}

/** Starts one plugin, waits for its port line, asks it the engine's calls, closes its stdin and waits for its exit. */
async function startOnce(
  command: string,
  args: string[],
  ask: (port: number) => Promise<void>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ ms: number; checkMs: number }> {
  const started = process.hrtime.bigint();
  const since = (): number => Number(process.hrtime.bigint() - started) / 1e6;
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "ignore"], env });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const line = await new Promise<string>((resolve) => child.stdout.once("data", (chunk: Buffer) => resolve(String(chunk))));
  const ms = since();
  await ask(Number(line.trim()));
  const checkMs = since();
  child.stdin.end();
  await exited;
  return { ms, checkMs };
}

/** Starts each form `reps` times after one warm-up start each (disk caches, qemu's first translation), interleaved, the order alternating. */
export async function interleavedStarts<K extends string>(forms: Record<K, StartCommand>, reps: number): Promise<Starts<K>> {
  const names = Object.keys(forms) as K[];
  const perForm = (): Record<K, number[]> => Object.fromEntries(names.map((n) => [n, []])) as unknown as Record<K, number[]>;
  const result = { startMs: perForm(), firstCheckMs: perForm() };
  for (let rep = 0; rep <= reps; rep++) {
    for (const form of rep % 2 === 0 ? names : [...names].reverse()) {
      const [command, args, ask, env] = forms[form];
      const sample = await startOnce(command, args, ask, env);
      if (rep === 0) continue;
      result.startMs[form].push(sample.ms);
      result.firstCheckMs[form].push(sample.checkMs);
    }
  }
  return result;
}

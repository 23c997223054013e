/**
 * One start of a plugin (or of Node.js's floor) as scenario F measures it: spawn to the port line,
 * the memory there, the calls up to the first answer, the CPU to it.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { procMemory, procThreadsCpuMicros } from "./proc";
import { repoRoot } from "./workspace";

/** Node.js's floor: listens with node:http2, prints its port line, answers one gRPC unary call. */
export const HTTP2_FLOOR = path.join(repoRoot, "bench", "fixtures", "http2-floor.js");

/** One start of one form. */
export interface StartSample {
  ms: number;
  rssMiB: number;
  anonMiB: number;
  checkMs: number;
  checkCpuMs: number;
}

/**
 * Starts one plugin, waits for its port line and reads its RSS, asks it the engine's calls up to
 * the first answered Check (the floor: its one call) and reads its CPU time, closes its stdin and
 * waits for its exit.
 */
export async function startOnce(command: string, args: string[], ask: (port: number) => Promise<void>, env: NodeJS.ProcessEnv = process.env): Promise<StartSample> {
  const started = process.hrtime.bigint();
  const since = (): number => Number(process.hrtime.bigint() - started) / 1e6;
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "ignore"], env });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const line = await new Promise<string>((resolve) => child.stdout.once("data", (chunk: Buffer) => resolve(String(chunk))));
  const ms = since();
  const memory = procMemory(child.pid!);
  await ask(Number(line.trim()));
  const checkMs = since();
  const checkCpuMs = (procThreadsCpuMicros(child.pid!) ?? Number.NaN) / 1000;
  child.stdin.end();
  await exited;
  return { ms, rssMiB: (memory?.rssKiB ?? 0) / 1024, anonMiB: (memory?.anonKiB ?? 0) / 1024, checkMs, checkCpuMs };
}

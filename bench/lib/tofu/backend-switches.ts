/**
 * What the DIY backend's own switches do to `pulumi up` with checkpoints on: the native plugin's
 * YAML program (bench/fixtures/native-yaml) of 1 + N objects, created once per switch on a fresh
 * reference server, on a `file://` directory and on an `s3://` bucket (versitygw,
 * bench/lib/s3-server.ts), beside the same up with no switch.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { resolvePinnedGoTool, stopProcessTree, trackProcessTree, type PulumiToolchain } from "@pulumi-analytics/toolchain";
import { startBenchServer, upArgs, type Subject } from "../engine";
import type { Figure } from "../figure";
import { startVersitygw, versitygwTool, type S3Server } from "../s3-server";
import { round } from "../stats";
import { BenchWorkspace, repoRoot, upTimeLimitMs, type Backend } from "../workspace";

/** The switches measured, each alone; `none` is the up as users run it by default. */
export const BACKEND_SWITCHES = {
  none: {},
  PULUMI_SKIP_CHECKPOINTS: { PULUMI_SKIP_CHECKPOINTS: "true" },
  PULUMI_DIY_BACKEND_DISABLE_CHECKPOINT_BACKUPS: { PULUMI_DIY_BACKEND_DISABLE_CHECKPOINT_BACKUPS: "true" },
  PULUMI_DIY_BACKEND_GZIP: { PULUMI_DIY_BACKEND_GZIP: "true" },
} as const satisfies Record<string, NodeJS.ProcessEnv>;

/** One switch (or none). */
export type BackendSwitch = keyof typeof BACKEND_SWITCHES;

/** The backends measured. */
export type BackendKind = "file" | "s3";

/** One `pulumi up` with one switch on one backend. */
export interface SwitchRun {
  backend: BackendKind;
  setting: BackendSwitch;
  /** DataSources (plus one Organization). */
  count: number;
  /** Exit code. */
  code: number;
  /** Wall time, ms. */
  ms: number;
  /** Objects the server gained. */
  creates: number;
  /** CPU seconds of the `pulumi` process, and of every process of the command. */
  engineCpuS: number;
  allCpuS: number;
  /** Bytes the backend holds for the project after the up (state, history, backups). */
  backendBytes: number;
  /** The files it holds, relative to the backend's root, numbers (timestamps) as `<n>`, sorted. */
  backendFiles?: string[];
  /** The first error line, if any. */
  error?: string;
}

/** Runs `program` (the native plugin's YAML program of 1 + `count` objects, scenario T's side `yaml`) up once per switch and backend. */
export async function runBackendSwitches(toolchain: PulumiToolchain, program: Subject, count: number, password: string, log: (line: string) => void): Promise<SwitchRun[]> {
  const binary = await resolvePinnedGoTool(versitygwTool(repoRoot), { log });
  const s3 = await startVersitygw(binary, { trackProcessTree, stopProcessTree });
  const runs: SwitchRun[] = [];
  try {
    for (const backend of ["file", "s3"] as const) {
      for (const setting of Object.keys(BACKEND_SWITCHES) as BackendSwitch[]) {
        const prefix = `switches-${runs.length}`;
        runs.push(await switchRun(toolchain, { program, count, password }, backend, setting, backend === "s3" ? { s3, prefix } : undefined, log));
      }
    }
  } finally {
    await s3.stop();
  }
  return runs;
}

/** One up of the YAML program with `setting`, on a fresh server and a fresh backend (a `file://` directory, or a prefix of the bucket). */
async function switchRun(toolchain: PulumiToolchain, { program, count, password }: { program: Subject; count: number; password: string }, backend: BackendKind, setting: BackendSwitch, s3: { s3: S3Server; prefix: string } | undefined, log: (line: string) => void): Promise<SwitchRun> {
  const { server, env } = await startBenchServer();
  const remote: Backend | undefined = s3 ? { url: s3.s3.backendUrl(s3.prefix), env: s3.s3.env() } : undefined;
  const ws = BenchWorkspace.create(toolchain, program.fixture, env, program.providerMarker, remote);
  try {
    program.prepare?.(ws);
    await ws.initStack("bench", count);
    await ws.pulumi(["config", "set", "--secret", "password", "--stack", "bench", "--", password]);
    const before = server.inspect.organizations().length + server.inspect.dataSources().length;
    const run = await ws.attempt(upArgs("bench"), BACKEND_SWITCHES[setting], upTimeLimitMs(count));
    const creates = server.inspect.organizations().length + server.inspect.dataSources().length - before;
    const dir = s3 ? path.join(s3.s3.bucketDir, s3.prefix) : path.join(ws.root, "backend");
    const error = /^\s*error: (.+)$/m.exec(`${run.stdout}\n${run.stderr}`)?.[1];
    const result: SwitchRun = { backend, setting, count, code: run.code, ms: run.ms, creates, engineCpuS: run.engineCpuS, allCpuS: run.allCpuS, backendBytes: bytesBelow(dir), backendFiles: filesBelow(dir), ...(error ? { error } : {}) };
    log(`  ${backend} ${setting}: exit ${result.code}, ${(result.ms / 1000).toFixed(2)} s, ${creates} creates, engine CPU ${result.engineCpuS.toFixed(2)} s, ${result.backendBytes} bytes in the backend`);
    return result;
  } finally {
    ws.dispose();
    await server.close();
  }
}

/**
 * Every file below `dir`, relative to it, with runs of digits as `<n>` (the backend's timestamps),
 * sorted, without the `.attrs` sidecar the file driver writes beside each; none when it does not exist.
 */
export function filesBelow(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const files = fs.readdirSync(dir, { withFileTypes: true, recursive: true }).filter((entry) => entry.isFile() && !entry.name.endsWith(".attrs"));
  return files.map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).replace(/\d{6,}/g, "<n>")).sort();
}

/** Bytes of every file below `dir` (0 when it does not exist). */
function bytesBelow(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  let bytes = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) if (entry.isFile()) bytes += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  return bytes;
}

const backendName = (backend: BackendKind): string => (backend === "file" ? "file://" : "s3://");

/** Each switch's up against the up without one on the same backend (reported, no target: the switches are the user's choice). */
export function switchFigures(runs: readonly SwitchRun[]): Figure[] {
  return runs.flatMap((run) => {
    const base = runs.find((r) => r.backend === run.backend && r.count === run.count && r.setting === "none");
    if (run.setting === "none" || !base || run.code !== 0 || base.code !== 0) return [];
    const name = `pulumi up (native plugin, YAML, ${backendName(run.backend)}) with ${run.setting}=true ${round(run.ms / 1000, 2)} s / without ${round(base.ms / 1000, 2)} s, N=${run.count}`;
    return [{ scenario: "T", name, value: `${round(run.ms / base.ms, 2)}×`, target: "–", status: "info" as const }];
  });
}

/** The switches' table of tofu.md: one row per backend and switch. */
export function switchTable(runs: readonly SwitchRun[]): string[] {
  if (runs.length === 0) return [];
  const lines = [
    `## The DIY backend's switches, N=${runs[0]!.count}, checkpoints on`,
    "",
    "The native plugin's YAML program, one `pulumi up --yes --skip-preview` per switch (each alone, set to `true`) on a fresh reference server and a fresh backend. Backend bytes and files: what the backend holds for the project after the up (state, its `.bak`, history, backups; timestamps as `<n>`; the file driver's `.attrs` sidecars counted in the bytes, not listed).",
    "",
    "| Backend | Switch | Exit | Time | Against none | Creates | Engine CPU | All CPU | Backend bytes | Backend files |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const run of runs) {
    const base = runs.find((r) => r.backend === run.backend && r.count === run.count && r.setting === "none");
    const against = base && base.code === 0 && run.code === 0 ? `${round(run.ms / base.ms, 2)}×` : "–";
    lines.push(`| ${backendName(run.backend)} | ${run.setting === "none" ? "none" : `\`${run.setting}=true\``} | ${run.code}${run.error ? ` (${run.error.replace(/\|/g, "\\|").slice(0, 120)})` : ""} | ${round(run.ms / 1000, 2)} s | ${against} | ${run.creates} | ${round(run.engineCpuS, 2)} s | ${round(run.allCpuS, 2)} s | ${run.backendBytes.toLocaleString("en-US")} | ${(run.backendFiles ?? []).map((f) => `\`${f}\``).join(", ") || "–"} |`);
  }
  lines.push("");
  return lines;
}

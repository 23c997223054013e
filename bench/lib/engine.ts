/**
 * `pulumi up` of programs against the reference server, interleaved with the floor program (a
 * no-op dynamic provider of the same shape) on the same machine, in the same run: the machinery of
 * scenarios F and L.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { PulumiToolchain } from "@pulumi-analytics/toolchain";
import { startReferenceServer, type ReferenceServer } from "pulumi-analytics/reference-server";
import { BenchWorkspace, GLOBAL_FLAGS, repoRoot, upTimeLimitMs, type Backend } from "./workspace";

/** One N of a comparison: DataSources per stack (plus one Organization), repetitions, and whether with PULUMI_SKIP_CHECKPOINTS=true. */
export interface EnginePlan {
  count: number;
  reps: number;
  skipCheckpoints: boolean;
}

/** One N, one entry per repetition for each program `V`: `pulumi up` wall times (ms), the measured program's API requests per up (N + 1 expected), the provider's peak RSS (MiB). */
export interface EngineRuns<V extends string> {
  plan: EnginePlan;
  upMs: Record<V, number[]>;
  upRequests: number[];
  providerPeakMiB: Record<V, number[]>;
}

/** What one comparison with the floor measured: one entry per N, and the exact command. */
export interface Comparison<V extends string> {
  runs: Array<EngineRuns<V>>;
  commands: { up: string };
}

/**
 * A program compared: the fixture copied into a fresh workspace, the text of its provider process's
 * command line (for its peak RSS; default: the SDK's dynamic provider), and a setup run once on the
 * copy before any stack is made.
 */
export interface Subject {
  fixture: string;
  providerMarker?: string;
  prepare?: (ws: BenchWorkspace) => void;
}

/** The floor program: a no-op dynamic provider of our resources' shape. */
export const FLOOR: Subject = { fixture: path.join(repoRoot, "bench", "fixtures", "floor") };

/** This package's program: one Organization and N DataSources through the dynamic providers. */
export const OURS: Subject = { fixture: path.join(repoRoot, "bench", "fixtures", "ours") };

/**
 * The floor's program with the native type tokens (bench/fixtures/native), its plugin a shim
 * exec'ing `argv`; the plugin process's command line holds `providerMarker`.
 */
export function nativeSubject(argv: readonly string[], providerMarker: string): Subject {
  return {
    fixture: path.join(repoRoot, "bench", "fixtures", "native"),
    providerMarker,
    prepare(ws) {
      const dir = path.join(ws.programDir, "plugin-bin");
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, "pulumi-resource-analytics"), `#!/bin/sh\nexec ${argv.map((a) => `"${a}"`).join(" ")} "$@"\n`, { mode: 0o755 });
    },
  };
}

/** The native program, its plugin the repository's build (dist/native/bin.js, run by this Node.js). */
export const NATIVE = nativeSubject([process.execPath, path.join(repoRoot, "dist", "native", "bin.js")], path.join("dist", "native", "bin.js"));

/** `pulumi up` as every comparison runs it. */
export const upArgs = (stack: string): string[] => ["up", "--yes", "--skip-preview", "--stack", stack];

/**
 * Times `pulumi up` of each program in `subjects` (one of them the floor) for every plan, against
 * one reference server, the programs interleaved repetition by repetition (the first going first
 * in even repetitions, last in odd ones), with the provider's peak RSS of each up. API requests
 * are counted for `measured`, the program that makes real ones. `backend` gives each program's
 * state backend (default: a `file://` directory of its own).
 */
export async function compareWithFloor<V extends string>(
  toolchain: PulumiToolchain,
  subjects: Record<V, Subject>,
  measured: V,
  plans: readonly EnginePlan[],
  log: (line: string) => void,
  backend?: (variant: V) => Backend,
): Promise<Comparison<V>> {
  const variants = Object.keys(subjects) as V[];
  const { server, env } = await startBenchServer();
  const workspaces = {} as Record<V, BenchWorkspace>;
  try {
    for (const v of variants) {
      workspaces[v] = BenchWorkspace.create(toolchain, subjects[v].fixture, env, subjects[v].providerMarker, backend?.(v));
      subjects[v].prepare?.(workspaces[v]);
    }
    // Warm-up: first plugin start, module loading and disk caches, not measured.
    for (const v of variants) {
      await workspaces[v].initStack("warmup", 10);
      await workspaces[v].pulumi(upArgs("warmup"));
    }
    log("warm-up done");
    const runs: Array<EngineRuns<V>> = [];
    for (const plan of plans) runs.push(await measurePlan(server, workspaces, variants, measured, plan, log));
    return { runs, commands: { up: `pulumi ${GLOBAL_FLAGS.join(" ")} ${upArgs("<stack>").join(" ")}` } };
  } finally {
    await server.close();
    for (const v of variants) workspaces[v]?.dispose();
  }
}

/** One plan of {@link compareWithFloor}: its repetitions, interleaved. */
async function measurePlan<V extends string>(
  server: ReferenceServer,
  workspaces: Record<V, BenchWorkspace>,
  variants: V[],
  measured: V,
  plan: EnginePlan,
  log: (line: string) => void,
): Promise<EngineRuns<V>> {
  const perVariant = (): Record<V, number[]> => Object.fromEntries(variants.map((v) => [v, []])) as unknown as Record<V, number[]>;
  const result: EngineRuns<V> = { plan, upMs: perVariant(), upRequests: [], providerPeakMiB: perVariant() };
  const extraEnv = plan.skipCheckpoints ? { PULUMI_SKIP_CHECKPOINTS: "true" } : {};
  for (let rep = 0; rep < plan.reps; rep++) {
    // Alternate which variant goes first, so drift and warm caches favour neither.
    const order = rep % 2 === 0 ? variants : [...variants].reverse();
    const stack = `n${plan.count}-r${rep}`;
    for (const variant of order) {
      const ws = workspaces[variant];
      await ws.initStack(stack, plan.count);
      const before = server.inspect.requestCount();
      const up = await ws.pulumi(upArgs(stack), extraEnv, upTimeLimitMs(plan.count));
      if (variant === measured) result.upRequests.push(server.inspect.requestCount() - before);
      result.upMs[variant].push(up.ms);
      result.providerPeakMiB[variant].push(up.providerPeakMiB);
      log(`N=${plan.count} rep ${rep + 1}/${plan.reps} ${variant}: up ${(up.ms / 1000).toFixed(2)} s, provider peak ${up.providerPeakMiB.toFixed(0)} MiB`);
    }
  }
  return result;
}

/**
 * The reference server the comparisons run against, with inspection, and the environment the
 * fixtures read its URL and key from. Schema sync is replaced by an instant fake: no data source
 * points at a real database, and a sync runs after the create response anyway, off the measured path.
 */
export async function startBenchServer(): Promise<{ server: ReferenceServer; env: NodeJS.ProcessEnv }> {
  const server = await startReferenceServer({ port: 0, bootstrapUsers: ["bench"], inspection: true, syncSchema: async () => ({ ok: true, tables: [] }) });
  return { server, env: { ANALYTICS_BASE_URL: server.url, ANALYTICS_API_KEY: server.apiKeys.bench ?? "" } };
}

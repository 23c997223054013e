/**
 * Scenarios A (pulumi up), B (no-change pulumi preview) and C (state footprint): this package's
 * program against the reference server, interleaved with the floor program (a no-op dynamic
 * provider of the same shape) on the same machine, in the same run.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { PulumiToolchain } from "@pulumi-analytics/toolchain";
import { startReferenceServer, type ReferenceServer } from "pulumi-analytics/reference-server";
import { BenchWorkspace, GLOBAL_FLAGS, repoRoot, upTimeLimitMs, type Backend } from "./workspace";

/** The two programs of scenarios A-C. */
export type Variant = "ours" | "floor";

/** One N of scenario A/B (and N). */
export interface EnginePlan {
  /** DataSources per stack (plus one Organization). */
  count: number;
  /** Repetitions, each running both variants. */
  reps: number;
  /** Run with PULUMI_SKIP_CHECKPOINTS=true (final state only) to fit the time budget. */
  skipCheckpoints: boolean;
}

/** Timings of one N, one entry per repetition, for each program `V` compared. */
export interface EngineRuns<V extends string = Variant> {
  /** The plan measured. */
  plan: EnginePlan;
  /** `pulumi up` wall times, ms. */
  upMs: Record<V, number[]>;
  /** No-change `pulumi preview` wall times, ms. */
  previewMs: Record<V, number[]>;
  /** API requests the reference server received during each preview of the measured program (not the floor). */
  previewRequests: number[];
  /** API requests received during each `pulumi up` of the measured program (N + 1 expected). */
  upRequests: number[];
  /** Peak RSS of the provider process during each `pulumi up`, MiB. */
  providerPeakMiB: Record<V, number[]>;
  /** Largest anonymous resident memory (RssAnon) sampled of the provider process during each `pulumi up`, MiB. */
  providerAnonPeakMiB: Record<V, number[]>;
  /** Closure serializations in the program during each `pulumi up` (instrumented in the fixture; 0 if it does not count). */
  serializations: Record<V, number[]>;
}

/** State footprint of one stack (scenario C). */
export interface Footprint {
  /** Bytes of `pulumi stack export`. */
  exportBytes: number;
  /** Resources in the export (stack, default provider, Organization, DataSources). */
  resources: number;
  /** exportBytes / resources. */
  bytesPerResource: number;
  /** Bytes of one DataSource entry of the export (median). */
  dataSourceBytes: number;
  /** Bytes of the `__provider` text, by resource type. */
  providerBytes: Record<string, number>;
  /** Distinct `__provider` texts (inputs and outputs of every resource), by resource type. */
  distinctProviders: Record<string, number>;
  /** Resources of each type. */
  resourcesByType: Record<string, number>;
}

/** Footprint of the first repetition's stacks, per N, for each program `V` compared. */
export type Footprints<V extends string = Variant> = Array<{ count: number } & Record<V, Footprint>>;

/** The exact commands of an engine comparison. */
export interface EngineCommands {
  up: string;
  preview: string;
  export: string;
}

/** What one comparison with the floor measured. */
export interface Comparison<V extends string> {
  /** One entry per N. */
  runs: Array<EngineRuns<V>>;
  /** Footprint of the first repetition's stacks, per N. */
  footprints: Footprints<V>;
  /** The exact commands. */
  commands: EngineCommands;
}

/** Everything scenarios A, B and C measured. */
export type EngineResult = Comparison<Variant>;

/** A program compared: its fixture, what marks its provider process, and any setup of its copy. */
export interface Subject {
  /** Directory of the Pulumi program, copied into a fresh workspace. */
  fixture: string;
  /** Text of the provider process's command line, for its peak RSS (default: the SDK's dynamic provider). */
  providerMarker?: string;
  /** Runs once on the copy, before any stack is made. */
  prepare?: (ws: BenchWorkspace) => void;
}

/** The floor program: a no-op dynamic provider of our resources' shape. */
export const FLOOR: Subject = { fixture: path.join(repoRoot, "bench", "fixtures", "floor") };

/** This package's program: one Organization and N DataSources through the dynamic providers. */
export const OURS: Subject = { fixture: path.join(repoRoot, "bench", "fixtures", "ours") };

/** How a comparison runs beyond its plans. */
export interface CompareOptions<V extends string> {
  /** The state backend of each program's workspace (default: a `file://` directory of its own). */
  backend?: (variant: V) => Backend;
  /** Time a no-change `pulumi preview` after each repetition's ups (default true); when false, `previewMs` stays empty. */
  previews?: boolean;
}

/** `pulumi up` as every engine comparison runs it. */
export const upArgs = (stack: string): string[] => ["up", "--yes", "--skip-preview", "--stack", stack];
const previewArgs = (stack: string): string[] => ["preview", "--expect-no-changes", "--stack", stack];

/** Scenario C figures from a parsed `pulumi stack export`. */
export function footprintOf(exportText: string): Footprint {
  const parsed = JSON.parse(exportText) as { deployment: { resources?: Array<Record<string, unknown>> } };
  const resources = parsed.deployment.resources ?? [];
  const providerBytes: Record<string, number> = {};
  const texts = new Map<string, Set<string>>();
  const resourcesByType: Record<string, number> = {};
  const dataSourceSizes: number[] = [];
  for (const resource of resources) {
    const type = String(resource.type);
    resourcesByType[type] = (resourcesByType[type] ?? 0) + 1;
    if (type.endsWith(":DataSource")) dataSourceSizes.push(Buffer.byteLength(JSON.stringify(resource)));
    for (const bag of [resource.inputs, resource.outputs] as Array<Record<string, unknown> | undefined>) {
      const provider = bag?.__provider;
      if (typeof provider !== "string") continue;
      providerBytes[type] = Buffer.byteLength(provider);
      const set = texts.get(type) ?? new Set<string>();
      set.add(provider);
      texts.set(type, set);
    }
  }
  dataSourceSizes.sort((a, b) => a - b);
  const exportBytes = Buffer.byteLength(exportText);
  return {
    exportBytes,
    resources: resources.length,
    bytesPerResource: Math.round(exportBytes / Math.max(1, resources.length)),
    dataSourceBytes: dataSourceSizes[dataSourceSizes.length >> 1] ?? 0,
    providerBytes,
    distinctProviders: Object.fromEntries([...texts].map(([type, set]) => [type, set.size])),
    resourcesByType,
  };
}

/** Runs scenarios A, B and C for every plan; `log` gets progress lines. */
export function runEngineScenarios(toolchain: PulumiToolchain, plans: readonly EnginePlan[], log: (line: string) => void): Promise<EngineResult> {
  return compareWithFloor<Variant>(toolchain, { ours: OURS, floor: FLOOR }, "ours", plans, log);
}

/**
 * Times `pulumi up`, then a no-change `pulumi preview`, of each program in `subjects` (one of them
 * the floor) for every plan, against one reference server, the programs interleaved repetition by
 * repetition (the first going first in even repetitions, last in odd ones), with the provider's
 * peak RSS of each up and the state footprint of each N's first stacks. API requests are counted
 * for `measured`, the program that makes real ones.
 */
export async function compareWithFloor<V extends string>(
  toolchain: PulumiToolchain,
  subjects: Record<V, Subject>,
  measured: V,
  plans: readonly EnginePlan[],
  log: (line: string) => void,
  options: CompareOptions<V> = {},
): Promise<Comparison<V>> {
  const previews = options.previews ?? true;
  const variants = Object.keys(subjects) as V[];
  const { server, env } = await startBenchServer();
  const workspaces = {} as Record<V, BenchWorkspace>;
  try {
    for (const v of variants) {
      const subject = subjects[v];
      workspaces[v] = BenchWorkspace.create(toolchain, subject.fixture, env, subject.providerMarker, options.backend?.(v));
      subject.prepare?.(workspaces[v]);
    }
    const counterFile = path.join(workspaces[measured].root, "serializations");
    // Warm-up: first plugin start, module loading and disk caches, not measured.
    for (const v of variants) {
      await workspaces[v].initStack("warmup", 10);
      await workspaces[v].pulumi(upArgs("warmup"));
      if (previews) await workspaces[v].pulumi(previewArgs("warmup"));
    }
    log("warm-up done");

    const runs: Array<EngineRuns<V>> = [];
    const footprints: Footprints<V> = [];
    for (const plan of plans) {
      const { result, footprint } = await measurePlan({ server, workspaces, variants, measured, previews, counterFile, log }, plan);
      runs.push(result);
      if (footprint) footprints.push(footprint);
    }
    return { runs, footprints, commands: engineCommands(previews) };
  } finally {
    await server.close();
    for (const v of variants) workspaces[v]?.dispose();
  }
}

/** What every repetition of one comparison shares. */
interface CompareContext<V extends string> {
  server: ReferenceServer;
  workspaces: Record<V, BenchWorkspace>;
  variants: V[];
  measured: V;
  previews: boolean;
  counterFile: string;
  log: (line: string) => void;
}

/** One plan of {@link compareWithFloor}: its repetitions, interleaved, and the footprint of its first repetition's stacks (none without repetitions). */
async function measurePlan<V extends string>(
  { server, workspaces, variants, measured, previews, counterFile, log }: CompareContext<V>,
  plan: EnginePlan,
): Promise<{ result: EngineRuns<V>; footprint: Footprints<V>[number] | undefined }> {
  const perVariant = <T>(make: () => T): Record<V, T> => Object.fromEntries(variants.map((v) => [v, make()])) as Record<V, T>;
  const result: EngineRuns<V> = {
    plan,
    upMs: perVariant(() => []),
    previewMs: perVariant(() => []),
    previewRequests: [],
    upRequests: [],
    providerPeakMiB: perVariant(() => []),
    providerAnonPeakMiB: perVariant(() => []),
    serializations: perVariant(() => []),
  };
  const footprint = { count: plan.count } as { count: number } & Record<V, Footprint>;
  const extraEnv = plan.skipCheckpoints ? { PULUMI_SKIP_CHECKPOINTS: "true" } : {};
  for (let rep = 0; rep < plan.reps; rep++) {
    // Alternate which variant goes first, so drift and warm caches favour neither.
    const order = rep % 2 === 0 ? variants : [...variants].reverse();
    const stack = `n${plan.count}-r${rep}`;
    for (const variant of order) {
      const ws = workspaces[variant];
      await ws.initStack(stack, plan.count);
      fs.rmSync(counterFile, { force: true });
      const before = server.inspect.requestCount();
      const up = await ws.pulumi(upArgs(stack), { ...extraEnv, BENCH_SERIALIZE_COUNT_FILE: counterFile }, upTimeLimitMs(plan.count));
      if (variant === measured) result.upRequests.push(server.inspect.requestCount() - before);
      result.upMs[variant].push(up.ms);
      result.providerPeakMiB[variant].push(up.providerPeakMiB);
      result.providerAnonPeakMiB[variant].push(up.providerAnonPeakMiB);
      result.serializations[variant].push(fs.existsSync(counterFile) ? Number(fs.readFileSync(counterFile, "utf8")) : 0);
      log(`N=${plan.count} rep ${rep + 1}/${plan.reps} ${variant}: up ${(up.ms / 1000).toFixed(2)} s, provider peak ${up.providerPeakMiB.toFixed(0)} MiB`);
    }
    for (const variant of previews ? order : []) {
      const before = server.inspect.requestCount();
      const preview = await workspaces[variant].pulumi(previewArgs(stack));
      if (variant === measured) result.previewRequests.push(server.inspect.requestCount() - before);
      result.previewMs[variant].push(preview.ms);
      log(`N=${plan.count} rep ${rep + 1}/${plan.reps} ${variant}: preview ${(preview.ms / 1000).toFixed(2)} s`);
    }
    if (rep === 0) {
      for (const v of variants) {
        (footprint as Record<V, Footprint>)[v] = footprintOf((await workspaces[v].pulumi(["stack", "export", "--stack", stack])).stdout);
      }
    }
  }
  return { result, footprint: plan.reps > 0 ? footprint : undefined };
}

/**
 * The reference server the engine scenarios run against, with inspection, and the environment the
 * fixtures read its URL and key from. Schema sync is replaced by an instant fake: no data source
 * points at a real database, and a sync runs after the create response anyway, off the measured path.
 */
export async function startBenchServer(): Promise<{ server: ReferenceServer; env: NodeJS.ProcessEnv }> {
  const server = await startReferenceServer({
    port: 0,
    bootstrapUsers: ["bench"],
    inspection: true,
    syncSchema: async () => ({ ok: true, tables: [] }),
  });
  return { server, env: { ANALYTICS_BASE_URL: server.url, ANALYTICS_API_KEY: server.apiKeys.bench ?? "" } };
}

/** The exact commands an engine comparison runs (`preview` empty when it times none). */
function engineCommands(previews = true): EngineCommands {
  const g = GLOBAL_FLAGS.join(" ");
  return {
    up: `pulumi ${g} ${upArgs("<stack>").join(" ")}`,
    preview: previews ? `pulumi ${g} ${previewArgs("<stack>").join(" ")}` : "",
    export: `pulumi ${g} stack export --stack <stack>`,
  };
}

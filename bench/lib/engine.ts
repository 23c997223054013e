/**
 * Scenarios A (pulumi up), B (no-change pulumi preview) and C (state footprint): this package's
 * program against the reference server, interleaved with the floor program (a no-op dynamic
 * provider of the same shape) on the same machine, in the same run.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { PulumiToolchain } from "pulumi-analytics/toolchain";
import { startReferenceServer } from "pulumi-analytics/reference-server";
import { BenchWorkspace, GLOBAL_FLAGS, repoRoot } from "./workspace";

/** The two programs compared. */
export type Variant = "ours" | "floor";

/** One N of scenario A/B. */
export interface EnginePlan {
  /** DataSources per stack (plus one Organization). */
  count: number;
  /** Repetitions, each running both variants. */
  reps: number;
  /** Run with PULUMI_SKIP_CHECKPOINTS=true (final state only) to fit the time budget. */
  skipCheckpoints: boolean;
}

/** Timings of one N, one entry per repetition. */
export interface EngineRuns {
  /** The plan measured. */
  plan: EnginePlan;
  /** `pulumi up` wall times, ms. */
  upMs: Record<Variant, number[]>;
  /** No-change `pulumi preview` wall times, ms. */
  previewMs: Record<Variant, number[]>;
  /** API requests the reference server received during each of our previews. */
  previewRequests: number[];
  /** API requests received during each of our `pulumi up`s (N + 1 expected). */
  upRequests: number[];
  /** Peak RSS of the dynamic-provider process during each `pulumi up`, MiB. */
  providerPeakMiB: Record<Variant, number[]>;
  /** Closure serializations in the program during each `pulumi up` (instrumented in the fixture). */
  serializations: Record<Variant, number[]>;
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

/** Everything scenarios A, B and C measured. */
export interface EngineResult {
  /** One entry per N. */
  runs: EngineRuns[];
  /** Footprint of the first repetition's stacks, per N. */
  footprints: Array<{ count: number } & Record<Variant, Footprint>>;
  /** The exact commands. */
  commands: { up: string; preview: string; export: string };
}

/** Fixture program of each variant. */
const FIXTURES: Record<Variant, string> = {
  ours: path.join(repoRoot, "bench", "fixtures", "ours"),
  floor: path.join(repoRoot, "bench", "fixtures", "floor"),
};

const upArgs = (stack: string): string[] => ["up", "--yes", "--skip-preview", "--stack", stack];
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
export async function runEngineScenarios(toolchain: PulumiToolchain, plans: readonly EnginePlan[], log: (line: string) => void): Promise<EngineResult> {
  // Schema sync is replaced by an instant fake: no data source points at a real database, and a
  // sync runs after the create response anyway, off the measured path.
  const server = await startReferenceServer({
    port: 0,
    bootstrapUsers: ["bench"],
    inspection: true,
    syncSchema: async () => ({ ok: true, tables: [] }),
  });
  const env = { ANALYTICS_BASE_URL: server.url, ANALYTICS_API_KEY: server.apiKeys.bench ?? "" };
  const workspaces: Record<Variant, BenchWorkspace> = {
    ours: BenchWorkspace.create(toolchain, FIXTURES.ours, env),
    floor: BenchWorkspace.create(toolchain, FIXTURES.floor, env),
  };
  const counterFile = path.join(workspaces.ours.root, "serializations");
  try {
    // Warm-up: first plugin start, module loading and disk caches, not measured.
    for (const variant of ["ours", "floor"] as const) {
      await workspaces[variant].initStack("warmup", 10);
      await workspaces[variant].pulumi(upArgs("warmup"));
      await workspaces[variant].pulumi(previewArgs("warmup"));
    }
    log("warm-up done");

    const runs: EngineRuns[] = [];
    const footprints: EngineResult["footprints"] = [];
    for (const plan of plans) {
      const result: EngineRuns = {
        plan,
        upMs: { ours: [], floor: [] },
        previewMs: { ours: [], floor: [] },
        previewRequests: [],
        upRequests: [],
        providerPeakMiB: { ours: [], floor: [] },
        serializations: { ours: [], floor: [] },
      };
      const extraEnv = plan.skipCheckpoints ? { PULUMI_SKIP_CHECKPOINTS: "true" } : {};
      for (let rep = 0; rep < plan.reps; rep++) {
        // Alternate which variant goes first, so drift and warm caches favour neither.
        const order: Variant[] = rep % 2 === 0 ? ["ours", "floor"] : ["floor", "ours"];
        const stack = `n${plan.count}-r${rep}`;
        for (const variant of order) {
          const ws = workspaces[variant];
          await ws.initStack(stack, plan.count);
          fs.rmSync(counterFile, { force: true });
          const before = server.inspect.requestCount();
          const up = await ws.pulumi(upArgs(stack), { ...extraEnv, BENCH_SERIALIZE_COUNT_FILE: counterFile });
          if (variant === "ours") result.upRequests.push(server.inspect.requestCount() - before);
          result.upMs[variant].push(up.ms);
          result.providerPeakMiB[variant].push(up.providerPeakMiB);
          result.serializations[variant].push(Number(fs.readFileSync(counterFile, "utf8")));
          log(`N=${plan.count} rep ${rep + 1}/${plan.reps} ${variant}: up ${(up.ms / 1000).toFixed(2)} s, provider peak ${up.providerPeakMiB.toFixed(0)} MiB`);
        }
        for (const variant of order) {
          const before = server.inspect.requestCount();
          const preview = await workspaces[variant].pulumi(previewArgs(stack));
          if (variant === "ours") result.previewRequests.push(server.inspect.requestCount() - before);
          result.previewMs[variant].push(preview.ms);
          log(`N=${plan.count} rep ${rep + 1}/${plan.reps} ${variant}: preview ${(preview.ms / 1000).toFixed(2)} s`);
        }
        if (rep === 0) {
          const ours = footprintOf((await workspaces.ours.pulumi(["stack", "export", "--stack", stack])).stdout);
          const floor = footprintOf((await workspaces.floor.pulumi(["stack", "export", "--stack", stack])).stdout);
          footprints.push({ count: plan.count, ours, floor });
        }
      }
      runs.push(result);
    }
    const g = GLOBAL_FLAGS.join(" ");
    return {
      runs,
      footprints,
      commands: {
        up: `pulumi ${g} ${upArgs("<stack>").join(" ")}`,
        preview: `pulumi ${g} ${previewArgs("<stack>").join(" ")}`,
        export: `pulumi ${g} stack export --stack <stack>`,
      },
    };
  } finally {
    await server.close();
    workspaces.ours.dispose();
    workspaces.floor.dispose();
  }
}

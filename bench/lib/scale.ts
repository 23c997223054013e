/**
 * Scenario L (large scale), on one shared S3-compatible backend (versitygw, bench/lib/s3-server.ts):
 *
 * 1. `pulumi up` of one stack of N DataSources (plus one Organization), this package's program
 *    against the floor, interleaved, with checkpoints on (as users run), on a `file://` backend
 *    and on the S3 backend: {@link compareWithFloor} twice, each program in a key prefix of the
 *    bucket (or a directory) of its own.
 * 2. `stacks` stacks of `perStack` DataSources each (different stacks of one project), all
 *    `pulumi up` at once on the S3 backend against one reference server: every run must succeed,
 *    and the server must have made exactly one object per resource in the stacks' states (no
 *    duplicate create), its wall time shown beside that of the single stack of N on S3.
 */
import { performance } from "node:perf_hooks";
import { resolvePinnedGoTool, stopProcessTree, trackProcessTree, type PulumiToolchain } from "@pulumi-analytics/toolchain";
import { compareWithFloor, FLOOR, NATIVE, OURS, startBenchServer, upArgs, type Comparison, type EnginePlan } from "./engine";
import { startVersitygw, versitygwTool, type S3Server } from "./s3-server";
import { BenchWorkspace, GLOBAL_FLAGS, repoRoot, upTimeLimitMs } from "./workspace";

/** The programs of part 1: this package's dynamic classes, its native provider plugin, and the floor. */
export type ScaleVariant = "ours" | "native" | "floor";

/** Sizes of scenario L: part 1's single stacks (N x repetitions), part 2's stacks and DataSources per stack (plus one Organization each). */
export interface ScalePlan {
  engine: EnginePlan[];
  stacks: number;
  perStack: number;
}

/**
 * What part 2 (the stacks updated at once) saw: the wall time from the first `pulumi up` started
 * to the last finished and each stack's (0 for a failed one), the runs that succeeded and the
 * failures' errors; the organizations and data sources the server stored and the creates it
 * answered 201; the objects in the stacks' exported states and how many of their ids the server
 * holds; server objects in no state plus ids in two entries; organizations without `perStack`.
 */
export interface ParallelRun {
  stacks: number;
  perStack: number;
  wallMs: number;
  stackMs: number[];
  succeeded: number;
  failures: string[];
  serverOrganizations: number;
  serverDataSources: number;
  createsAnswered: number;
  stateResources: number;
  stateIdsOnServer: number;
  duplicates: number;
  unevenOrganizations: number;
}

/** Everything scenario L measured: part 1 on `file://` and on S3, part 2 on the same S3 backend, versitygw's release, the commands. */
export interface ScaleResult {
  plan: ScalePlan;
  file: Comparison<ScaleVariant>;
  s3: Comparison<ScaleVariant>;
  parallel: ParallelRun;
  versitygw: string;
  commands: Record<string, string>;
}

/** Runs scenario L; `log` gets progress lines. */
export async function runScaleScenario(toolchain: PulumiToolchain, plan: ScalePlan, log: (line: string) => void): Promise<ScaleResult> {
  const tool = versitygwTool(repoRoot);
  const binary = await resolvePinnedGoTool(tool, { log });
  const s3 = await startVersitygw(binary, { trackProcessTree, stopProcessTree });
  log(`versitygw ${tool.version} on ${s3.endpoint}`);
  try {
    const subjects = { ours: OURS, native: NATIVE, floor: FLOOR };
    log("L: one stack on file://");
    const file = await compareWithFloor<ScaleVariant>(toolchain, subjects, "ours", plan.engine, (line) => log(`L file: ${line}`));
    log("L: one stack on s3://");
    const onS3 = await compareWithFloor<ScaleVariant>(
      toolchain,
      subjects,
      "ours",
      plan.engine,
      (line) => log(`L s3: ${line}`),
      (variant) => ({
        url: s3.backendUrl(`single-${variant}`),
        env: s3.env(),
      }),
    );
    log(`L: ${plan.stacks} stacks x ${plan.perStack} at once on s3://`);
    const parallel = await runParallel(toolchain, s3, plan, log);
    const g = GLOBAL_FLAGS.join(" ");
    return {
      plan,
      file,
      s3: onS3,
      parallel,
      versitygw: tool.version,
      commands: {
        "single stack (ours, native and floor, each backend, each repetition)": file.commands.up,
        backends: `PULUMI_BACKEND_URL=file://<dir> | ${s3.backendUrl("<prefix>").replace(s3.endpoint, "127.0.0.1:<port>")} (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY of the server)`,
        "stacks at once (ours)": `${plan.stacks} x pulumi ${g} ${upArgs("p<i>").join(" ")} (started together)`,
        "state of each stack": `pulumi ${g} stack export --stack p<i>`,
      },
    };
  } finally {
    await s3.stop();
  }
}

/** Part 2: `plan.stacks` stacks of this package's program updated at once on the S3 backend, against one reference server. */
async function runParallel(toolchain: PulumiToolchain, s3: S3Server, plan: ScalePlan, log: (line: string) => void): Promise<ParallelRun> {
  const { server, env } = await startBenchServer();
  const ws = BenchWorkspace.create(toolchain, OURS.fixture, env, undefined, { url: s3.backendUrl("parallel"), env: s3.env() });
  try {
    // Warm-up (plugin start, module loading), not counted: its objects are taken off below.
    await ws.initStack("warmup", 1);
    await ws.pulumi(upArgs("warmup"));
    const orgsBefore = new Set(server.inspect.organizations().map((o) => o.id));
    const dsBefore = server.inspect.dataSources().length;
    const createsBefore = createsAnswered(server.inspect.requests().byRoute);
    const stacks = Array.from({ length: plan.stacks }, (_, i) => `p${i}`);
    for (const stack of stacks) await ws.initStack(stack, plan.perStack);
    log(`L parallel: ${plan.stacks} stacks initialised; starting every pulumi up`);

    const started = performance.now();
    const settled = await Promise.allSettled(
      stacks.map(async (stack) => {
        // The stacks share the machine: each may take as long as one stack of all their resources.
        const run = await ws.pulumi(upArgs(stack), {}, upTimeLimitMs(plan.stacks * plan.perStack));
        log(`L parallel: ${stack} done in ${(run.ms / 1000).toFixed(1)} s`);
        return run.ms;
      }),
    );
    const wallMs = performance.now() - started;
    const failures = settled.flatMap((s) => (s.status === "rejected" ? [String(s.reason instanceof Error ? s.reason.message : s.reason).slice(0, 2000)] : []));

    const organizations = server.inspect.organizations().filter((o) => !orgsBefore.has(o.id));
    const serverIds = new Set([...organizations.map((o) => o.id), ...organizations.flatMap((o) => o.dataSourceIds)]);
    const stateIds: string[] = [];
    for (const stack of stacks) {
      try {
        const exported = JSON.parse((await ws.pulumi(["stack", "export", "--stack", stack])).stdout) as {
          deployment: { resources?: Array<{ type: string; id?: string }> };
        };
        for (const r of exported.deployment.resources ?? []) {
          if ((r.type.endsWith(":Organization") || r.type.endsWith(":DataSource")) && r.id) stateIds.push(r.id);
        }
      } catch (error) {
        failures.push(`stack export ${stack}: ${String(error).slice(0, 500)}`);
      }
    }
    const distinctStateIds = new Set(stateIds);
    const stateIdsOnServer = [...distinctStateIds].filter((id) => serverIds.has(id)).length;
    return {
      stacks: plan.stacks,
      perStack: plan.perStack,
      wallMs,
      stackMs: settled.map((s) => (s.status === "fulfilled" ? s.value : 0)),
      succeeded: settled.filter((s) => s.status === "fulfilled").length,
      failures,
      serverOrganizations: organizations.length,
      serverDataSources: server.inspect.dataSources().length - dsBefore,
      createsAnswered: createsAnswered(server.inspect.requests().byRoute) - createsBefore,
      stateResources: stateIds.length,
      stateIdsOnServer,
      duplicates: serverIds.size - stateIdsOnServer + (stateIds.length - distinctStateIds.size),
      unevenOrganizations: organizations.filter((o) => o.dataSourceIds.length !== plan.perStack).length,
    };
  } finally {
    await server.close();
    ws.dispose();
  }
}

/** Create requests answered 201, summed over the public POST routes. */
function createsAnswered(byRoute: Record<string, Record<string, number>>): number {
  let total = 0;
  for (const [route, statuses] of Object.entries(byRoute)) if (route.startsWith("POST ")) total += statuses["201"] ?? 0;
  return total;
}

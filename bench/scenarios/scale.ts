/**
 * Scenario L: scale on one shared backend (bench/lib/scale.ts). One large stack, this package's
 * dynamic classes and its native provider each against the floor, on `file://` and on S3
 * (versitygw), checkpoints on; then many stacks updated at once on that S3 backend against one
 * reference server: every run succeeds and the server makes exactly one object per resource.
 */
import { type Figure, bounded, type RunContext } from "../lib/figure";
import { runScaleScenario, type ScaleResult } from "../lib/scale";
import { median, pairedRatio, round } from "../lib/stats";

export async function run({ args, log, toolchain }: RunContext): Promise<ScaleResult> {
  const engine = args.plans?.map(({ count, reps }) => ({ count, reps, skipCheckpoints: false })) ?? [
    { count: args.quick ? 200 : 2000, reps: 1, skipCheckpoints: false },
  ];
  const stacks = args.quick ? { stacks: 4, perStack: 50 } : { stacks: 8, perStack: 250 };
  return runScaleScenario(await toolchain(), { engine, ...stacks }, log);
}

const s = (ms: number): string => `${round(ms / 1000, 2)} s`;
const check = (ok: boolean): Figure["status"] => (ok ? "pass" : "miss");

/** Each backend's single stack: ours and the native provider against the floor (≤ 1.05×), and the creates per up (N + 1). */
function singleStackFigures(scale: ScaleResult): Figure[] {
  return (
    [
      ["file://", scale.file],
      ["s3:// (versitygw)", scale.s3],
    ] as const
  ).flatMap(([backend, comparison]) =>
    comparison.runs.flatMap((run) => {
      const n = run.plan.count;
      const against = (who: string, times: number[]): Figure =>
        bounded(
          "L",
          `pulumi up on ${backend}, N=${n} (${run.plan.reps} reps, checkpoints on): ${who} ${s(median(times))} / floor ${s(median(run.upMs.floor))} (medians)`,
          pairedRatio(times, run.upMs.floor),
          "≤",
          1.05,
        );
      const ups = run.upRequests;
      return [
        against("ours", run.upMs.ours),
        // Runs recorded before the native provider joined have no native times.
        ...(run.upMs.native?.length ? [against("the native provider", run.upMs.native)] : []),
        {
          scenario: "L",
          name: `API requests per pulumi up on ${backend}, N=${n} (${ups.length} ups)`,
          value: [...new Set(ups)].join(", "),
          target: String(n + 1),
          status: check(ups.every((x) => x === n + 1)),
        },
      ];
    }),
  );
}

/** The stacks at once: all succeed, one object per resource, no duplicate; their wall time beside one stack's. */
function parallelFigures(scale: ScaleResult): Figure[] {
  const p = scale.parallel;
  const expected = p.stacks * (p.perStack + 1);
  const label = `${p.stacks} stacks × ${p.perStack} at once on s3://, one reference server`;
  const objects = p.serverOrganizations + p.serverDataSources;
  const single = scale.s3.runs.at(-1);
  return [
    {
      scenario: "L",
      name: `${label}: pulumi up runs that succeeded`,
      value: `${p.succeeded}/${p.stacks}`,
      target: `${p.stacks}/${p.stacks}`,
      status: check(p.succeeded === p.stacks),
    },
    {
      scenario: "L",
      name: `${label}: objects the server created (${p.createsAnswered} creates answered 201; ${p.stateResources} in the states)`,
      value: String(objects),
      target: String(expected),
      status: check(objects === expected && p.createsAnswered === expected && p.stateResources === expected),
    },
    {
      scenario: "L",
      name: `${label}: duplicates (server objects in no state, ids in two entries, organizations without ${p.perStack} data sources)`,
      value: String(p.duplicates + p.unevenOrganizations),
      target: "0",
      status: check(p.duplicates === 0 && p.unevenOrganizations === 0),
    },
    {
      scenario: "L",
      name: `${label}: wall time (one stack of ${single?.plan.count} on the same backend: ${single ? s(median(single.upMs.ours)) : "–"})`,
      value: s(p.wallMs),
      target: "–",
      status: "info",
    },
  ];
}

export function figures(raw: ScaleResult): Figure[] {
  return [...singleStackFigures(raw), ...parallelFigures(raw)];
}

/** Scenario T's figures, with their targets. */
import type { Figure } from "../figure";
import { round } from "../stats";
import { PLUGIN_SIDES, type SideRun, type StepResult, type TofuResult, type TofuSide } from "./tofu";

/** How each side is named in the report. */
export const SIDE_NAMES: Record<TofuSide, string> = {
  tofu: "OpenTofu + restapi",
  bridge: "restapi through Pulumi, YAML",
  yaml: "native plugin, YAML",
  ts: "native plugin, TypeScript SDK",
  dynamic: "dynamic classes",
};

const s = (msValue: number): string => `${round(msValue / 1000, 2)} s`;
const ms = (seconds: number): string => `${round(seconds * 1000, 2)} ms`;
const label = (run: SideRun): string => `${SIDE_NAMES[run.side]}${run.side === "tofu" ? "" : run.checkpoints ? ", checkpoints on" : ", checkpoints skipped"}`;
/** The first step of a run (apply/up), and its no-change preview. */
const create = (run: SideRun): StepResult => run.steps[0]!;
const preview = (run: SideRun | undefined): StepResult | undefined => run?.steps.find((step) => step.step === "preview");

/** A figure of `value` against `target` (at most), or reported without one. */
function figure(name: string, value: number, target: number | undefined): Figure {
  const shown = { scenario: "T", name, value: `${round(value, 2)}×` };
  return target === undefined ? { ...shown, target: "–", status: "info" } : { ...shown, target: `≤ ${target}×`, status: value <= target ? "pass" : "miss" };
}

/** Provider CPU seconds per object created by the first apply/up (0 when it created none). */
export function cpuPerCreate(run: SideRun): number {
  return create(run).creates > 0 ? create(run).providerCpuS / create(run).creates : 0;
}

/** Engine CPU seconds of a run's first up per object it created (0 when unmeasured or none). */
export function engineCpuPerCreate(run: SideRun): number {
  return create(run).creates > 0 && create(run).engineCpuS !== undefined ? create(run).engineCpuS! / create(run).creates : 0;
}

/**
 * Each plugin side against the bridged restapi (same N and checkpoint setting): `pulumi up` wall
 * time and plugin CPU per create, at most 1× for YAML against YAML (the TypeScript side reported
 * beside it), and the engine's CPU per create, reported.
 */
function bridgeFigures(n: number, runs: SideRun[]): Figure[] {
  return runs
    .filter((r) => r.side === "bridge")
    .flatMap((bridge) =>
      runs
        .filter((r) => PLUGIN_SIDES.includes(r.side) && r.checkpoints === bridge.checkpoints)
        .flatMap((run) => {
          const target = run.side === "yaml" ? 1 : undefined;
          const versus = (what: string, ours: string, theirs: string): string => `${what} (${label(run)}) ${ours} / restapi through Pulumi ${theirs}, N=${n}`;
          const [engineOurs, engineTheirs] = [engineCpuPerCreate(run), engineCpuPerCreate(bridge)];
          return [
            figure(versus("pulumi up", s(create(run).ms), s(create(bridge).ms)), create(run).ms / create(bridge).ms, target),
            figure(versus("provider CPU per create", ms(cpuPerCreate(run)), ms(cpuPerCreate(bridge))), cpuPerCreate(run) / cpuPerCreate(bridge), target),
            ...(engineOurs > 0 && engineTheirs > 0
              ? [figure(versus("engine CPU per create", ms(engineOurs), ms(engineTheirs)), engineOurs / engineTheirs, undefined)]
              : []),
          ];
        }),
    );
}

/**
 * Against OpenTofu's restapi at one N: the plugin's CPU per create (at most 1.2× at N=100, where its
 * start-up weighs most, 1× from N=300); `pulumi up` against `tofu apply` (checkpoints skipped, from
 * N=300: YAML 1.25×, TypeScript 2×); the TypeScript side's no-change preview against YAML's (1.5×).
 */
function tofuSideFigures(n: number, runs: SideRun[], tofu: SideRun): Figure[] {
  const [tofuCpu, applyMs] = [cpuPerCreate(tofu), create(tofu).ms];
  const upTarget = (run: SideRun): number | undefined =>
    run.checkpoints || n < 300 || !PLUGIN_SIDES.includes(run.side) ? undefined : run.side === "yaml" ? 1.25 : 2;
  return [
    ...runs
      .filter((r) => PLUGIN_SIDES.includes(r.side))
      .map((run) =>
        figure(
          `provider CPU per create, N=${n}: our plugin (${label(run)}) ${round(cpuPerCreate(run) * 1000, 2)} ms / restapi ${round(tofuCpu * 1000, 2)} ms`,
          cpuPerCreate(run) / tofuCpu,
          n >= 300 ? 1 : 1.2,
        ),
      ),
    ...runs
      .filter((r) => r.side !== "tofu")
      .map((run) => figure(`pulumi up (${label(run)}) ${s(create(run).ms)} / tofu apply ${s(applyMs)}, N=${n}`, create(run).ms / applyMs, upTarget(run))),
    ...runs
      .filter((r) => r.side === "ts")
      .flatMap((run) => {
        const [ours, theirs] = [preview(run), preview(runs.find((r) => r.side === "yaml" && r.checkpoints === run.checkpoints))];
        return ours && theirs
          ? [figure(`pulumi preview, no change (${label(run)}) ${s(ours.ms)} / YAML's ${s(theirs.ms)}, N=${n}`, ours.ms / theirs.ms, 1.5)]
          : [];
      }),
  ];
}

/** Every figure of T, per N: against the bridged restapi, then against OpenTofu's restapi. */
export function tofuFigures(result: TofuResult): Figure[] {
  return [...new Set(result.runs.map((r) => r.count))].flatMap((n) => {
    const runs = result.runs.filter((r) => r.count === n);
    const tofu = runs.find((r) => r.side === "tofu");
    return [...bridgeFigures(n, runs), ...(tofu ? tofuSideFigures(n, runs, tofu) : [])];
  });
}

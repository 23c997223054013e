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
const ratio = (v: number): string => `${round(v, 2)}×`;
const check = (ok: boolean): "pass" | "miss" => (ok ? "pass" : "miss");
const label = (run: SideRun): string => `${SIDE_NAMES[run.side]}${run.side === "tofu" ? "" : run.checkpoints ? ", checkpoints on" : ", checkpoints skipped"}`;

/** The first step of a run (apply/up). */
const create = (run: SideRun): StepResult => run.steps[0]!;

/** Provider CPU seconds per object created by the first apply/up (0 when it created none). */
export function cpuPerCreate(run: SideRun): number {
  const first = create(run);
  return first.creates > 0 ? first.providerCpuS / first.creates : 0;
}

/** The plugin's CPU per create against restapi's: at most 1.2× at N=100, where its start-up weighs most, and 1.0× from N=300. */
const cpuTarget = (n: number): number => (n >= 300 ? 1.0 : 1.2);

/** The target of `pulumi up` against `tofu apply` (checkpoints skipped, N ≥ 300): YAML 1.25×, a TypeScript program 2×. */
const upTarget = (run: SideRun): number | undefined => (run.checkpoints || run.count < 300 || run.side === "dynamic" || run.side === "bridge" ? undefined : run.side === "yaml" ? 1.25 : 2);

/** The no-change preview of a TypeScript side against YAML's (same N and checkpoint setting): at most 1.5×. */
const PREVIEW_TARGET = 1.5;

/** Plugin CPU per create of each plugin side against restapi's. */
function cpuFigures(n: number, runs: SideRun[], tofuCpu: number): Figure[] {
  return runs
    .filter((r) => PLUGIN_SIDES.includes(r.side))
    .map((run) => {
      const r = cpuPerCreate(run) / tofuCpu;
      const name = `provider CPU per create, N=${n}: our plugin (${label(run)}) ${round(cpuPerCreate(run) * 1000, 2)} ms / restapi ${round(tofuCpu * 1000, 2)} ms`;
      return { scenario: "T", name, value: ratio(r), target: `≤ ${cpuTarget(n)}×`, status: check(r <= cpuTarget(n)) };
    });
}

/** Each TypeScript side's no-change preview against YAML's. */
function previewFigures(n: number, runs: SideRun[]): Figure[] {
  const preview = (run: SideRun): StepResult | undefined => run.steps.find((step) => step.step === "preview");
  return runs
    .filter((r) => r.side === "ts")
    .flatMap((run) => {
      const yaml = runs.find((r) => r.side === "yaml" && r.checkpoints === run.checkpoints);
      const [ours, theirs] = [preview(run), yaml && preview(yaml)];
      if (!ours || !theirs) return [];
      const r = ours.ms / theirs.ms;
      const name = `pulumi preview, no change (${label(run)}) ${s(ours.ms)} / YAML's ${s(theirs.ms)}, N=${n}`;
      return [{ scenario: "T", name, value: ratio(r), target: `≤ ${PREVIEW_TARGET}×`, status: check(r <= PREVIEW_TARGET) }];
    });
}

/** Our YAML program against the bridged restapi's, same engine, same N and checkpoint setting: `pulumi up` and plugin CPU per create at most 1.0× its. */
export const BRIDGE_TARGET = 1.0;

/** Engine CPU seconds of a run's first up per object it created (0 when unmeasured or none). */
export function engineCpuPerCreate(run: SideRun): number {
  const first = create(run);
  return first.creates > 0 && first.engineCpuS !== undefined ? first.engineCpuS / first.creates : 0;
}

const ms = (seconds: number): string => `${round(seconds * 1000, 2)} ms`;

/**
 * Each plugin side against the bridged restapi (same N and checkpoint setting): `pulumi up` wall
 * time, plugin CPU per create, engine CPU per create. YAML against YAML carries the targets; the
 * TypeScript sides are reported beside them.
 */
export function bridgeFigures(n: number, runs: SideRun[]): Figure[] {
  const figures: Figure[] = [];
  for (const bridge of runs.filter((r) => r.side === "bridge")) {
    for (const run of runs.filter((r) => PLUGIN_SIDES.includes(r.side) && r.checkpoints === bridge.checkpoints)) {
      const targeted = run.side === "yaml";
      const figure = (name: string, r: number): Figure => ({
        scenario: "T",
        name: `${name}, N=${n}`,
        value: ratio(r),
        target: targeted ? `≤ ${BRIDGE_TARGET}×` : "–",
        status: targeted ? check(r <= BRIDGE_TARGET) : "info",
      });
      const [ours, theirs] = [create(run), create(bridge)];
      figures.push(figure(`pulumi up (${label(run)}) ${s(ours.ms)} / restapi through Pulumi ${s(theirs.ms)}`, ours.ms / theirs.ms));
      figures.push(figure(`provider CPU per create (${label(run)}) ${ms(cpuPerCreate(run))} / restapi through Pulumi ${ms(cpuPerCreate(bridge))}`, cpuPerCreate(run) / cpuPerCreate(bridge)));
      const [engineOurs, engineTheirs] = [engineCpuPerCreate(run), engineCpuPerCreate(bridge)];
      if (engineOurs > 0 && engineTheirs > 0) {
        figures.push({ scenario: "T", name: `engine CPU per create (${label(run)}) ${ms(engineOurs)} / restapi through Pulumi ${ms(engineTheirs)}, N=${n}`, value: ratio(engineOurs / engineTheirs), target: "–", status: "info" });
      }
    }
  }
  return figures;
}

/** The figures with targets: plugin CPU per create against restapi's, pulumi up against tofu apply, previews against YAML's, and our plugin against the bridged restapi. */
export function tofuFigures(result: TofuResult): Figure[] {
  const figures: Figure[] = [];
  const counts = [...new Set(result.runs.map((r) => r.count))];
  for (const [n, runs] of counts.map((n) => [n, result.runs.filter((r) => r.count === n)] as const)) {
    figures.push(...bridgeFigures(n, runs));
    const tofu = runs.find((r) => r.side === "tofu");
    if (!tofu) continue;
    const applyMs = create(tofu).ms;
    figures.push(...cpuFigures(n, runs, cpuPerCreate(tofu)));
    for (const run of runs.filter((r) => r.side !== "tofu")) {
      const r = create(run).ms / applyMs;
      const target = upTarget(run);
      figures.push({
        scenario: "T",
        name: `pulumi up (${label(run)}) ${s(create(run).ms)} / tofu apply ${s(applyMs)}, N=${n}`,
        value: ratio(r),
        target: target === undefined ? "–" : `≤ ${target}×`,
        status: target === undefined ? "info" : check(r <= target),
      });
    }
    figures.push(...previewFigures(n, runs));
  }
  return figures;
}

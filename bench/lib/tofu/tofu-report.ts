/** Scenario T's figures (with the targets) and its report, bench/results/tofu.md. */
import { switchFigures, switchTable } from "./backend-switches";
import type { Figure } from "../figure";
import { round } from "../stats";
import type { SystemInfo } from "../system";
import { PLUGIN_SIDES, type SideRun, type StepResult, type TofuResult, type TofuSide } from "./tofu";

/** How each side is named in the report. */
export const SIDE_NAMES: Record<TofuSide, string> = {
  tofu: "OpenTofu + restapi",
  bridge: "restapi through Pulumi, YAML",
  yaml: "native plugin, YAML",
  ts: "native plugin, TypeScript SDK",
  "ts-transpile": "native plugin, TypeScript SDK, transpile-only",
  "ts-js": "native plugin, TypeScript SDK compiled to JavaScript",
  "ts-js-nostack": "native plugin, TypeScript SDK compiled to JavaScript, stack traces off",
  dynamic: "dynamic classes",
};

const s = (msValue: number): string => `${round(msValue / 1000, 2)} s`;
const ratio = (v: number): string => `${round(v, 2)}×`;
const check = (ok: boolean): "pass" | "miss" => (ok ? "pass" : "miss");
const label = (run: SideRun): string => `${SIDE_NAMES[run.side]}${run.side === "tofu" ? "" : run.checkpoints ? ", checkpoints on" : ", checkpoints skipped"}${engineText(run)}`;

/** Which CLI and PULUMI_HOME a Pulumi side ran with (nothing for OpenTofu's, or for a run recorded before it was). */
export const engineText = (run: SideRun): string => (run.engine ? `, Pulumi ${run.engine.cli} with a ${run.engine.home} PULUMI_HOME` : "");

/** The Pulumi CLI versions of a T result's runs, each once, in the order they ran (none for a result recorded before runs named theirs). */
export function tofuCliVersions(result: TofuResult): string[] {
  return [...new Set(result.runs.flatMap((run) => (run.engine ? [run.engine.cli] : [])))];
}

/** The engine a Pulumi side ran on: the pinned CLI for runs recorded before it was. */
const engineOf = (run: SideRun): string => run.engine?.name ?? "pinned";

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
    .filter((r) => r.side.startsWith("ts"))
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

/** The runs of one N, one list per engine of the Pulumi sides, OpenTofu's side in each (its figures are compared with each engine's). */
function runsByEngine(runs: SideRun[]): SideRun[][] {
  const tofu = runs.filter((r) => r.side === "tofu");
  const pulumi = runs.filter((r) => r.side !== "tofu");
  const engines = [...new Set(pulumi.map(engineOf))];
  return engines.length === 0 ? [tofu] : engines.map((engine) => [...tofu, ...pulumi.filter((r) => engineOf(r) === engine)]);
}

/** The figures with targets: plugin CPU per create against restapi's, pulumi up against tofu apply, previews against YAML's, and our plugin against the bridged restapi. */
export function tofuFigures(result: TofuResult): Figure[] {
  const figures: Figure[] = [];
  const counts = [...new Set(result.runs.map((r) => r.count))];
  for (const [n, runs] of counts.flatMap((n) => runsByEngine(result.runs.filter((r) => r.count === n)).map((runs) => [n, runs] as const))) {
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
  figures.push(...switchFigures(result.switches ?? []));
  return figures;
}

/** Requests by route, e.g. `POST …/data-sources 201 ×100; GET …/{id} 404 ×101`. */
function requestText(requests: StepResult["requests"]): string {
  const parts: string[] = [];
  for (const [route, statuses] of Object.entries(requests)) {
    for (const [status, n] of Object.entries(statuses)) parts.push(`${route.replace(/\/api\/public/, "")} ${status} ×${n}`);
  }
  return parts.join("; ") || "none";
}

/** What the command said it did: `+101 ~0 -0` (`±` replaced), or `—` without a summary. */
function summaryText(step: StepResult): string {
  const sum = step.summary;
  if (!sum) return "—";
  return `+${sum.add} ~${sum.change} -${sum.destroy}${sum.replace ? ` ±${sum.replace}` : ""}`;
}

/** One side's table: each command with its exit, time, creates, requests, summary and provider CPU. */
function sideTable(run: SideRun): string[] {
  const lines = [`#### ${label(run)}, N=${run.count}`, "", "| Command | Exit | Time | Creates | Said | Requests | Provider CPU | Engine CPU | All CPU | Provider peak | First error / warning |", "|---|---|---|---|---|---|---|---|---|---|---|"];
  for (const step of run.steps) {
    const note = step.errors[0] ?? (step.warnings.count ? `${step.warnings.count} warnings: ${step.warnings.first[0] ?? ""}` : "");
    lines.push(
      `| \`${step.command}\` | ${step.code} | ${s(step.ms)} | ${step.creates} | ${summaryText(step)} | ${requestText(step.requests)} | ${round(step.providerCpuS, 2)} s | ${step.engineCpuS === undefined ? "–" : `${round(step.engineCpuS, 2)} s`} | ${step.allCpuS === undefined ? "–" : `${round(step.allCpuS, 2)} s`} | ${round(step.providerPeakMiB, 0)} MiB | ${note.replace(/\|/g, "\\|").slice(0, 160)} |`,
    );
  }
  const sec = run.secrets;
  const crash = run.crash ? `killed (SIGKILL) once half the objects existed: ${run.crash.created} on the server, ${run.crash.inState} in state${run.crash.pending ? `, ${run.crash.pending} pending operations` : ""}` : "not run";
  lines.push(
    "",
    `State after the first apply/up: ${run.stateBytes.toLocaleString("en-US")} bytes. After destroy: ${run.stateObjectsAfterDestroy} objects in state, ${run.serverObjectsAfterDestroy} on the server. ` +
      `Password in state ${sec.passwordInState}×, in output ${sec.passwordInOutput}×; API key in state ${sec.apiKeyInState}×, in output ${sec.apiKeyInOutput}×. Apply/up ${crash}.`,
    "",
  );
  return lines;
}

/** The whole report of a `node bench/dist/run.js T` run. */
export function tofuMarkdown(result: TofuResult, meta: { startedAt: string; durationS: number; system: SystemInfo; load: { start: number[]; end: number[] } }, command: string): string {
  const figures = tofuFigures(result);
  const mark: Record<Figure["status"], string> = { pass: "✅", miss: "❌", info: "", retired: "retired" };
  return [
    "# pulumi-analytics benchmarks: against OpenTofu with the generic REST provider (scenario T)",
    "",
    `Produced by ${command} on ${meta.startedAt} in ${round(meta.durationS / 60, 1)} min. Raw data: [tofu.json](tofu.json). OpenTofu ${result.versions.opentofu} with terraform-provider-restapi ${result.versions.restapi} (bench/fixtures/tofu/main.tf)${result.versions.tfbridge ? `, the same provider bridged into Pulumi by pulumi-terraform-bridge ${result.versions.tfbridge} (bench/fixtures/restapi-yaml)` : ""}, Pulumi CLI ${meta.system.pulumiCli}; load average ${meta.load.start.map((v) => round(v, 1)).join(" ")} at start, ${meta.load.end.map((v) => round(v, 1)).join(" ")} at end. Each side ran once per N against a fresh reference server; each Pulumi side's row names its CLI and PULUMI_HOME (fresh: a new one for each side, as a clean CI runner; kept: one for every side and command of the run, the plugin installed in it as a versioned plugin, as a runner that keeps ~/.pulumi); see docs/compared-with-rest-provider.md for what the figures mean.`,
    "",
    "| Figure | Value | Target | |",
    "|---|---|---|---|",
    ...figures.map((f) => `| ${f.name} | ${f.value} | ${f.target} | ${mark[f.status]} |`),
    "",
    ...switchTable(result.switches ?? []),
    "## Each side, each command",
    "",
    "Creates: organizations and data sources the server gained during the command. Said: the command's own summary (`+` create, `~` update, `-` delete, `±` replace). Provider CPU: user + system seconds of the provider processes (restapi, our plugin, or the dynamic provider), sampled from /proc/<pid>/stat every 100 ms and summed; All CPU: the same for every process of the command (OpenTofu or the Pulumi CLI, language host, program, providers).",
    "",
    ...result.runs.flatMap(sideTable),
  ].join("\n");
}

/** Turns the measurements into figures with targets, and writes latest.json and latest.md. */
import * as fs from "node:fs";
import * as path from "node:path";
import { renderCharts, type Chart } from "./charts";
import type { ClientComparison, ClientMode } from "./client";
import type { EngineResult, Footprint, Variant } from "./engine";
import type { HttpResult, LoadRun, MemoryResult } from "./http";
import type { NativeResult } from "./native";
import type { PersistenceResult } from "./persistence";
import type { ScaleResult } from "./scale";
import { median, medianInterval, pairedRatio, round } from "./stats";
import type { StartupResult, StartupSubject } from "./startup";
import type { SystemInfo } from "./system";
import { STATUS_MARK, type Figure } from "./figure";
import { singleFileFigures, type SingleFileResult } from "./single-file";
import { tofuFigures } from "./tofu/tofu-report";
import type { TofuResult } from "./tofu/tofu";

export type { Figure } from "./figure";

/** Everything one `npm run bench` produced. */
export interface BenchReport {
  /** ISO time the run started. */
  startedAt: string;
  /** Wall time of the whole run, s. */
  durationS: number;
  /** Machine and versions. */
  system: SystemInfo;
  /** os.loadavg() at start and end (another engineer's tests may share the machine). */
  load: { start: number[]; end: number[] };
  /** The figures, in report order. */
  figures: Figure[];
  /** Exact commands. */
  commands: Record<string, string>;
  /** Raw measurements behind the figures. */
  raw: { engine: EngineResult; http: HttpResult; client: ClientComparison[]; memory: MemoryResult; startup?: StartupResult; persistence?: PersistenceResult; native?: NativeResult; scale?: ScaleResult | undefined; tofu?: TofuResult; singleFile?: SingleFileResult };
}

const ms = (v: number): string => `${round(v, 3)} ms`;
const wholeMs = (v: number): string => `${round(v, 0)} ms`;
const s = (v: number): string => `${round(v / 1000, 2)} s`;
const ratio = (v: number): string => `${round(v, 3)}×`;
const check = (ok: boolean): "pass" | "miss" => (ok ? "pass" : "miss");

/** Scenario E's figures: client against raw undici, each concurrency. */
export function clientFigures(client: ClientComparison[]): Figure[] {
  const figures: Figure[] = [];
  for (const c of client) {
    const stat = (mode: ClientMode, key: "mean" | "p50" | "p99"): number => median(c.runs[mode].map((x) => x[key]));
    const label = c.concurrency === 1 ? "sequential" : `${c.concurrency}-concurrent`;
    const paired = (key: "mean" | "p50"): number => pairedRatio(c.runs.client.map((x) => x[key]), c.runs.raw.map((x) => x[key]));
    const r = paired("mean");
    figures.push({ scenario: "E", name: `create latency (mean), ${label}: client ${ms(stat("client", "mean"))} / raw undici ${ms(stat("raw", "mean"))} (medians)`, value: ratio(r), target: "≤ 1.10×", status: check(r <= 1.1) });
    const r50 = paired("p50");
    figures.push({
      scenario: "E",
      name: `create latency p50, ${label}: client ${ms(stat("client", "p50"))} / raw undici ${ms(stat("raw", "p50"))} (p99 ${ms(stat("client", "p99"))} / ${ms(stat("raw", "p99"))})`,
      value: ratio(r50),
      target: "–",
      status: "info",
    });
  }
  return figures;
}

/** Computes every figure of the report from the raw measurements. */
export function figuresOf({ engine, http, client, memory, startup, persistence, native, scale, tofu, singleFile }: BenchReport["raw"]): Figure[] {
  const figures: Figure[] = [];
  for (const run of engine.runs) {
    const n = run.plan.count;
    const up = { ours: median(run.upMs.ours), floor: median(run.upMs.floor) };
    const r = pairedRatio(run.upMs.ours, run.upMs.floor);
    const mode = run.plan.skipCheckpoints ? ", PULUMI_SKIP_CHECKPOINTS" : "";
    figures.push({
      scenario: "A",
      name: `pulumi up, N=${n} (${run.plan.reps} reps${mode}): ours ${s(up.ours)} / floor ${s(up.floor)} (medians)`,
      value: ratio(r),
      target: n >= 100 ? "≤ 1.10×" : "–",
      status: n >= 100 ? check(r <= 1.1) : "info",
    });
  }
  for (const run of engine.runs) {
    const n = run.plan.count;
    const pv = { ours: median(run.previewMs.ours), floor: median(run.previewMs.floor) };
    const r = pairedRatio(run.previewMs.ours, run.previewMs.floor);
    figures.push({ scenario: "B", name: `no-change pulumi preview, N=${n}: ours ${s(pv.ours)} / floor ${s(pv.floor)} (medians)`, value: ratio(r), target: "≤ 1.05×", status: check(r <= 1.05) });
    // Five repetitions bound the median only at 93.75%: the extremes. preview.md holds a run of 15 pairs.
    const spread = medianInterval(run.previewMs.ours.map((x, i) => x / run.previewMs.floor[i]!), 0.9);
    if (spread) figures.push({ scenario: "B", name: `the same: ${round(spread.coverage * 100, 1)}% interval of the median per-repetition ratio`, value: `${ratio(spread.low)}–${ratio(spread.high)}`, target: "–", status: "info" });
    const requests = Math.max(...run.previewRequests);
    figures.push({ scenario: "B", name: `API requests during preview, N=${n} (max over ${run.previewRequests.length} previews)`, value: String(requests), target: "0", status: check(requests === 0) });
  }
  for (const fp of engine.footprints) {
    const r = fp.ours.bytesPerResource / fp.floor.bytesPerResource;
    figures.push({
      scenario: "C",
      name: `stack export bytes per resource, N=${fp.count}: ours ${fp.ours.bytesPerResource} B / floor ${fp.floor.bytesPerResource} B`,
      value: ratio(r),
      target: "≤ 1.5×",
      status: check(r <= 1.5),
    });
    const rd = fp.ours.dataSourceBytes / fp.floor.dataSourceBytes;
    figures.push({ scenario: "C", name: `bytes per DataSource entry, N=${fp.count}: ours ${fp.ours.dataSourceBytes} B / floor ${fp.floor.dataSourceBytes} B`, value: ratio(rd), target: "≤ 1.5×", status: check(rd <= 1.5) });
  }
  const last = engine.footprints.at(-1);
  if (last) {
    for (const [type, bytes] of Object.entries(last.ours.providerBytes)) {
      const floorBytes = Object.entries(last.floor.providerBytes).find(([t]) => t.split(":").pop() === type.split(":").pop())?.[1];
      figures.push({ scenario: "C", name: `\`__provider\` of ${type.split(":").pop()} (floor: ${floorBytes ?? "?"} B)`, value: `${bytes} B`, target: "≤ 2048 B", status: check(bytes <= 2048) });
    }
    const distinct = (fp: Footprint): number => Math.max(...Object.values(fp.distinctProviders));
    const maxDistinct = Math.max(...engine.footprints.map((fp) => distinct(fp.ours)));
    figures.push({ scenario: "C", name: "distinct `__provider` texts per type in the export (every N)", value: String(maxDistinct), target: "1", status: check(maxDistinct === 1) });
    const serializations = engine.runs.flatMap((run) => run.serializations.ours);
    const maxSer = Math.max(...serializations);
    figures.push({
      scenario: "C",
      name: `closure serializations per \`pulumi up\` (2 types; ${serializations.length} runs, N=10…${engine.runs.at(-1)?.plan.count})`,
      value: `${Math.min(...serializations)}–${maxSer}`,
      target: "2 (1 per type)",
      status: check(maxSer === 2 && Math.min(...serializations) === 2),
    });
  }
  figures.push(...loadFigures(http));
  if (startup) figures.push(...startupFigures(startup));
  if (persistence) figures.push(...persistenceFigures(persistence));
  if (native) figures.push(...nativeFigures(native));
  if (scale) figures.push(...scaleFigures(scale));
  if (tofu) figures.push(...tofuFigures(tofu));
  if (singleFile) figures.push(...singleFileFigures(singleFile));
  figures.push(...clientFigures(client));
  figures.push({
    scenario: "M",
    name: `reference server RSS holding ${memory.dataSources.toLocaleString("en-US")} data sources (after GC; idle ${round(memory.idleRssMiB, 0)} MiB, heap ${round(memory.heapUsedMiB, 0)} MiB)`,
    value: `${round(memory.rssMiB, 0)} MiB`,
    target: "< 300 MB",
    status: check(memory.rssMiB * 1.048576 < 300),
  });
  for (const run of engine.runs) {
    for (const variant of ["ours", "floor"] as Variant[]) {
      figures.push({ scenario: "M", name: `dynamic provider peak RSS during pulumi up, N=${run.plan.count}, ${variant}`, value: `${round(Math.max(...run.providerPeakMiB[variant]), 0)} MiB`, target: "–", status: "info" });
    }
  }
  return figures;
}

/** Scenario N: the native provider plugin against the dynamic floor, checkpoints on. */
export function nativeFigures(native: NativeResult): Figure[] {
  const figures: Figure[] = [];
  for (const run of native.runs) {
    const n = run.plan.count;
    const how = `N=${n} (${run.plan.reps} reps${run.plan.skipCheckpoints ? ", PULUMI_SKIP_CHECKPOINTS" : ", checkpoints on"})`;
    const up = pairedRatio(run.upMs.native, run.upMs.floor);
    figures.push({ scenario: "N", name: `pulumi up, ${how}: native ${s(median(run.upMs.native))} / dynamic floor ${s(median(run.upMs.floor))} (medians)`, value: ratio(up), target: "≤ 0.90×", status: check(up <= 0.9) });
    const pv = pairedRatio(run.previewMs.native, run.previewMs.floor);
    figures.push({ scenario: "N", name: `no-change pulumi preview, N=${n}: native ${s(median(run.previewMs.native))} / dynamic floor ${s(median(run.previewMs.floor))} (medians)`, value: ratio(pv), target: "≤ 0.90×", status: check(pv <= 0.9) });
    const rss = pairedRatio(run.providerPeakMiB.native, run.providerPeakMiB.floor);
    figures.push({
      scenario: "N",
      name: `provider peak RSS during pulumi up, N=${n}: plugin ${round(median(run.providerPeakMiB.native), 0)} MiB / floor's dynamic provider ${round(median(run.providerPeakMiB.floor), 0)} MiB (medians)`,
      value: ratio(rss),
      target: "≤ 0.60×",
      status: check(rss <= 0.6),
    });
    const ups = run.upRequests;
    figures.push({ scenario: "N", name: `API requests per native pulumi up, N=${n} (N + 1 creates expected; ${ups.length} ups)`, value: [...new Set(ups)].join(", "), target: String(n + 1), status: check(ups.every((x) => x === n + 1)) });
    const previews = Math.max(...run.previewRequests);
    figures.push({ scenario: "N", name: `API requests during native preview, N=${n} (max over ${run.previewRequests.length} previews)`, value: String(previews), target: "0", status: check(previews === 0) });
  }
  for (const fp of native.footprints) {
    const r = fp.native.dataSourceBytes / fp.floor.dataSourceBytes;
    figures.push({ scenario: "N", name: `state bytes per DataSource entry (stack export), N=${fp.count}: native ${fp.native.dataSourceBytes} B / floor ${fp.floor.dataSourceBytes} B`, value: ratio(r), target: "≤ 0.50×", status: check(r <= 0.5) });
    const perDs = (f: Footprint): number => Math.round(f.exportBytes / fp.count);
    figures.push({
      scenario: "N",
      name: `whole stack export per DataSource, N=${fp.count}: native ${perDs(fp.native)} B / floor ${perDs(fp.floor)} B (${fp.native.resources} and ${fp.floor.resources} resources)`,
      value: ratio(fp.native.exportBytes / fp.floor.exportBytes),
      target: "–",
      status: "info",
    });
  }
  return figures;
}

/** Scenario N's per-repetition data, one line per N. */
export function nativeRepetitions(native: NativeResult): string[] {
  const secs = (list: number[]): string => list.map((v) => round(v / 1000, 2)).join(", ");
  const mib = (list: number[]): string => list.map((v) => round(v, 0)).join(", ");
  return native.runs.map(
    (run) =>
      `- N (native) N=${run.plan.count}: up native [${secs(run.upMs.native)}] s, floor [${secs(run.upMs.floor)}] s; preview native [${secs(run.previewMs.native)}] s, floor [${secs(run.previewMs.floor)}] s; provider peak native [${mib(run.providerPeakMiB.native)}] MiB, floor [${mib(run.providerPeakMiB.floor)}] MiB; API requests per up [${run.upRequests.join(", ")}], per preview [${run.previewRequests.join(", ")}]`,
  );
}

/** The report of a scenario-N-only run (`node bench/dist/run.js N`): figures, per-repetition data, commands. */
export function nativeMarkdown(native: NativeResult, meta: { startedAt: string; durationS: number; system: SystemInfo; load: BenchReport["load"] }): string {
  const { system } = meta;
  return [
    "# pulumi-analytics benchmarks: the native provider plugin against the dynamic floor (scenario N)",
    "",
    `Produced by \`node bench/dist/run.js N\` on ${meta.startedAt} in ${round(meta.durationS / 60, 1)} min (scenario N alone; the other scenarios are in [latest.md](latest.md)). Raw data: [native.json](native.json).`,
    "",
    `${system.cpuModel} × ${system.cpus}, ${system.totalMemMiB} MiB, ${system.os}, Node.js ${system.node}, Pulumi CLI / @pulumi/pulumi ${system.pulumiCli} / ${system.pulumiSdk}; load average start ${meta.load.start.join(" / ")}, end ${meta.load.end.join(" / ")}.`,
    "",
    table(["", "Figure", "Value", "Target", ""], nativeFigures(native).map((f) => [f.scenario, f.name, f.value, f.target, STATUS_MARK[f.status]])),
    "",
    "## Per-repetition data",
    "",
    ...nativeRepetitions(native),
    "",
    "## Commands",
    "",
    "```sh",
    "# scenario N alone",
    "node bench/dist/run.js N",
    ...Object.entries(native.commands).map(([k, v]) => `# ${k} (native and floor, each N, each repetition)\n${v}`),
    "```",
    "",
  ].join("\n");
}

/** Scenario L: one large stack against the floor on each backend, and stacks updated at once on the S3 backend. */
export function scaleFigures(scale: ScaleResult): Figure[] {
  const figures: Figure[] = [];
  for (const [backend, comparison] of [["file://", scale.file], ["s3:// (versitygw)", scale.s3]] as const) {
    for (const run of comparison.runs) {
      const up = pairedRatio(run.upMs.ours, run.upMs.floor);
      figures.push({
        scenario: "L",
        name: `pulumi up on ${backend}, N=${run.plan.count} (${run.plan.reps} reps, checkpoints on): ours ${s(median(run.upMs.ours))} / floor ${s(median(run.upMs.floor))} (medians)`,
        value: ratio(up),
        target: "≤ 1.05×",
        status: check(up <= 1.05),
      });
      // Runs recorded before the native provider joined part 1 have no native times.
      if (run.upMs.native?.length) {
        const native = pairedRatio(run.upMs.native, run.upMs.floor);
        figures.push({
          scenario: "L",
          name: `pulumi up on ${backend}, N=${run.plan.count}: the native provider ${s(median(run.upMs.native))} / floor ${s(median(run.upMs.floor))} (medians)`,
          value: ratio(native),
          target: "≤ 1.05×",
          status: check(native <= 1.05),
        });
      }
      const ups = run.upRequests;
      figures.push({ scenario: "L", name: `API requests per pulumi up on ${backend}, N=${run.plan.count} (N + 1 creates expected; ${ups.length} ups)`, value: [...new Set(ups)].join(", "), target: String(run.plan.count + 1), status: check(ups.every((x) => x === run.plan.count + 1)) });
    }
    for (const fp of comparison.footprints) {
      figures.push({ scenario: "L", name: `stack export on ${backend}, N=${fp.count}: ours ${round(fp.ours.exportBytes / 1048576, 1)} MiB / floor ${round(fp.floor.exportBytes / 1048576, 1)} MiB (each checkpoint rewrites it)`, value: ratio(fp.ours.exportBytes / fp.floor.exportBytes), target: "–", status: "info" });
      if (fp.native) figures.push({ scenario: "L", name: `stack export on ${backend}, N=${fp.count}: the native provider ${round(fp.native.exportBytes / 1048576, 1)} MiB / floor ${round(fp.floor.exportBytes / 1048576, 1)} MiB`, value: ratio(fp.native.exportBytes / fp.floor.exportBytes), target: "–", status: "info" });
    }
  }
  const p = scale.parallel;
  const expected = p.stacks * (p.perStack + 1);
  const label = `${p.stacks} stacks × ${p.perStack} at once on s3://, one reference server`;
  figures.push({ scenario: "L", name: `${label}: pulumi up runs that succeeded`, value: `${p.succeeded}/${p.stacks}`, target: `${p.stacks}/${p.stacks}`, status: check(p.succeeded === p.stacks) });
  figures.push({
    scenario: "L",
    name: `${label}: objects the server created (${p.serverOrganizations} organizations + ${p.serverDataSources} data sources; ${p.createsAnswered} creates answered 201; ${p.stateResources} in the states)`,
    value: String(p.serverOrganizations + p.serverDataSources),
    target: `${expected} (${p.stacks} × ${p.perStack + 1})`,
    status: check(p.serverOrganizations + p.serverDataSources === expected && p.createsAnswered === expected && p.stateResources === expected),
  });
  figures.push({ scenario: "L", name: `${label}: duplicates (server objects in no state, or ids in two entries; organizations without exactly ${p.perStack} data sources: ${p.unevenOrganizations})`, value: String(p.duplicates), target: "0", status: check(p.duplicates === 0 && p.unevenOrganizations === 0) });
  const single = scale.s3.runs.find((run) => run.plan.count === p.stacks * p.perStack) ?? scale.s3.runs.at(-1);
  const singleText = single ? `one stack of ${single.plan.count} on the same backend ${s(median(single.upMs.ours))} (median)` : "no single stack measured";
  figures.push({ scenario: "L", name: `${label}: wall time of the ${p.stacks} (slowest stack ${s(Math.max(...p.stackMs))}) beside ${singleText}`, value: s(p.wallMs), target: "–", status: "info" });
  return figures;
}

/** Scenario L's per-repetition data. */
export function scaleRepetitions(scale: ScaleResult): string[] {
  const secs = (list: number[]): string => list.map((v) => round(v / 1000, 2)).join(", ");
  const mib = (list: number[]): string => list.map((v) => round(v, 0)).join(", ");
  const lines: string[] = [];
  for (const [backend, comparison] of [["file://", scale.file], ["s3://", scale.s3]] as const) {
    for (const run of comparison.runs) {
      const native = run.upMs.native?.length ? `, native [${secs(run.upMs.native)}] s` : "";
      lines.push(`- L ${backend} N=${run.plan.count}: up ours [${secs(run.upMs.ours)}] s${native}, floor [${secs(run.upMs.floor)}] s; provider peak ours [${mib(run.providerPeakMiB.ours)}] MiB, floor [${mib(run.providerPeakMiB.floor)}] MiB; API requests per up (ours) [${run.upRequests.join(", ")}]`);
    }
  }
  const p = scale.parallel;
  lines.push(`- L ${p.stacks} × ${p.perStack} at once on s3://: wall ${secs([p.wallMs])} s; each stack [${secs(p.stackMs)}] s${p.failures.length ? `; failures: ${p.failures.map((f) => f.split("\n")[0]).join(" | ")}` : ""}`);
  return lines;
}

/** The report of a scenario-L-only run (`node bench/dist/run.js L`): figures, per-repetition data, commands. */
export function scaleMarkdown(scale: ScaleResult, meta: { startedAt: string; durationS: number; system: SystemInfo; load: BenchReport["load"] }, command: string): string {
  const { system } = meta;
  return [
    "# pulumi-analytics benchmarks: scale on one shared backend (scenario L)",
    "",
    `Produced by \`${command}\` on ${meta.startedAt} in ${round(meta.durationS / 60, 1)} min (scenario L alone; the other scenarios are in [latest.md](latest.md)). Raw data: [scale.json](scale.json). versitygw ${scale.versitygw} serves the S3 backend.`,
    "",
    `${system.cpuModel} × ${system.cpus}, ${system.totalMemMiB} MiB, ${system.os}, Node.js ${system.node}, Pulumi CLI / @pulumi/pulumi ${system.pulumiCli} / ${system.pulumiSdk}; load average start ${meta.load.start.join(" / ")}, end ${meta.load.end.join(" / ")}.`,
    "",
    table(["", "Figure", "Value", "Target", ""], scaleFigures(scale).map((f) => [f.scenario, f.name, f.value, f.target, STATUS_MARK[f.status]])),
    "",
    "## Per-repetition data",
    "",
    ...scaleRepetitions(scale),
    "",
    "## Commands",
    "",
    "```sh",
    "# scenario L alone",
    command,
    ...Object.entries(scale.commands).map(([k, v]) => `# ${k}\n${v}`),
    "```",
    "",
  ].join("\n");
}

/** Scenario D: throughput against Prism (targeted) and the bare server (the limit, shown), latency, CPU, calibration. */
function loadFigures(http: HttpResult): Figure[] {
  const figures: Figure[] = [];
  const med = (runs: LoadRun[], key: keyof LoadRun): number => median(runs.map((x) => x[key]));
  for (const c of http.comparisons) {
    const ref = med(c.reference, "rps");
    if (c.prism) {
      const r = pairedRatio(c.reference.map((x) => x.rps), c.prism.map((x) => x.rps));
      figures.push({ scenario: "D", name: `create throughput, ${c.connections} conn: reference ${round(ref, 0)} req/s / Prism ${round(med(c.prism, "rps"), 0)} req/s (medians)`, value: ratio(r), target: "≥ 2.00×", status: check(r >= 2) });
    }
    const r = pairedRatio(c.reference.map((x) => x.rps), c.bare.map((x) => x.rps));
    figures.push({ scenario: "D", name: `create throughput, ${c.connections} conn: reference ${round(ref, 0)} req/s / bare limit ${round(med(c.bare, "rps"), 0)} req/s (medians)`, value: ratio(r), target: "–", status: "info" });
    const p99 = med(c.reference, "p99");
    const others = [`bare p99 ${ms(med(c.bare, "p99"))}`, ...(c.prism ? [`Prism p99 ${ms(med(c.prism, "p99"))}`] : [])].join(", ");
    figures.push({
      scenario: "D",
      name: `reference latency, ${c.connections} conn: p50 ${ms(med(c.reference, "p50"))}, p99 (${others})`,
      value: ms(p99),
      target: c.connections === 8 ? "p99 < 5 ms" : "–",
      status: c.connections === 8 ? check(p99 < 5) : "info",
    });
    const cpuRef = med(c.reference, "cpuMicrosPerRequest");
    const cpuBare = med(c.bare, "cpuMicrosPerRequest");
    const cpuPrism = c.prism ? `, Prism ${round(med(c.prism, "cpuMicrosPerRequest"), 0)} µs` : "";
    figures.push({ scenario: "D", name: `server CPU per create, ${c.connections} conn: reference ${round(cpuRef, 0)} µs / bare ${round(cpuBare, 0)} µs${cpuPrism}`, value: ratio(cpuRef / cpuBare), target: "–", status: "info" });
    const failures = [...c.reference, ...c.bare, ...(c.prism ?? [])].reduce((sum, x) => sum + x.failures, 0);
    if (failures) figures.push({ scenario: "D", name: `failed requests (errors, timeouts, non-2xx), ${c.connections} conn`, value: String(failures), target: "0", status: "miss" });
  }
  for (const c of http.calibration ?? []) {
    const r = pairedRatio(c.rps, c.bareRps);
    figures.push({
      scenario: "D",
      name: `calibration, 8 conn: bare server + ${c.spinMicros} µs busy-wait per request ${round(median(c.rps), 0)} req/s / plain bare ${round(median(c.bareRps), 0)} req/s`,
      value: ratio(r),
      target: "–",
      status: "info",
    });
  }
  return figures;
}

/** Scenario P: the create rate with a state file against memory, empty and full, and start-up on a big state file. */
export function persistenceFigures(p: PersistenceResult): Figure[] {
  const figures: Figure[] = [];
  const counts = [...new Set(p.runs.map((r) => r.heldAtStart))].sort((a, b) => a - b);
  for (const held of counts) {
    const rates = (mode: "memory" | "state"): number[] => p.runs.filter((r) => r.mode === mode && r.heldAtStart === held).map((r) => r.rps);
    const r = pairedRatio(rates("state"), rates("memory"));
    const full = held > 0;
    figures.push({
      scenario: "P",
      name: `create rate, ${p.connections} conn, ${held.toLocaleString("en-US")} data sources held: --state ${round(median(rates("state")), 0)} / in memory ${round(median(rates("memory")), 0)} creates/s (medians)`,
      value: ratio(r),
      // Retired: the rate with --state follows the disk's fdatasync time (the floor figures below), not the package.
      target: full ? "≥ 0.50× (retired)" : "–",
      status: full ? "retired" : "info",
    });
    if (p.syncFloor?.length === rates("state").length) figures.push(...syncFloorFigures(p, held, rates("state"), rates("memory")));
    const p99 = median(p.runs.filter((x) => x.mode === "state" && x.heldAtStart === held).map((x) => x.p99));
    figures.push({ scenario: "P", name: `create latency p99 with --state, ${held.toLocaleString("en-US")} held`, value: ms(p99), target: "–", status: "info" });
  }
  const failures = p.runs.reduce((sum, x) => sum + x.failures, 0);
  if (failures) figures.push({ scenario: "P", name: "failed requests (errors, timeouts, non-2xx)", value: String(failures), target: "0", status: "miss" });
  const start = median(p.startup.firstAnswerMs);
  figures.push({
    scenario: "P",
    name: `start to first answer with --state holding ${p.startup.dataSources.toLocaleString("en-US")} data sources (${round(p.startup.stateBytes / 2 ** 20, 0)} MiB, ${p.startup.firstAnswerMs.length} starts, median)`,
    value: wholeMs(start),
    target: "< 2000 ms",
    status: check(start < 2000),
  });
  return figures;
}

/**
 * Scenario P beside the disk's floor, `held` data sources held: creates per bare fdatasync (each
 * repetition's rate over its own floor loop), and the ratio to memory that commits carrying every
 * connection's create, each as fast as the floor loop, would reach.
 */
function syncFloorFigures(p: PersistenceResult, held: number, state: number[], memory: number[]): Figure[] {
  const floor = p.syncFloor!;
  const heldText = `${held.toLocaleString("en-US")} held`;
  return [
    { scenario: "P", name: `--state creates per bare fdatasync, ${heldText} (bare loop: ${floor.map((x) => round(x, 0)).join(", ")} appends + fdatasyncs/s, per repetition)`, value: String(round(pairedRatio(state, floor), 2)), target: "–", status: "info" },
    { scenario: "P", name: `ceiling of --state / in memory with every commit carrying all ${p.connections} connections' creates at the floor's pace, ${heldText}`, value: ratio(median(floor.map((f, i) => (p.connections * f) / memory[i]!))), target: "–", status: "info" },
  ];
}

/** Scenario S: start-up of the bin (targeted), through npx, of Prism, and of a bare node:http server. */
function startupFigures(startup: StartupResult): Figure[] {
  const med = (who: StartupSubject, key: "firstAnswerMs" | "firstCreateMs"): number => median(startup.samples[who].map((x) => x[key]));
  const n = `${startup.reps} starts each, medians`;
  const ours = med("ours", "firstAnswerMs");
  return [
    {
      scenario: "S",
      name: `start to first answer, \`node dist/reference-server/bin.js\` (${n}; bare node:http server ${wholeMs(med("bare", "firstAnswerMs"))})`,
      value: wholeMs(ours),
      target: "< 250 ms",
      status: check(ours < 250),
    },
    { scenario: "S", name: `start to first successful create (organization, then data source), same bin (${n})`, value: wholeMs(med("ours", "firstCreateMs")), target: "–", status: "info" },
    {
      scenario: "S",
      name: `start to first answer through \`npx analytics-reference-server\` (npx adds ${wholeMs(med("npx", "firstAnswerMs") - ours)}; first create ${wholeMs(med("npx", "firstCreateMs"))})`,
      value: wholeMs(med("npx", "firstAnswerMs")),
      target: "–",
      status: "info",
    },
    { scenario: "S", name: `Prism start to first answer (first create ${wholeMs(med("prism", "firstCreateMs"))}; ${n})`, value: wholeMs(med("prism", "firstAnswerMs")), target: "–", status: "info" },
  ];
}

function table(headers: string[], rows: Array<Array<string | number>>): string {
  return [`| ${headers.join(" | ")} |`, `|${headers.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}

/** The markdown report, embedding `charts` (files beside it). */
export function markdown(report: BenchReport, charts: Chart[] = []): string {
  const { system, raw } = report;
  const lines: string[] = [];
  lines.push("# pulumi-analytics benchmarks", "");
  lines.push(`Produced by \`npm run bench\` on ${report.startedAt} in ${round(report.durationS / 60, 1)} min. Raw data: [latest.json](latest.json).`, "");
  lines.push("## Machine and versions", "");
  lines.push(
    table(
      ["", ""],
      [
        ["CPU", `${system.cpuModel} × ${system.cpus}`],
        ["Memory", `${system.totalMemMiB} MiB`],
        ["OS", system.os],
        ["Node.js", system.node],
        ["Pulumi CLI / @pulumi/pulumi", `${system.pulumiCli} / ${system.pulumiSdk}`],
        ["undici", `${system.undici} (7.x: free of the keep-alive latency regression of some 8.x releases; the ^7 range keeps 8.x out, package-lock.json pins it)`],
        ["autocannon", system.autocannon],
        ["Prism (peer, bench only)", system.prism ?? "–"],
        ["Vega / Vega-Lite (charts, bench only)", `${system.vega ?? "–"} / ${system.vegaLite ?? "–"}`],
        ["Load average (1/5/15 min)", `start ${report.load.start.join(" / ")}, end ${report.load.end.join(" / ")}`],
      ],
    ),
    "",
  );
  lines.push("## Figures and targets", "");
  lines.push(table(["", "Figure", "Value", "Target", ""], report.figures.map((f) => [f.scenario, f.name, f.value, f.target, STATUS_MARK[f.status]])), "");
  if (charts.length) {
    lines.push("## Charts", "");
    for (const chart of charts) lines.push(`![${chart.title}](${chart.file})`, "");
  }
  lines.push("## Per-repetition data", "");
  for (const run of raw.engine.runs) {
    const secs = (list: number[]): string => list.map((v) => round(v / 1000, 2)).join(", ");
    lines.push(
      `- N=${run.plan.count}: up ours [${secs(run.upMs.ours)}] s, floor [${secs(run.upMs.floor)}] s; preview ours [${secs(run.previewMs.ours)}] s, floor [${secs(run.previewMs.floor)}] s; API requests per up [${run.upRequests.join(", ")}], per preview [${run.previewRequests.join(", ")}]`,
    );
  }
  if (raw.native) lines.push(...nativeRepetitions(raw.native));
  if (raw.scale) lines.push(...scaleRepetitions(raw.scale));
  for (const c of raw.http.comparisons) {
    const rps = (runs: LoadRun[]): string => runs.map((x) => round(x.rps, 0)).join(", ");
    lines.push(`- D ${c.connections} conn: reference [${rps(c.reference)}] req/s, bare [${rps(c.bare)}] req/s${c.prism ? `, Prism [${rps(c.prism)}] req/s` : ""}`);
  }
  for (const c of raw.client) {
    const p = (mode: ClientMode): string => c.runs[mode].map((x) => round(x.p50, 3)).join(", ");
    const m = (mode: ClientMode): string => c.runs[mode].map((x) => round(x.mean, 3)).join(", ");
    lines.push(`- E concurrency ${c.concurrency} (${c.requests} creates per mode per repetition) p50 ms: client [${p("client")}], raw [${p("raw")}]; mean ms: client [${m("client")}], raw [${m("raw")}]`);
  }
  for (const [who, samples] of Object.entries(raw.startup?.samples ?? {})) {
    const list = (key: "firstAnswerMs" | "firstCreateMs"): string => samples.map((x) => round(x[key], 0)).join(", ");
    lines.push(`- S ${who}: first answer [${list("firstAnswerMs")}] ms, first create [${list("firstCreateMs")}] ms`);
  }
  lines.push("");
  lines.push("## Commands", "");
  lines.push("```sh", ...Object.entries(report.commands).map(([k, v]) => `# ${k}\n${v}`), "```", "");
  return `${lines.join("\n")}\n`;
}

/** Writes `latest.json`, the charts and `latest.md` (plus any extra markdown) into `dir`. */
export async function writeReport(dir: string, report: BenchReport, notes: string): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "latest.json"), `${JSON.stringify(report, null, 2)}\n`);
  const charts = await renderCharts(dir, report.raw);
  fs.writeFileSync(path.join(dir, "latest.md"), markdown(report, charts) + notes);
}

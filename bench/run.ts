#!/usr/bin/env node
/**
 * `npm run bench`: the full run, every scenario the table of bench/lib/scenarios.ts marks as in it
 * (A-E, S, memory, P, N, T, F; L with `--quick` or `--with-L`), written to bench/results/latest.json,
 * latest.md (with bench/analysis.md appended), tofu.md, single-file.md and the SVG charts beside them.
 * `npm run bench -- T F` (any names of that table; `--help` lists it) runs exactly those scenarios
 * alone, one after another, each into its own bench/results/<name>.md and .json as the table says
 * (E only prints its figures; P puts its measurements into latest.json in place of the last run's and
 * redraws latest.md). `--quick` is a smoke run (small N, one repetition) written to bench/tmp/results/
 * instead; `--render` recomputes the figures and charts from latest.json's raw data (or, with T,
 * tofu.md from tofu.json) without measuring anything. Sizes: `--plans=100x3,500x1` (N, L, T with
 * repetitions of 1, B with N x pairs), `--stacks=8x250` (L's stacks at once); scenario T also takes
 * `--sides=tofu,yaml`, `--engine=pinned|newest|both` (both by default, in the full run too),
 * `--checkpoints=skipped` (the Pulumi sides only with checkpoints skipped),
 * `--switches=300` (0: none) and `--merge` (its runs added to the tofu.json already there); scenario R
 * takes `--against=<node>` (by default the first other `node` on PATH). The bench's own tools (Prism,
 * Vega) are installed into bench/peers on first use.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { resolveNewestPulumiToolchain, resolvePulumiToolchain, type PulumiToolchain } from "@pulumi-analytics/toolchain";
import { runClientScenario } from "./lib/client";
import { containerFigures, containerMarkdown, runContainerScenario } from "./lib/container";
import { runEngineScenarios, type EnginePlan } from "./lib/engine";
import { runHttpScenario, runMemoryScenario } from "./lib/http";
import { runNativeScenario } from "./lib/native";
import { runSingleFileScenario, singleFileMarkdown, SINGLE_FILE_PLANS, type SingleFileResult } from "./lib/single-file";
import { PLUGIN_RUNTIME_PLANS, pluginRuntimeFigures, pluginRuntimeMarkdown, runPluginRuntimeScenario } from "./lib/plugin-runtime";
import { methodNotes } from "./lib/notes";
import { ensurePeers } from "./lib/peers";
import { persistencePlan, runPersistenceScenario } from "./lib/persistence";
import { previewFigures, previewMarkdown, runPreviewScenario } from "./lib/preview";
import { writeOpenApiDocument } from "./lib/prism";
import { clientFigures, figuresOf, nativeFigures, nativeMarkdown, persistenceFigures, scaleFigures, scaleMarkdown, writeReport, type BenchReport } from "./lib/report";
import { runScaleScenario, type ScalePlan } from "./lib/scale";
import { runStartupScenario } from "./lib/startup";
import { runTofuScenario, TOFU_SIDES, type SideRun, type TofuPlan, type TofuResult, type TofuSide } from "./lib/tofu/tofu";
import { writeSpeedTable } from "./lib/tofu/speed-doc";
import { tofuCliVersions, tofuFigures, tofuMarkdown } from "./lib/tofu/tofu-report";
import { loadAverage, systemInfo, type SystemInfo } from "./lib/system";
import { repoRoot } from "./lib/workspace";
import { parseBenchArgs, scenarioHelp, type AloneScenario, type BenchArgs } from "./lib/scenarios";

/** The command line, parsed; a bad one ends the run with a clear error before anything is measured. */
const args: BenchArgs = (() => {
  try {
    return parseBenchArgs(process.argv.slice(2), TOFU_SIDES);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  }
})();
const quick = args.quick;

/** Scenario E's sizes: each repetition is `requests` creates per mode in `blocksPerRep` ABBA blocks. */
const CLIENT_PLAN = { concurrencies: [1, 8], requests: quick ? 200 : 4000, reps: quick ? 1 : 9, blocksPerRep: quick ? 2 : 8, warmup: quick ? 200 : 3000 };

/** N=500 with per-step checkpoints takes ~160 s per `pulumi up` here (the file backend rewrites the whole state after each step); see the notes. */
const ENGINE_PLANS: EnginePlan[] = quick
  ? [{ count: 10, reps: 1, skipCheckpoints: false }]
  : [
      { count: 10, reps: 5, skipCheckpoints: false },
      { count: 100, reps: 5, skipCheckpoints: false },
      { count: 500, reps: 5, skipCheckpoints: true },
    ];

/**
 * Scenario N's sizes: the native plugin against the dynamic floor with checkpoints on (the
 * default), so an N=500 up of the floor takes minutes (see ENGINE_PLANS); hence fewer repetitions.
 */
const NATIVE_PLANS: EnginePlan[] = plansArg() ??
  (quick
    ? [{ count: 20, reps: 1, skipCheckpoints: false }]
    : [
        { count: 100, reps: 5, skipCheckpoints: false },
        { count: 500, reps: 2, skipCheckpoints: false },
      ]);

/**
 * Scenario L's sizes: one stack of 2,000 DataSources (checkpoints on, as users run) against the
 * floor on each backend, and 8 stacks of 250 at once, the same 2,000 in all. A checkpoint rewrites
 * the whole state, so an up of 2,000 takes tens of minutes here; hence one repetition.
 */
const SCALE_PLAN: ScalePlan = {
  engine: plansArg() ?? (quick ? [{ count: 200, reps: 1, skipCheckpoints: false }] : [{ count: 2000, reps: 1, skipCheckpoints: false }]),
  ...(args.stacks ?? (quick ? { stacks: 4, perStack: 50 } : { stacks: 8, perStack: 250 })),
};

/**
 * Scenario T's sizes: each side runs once per N (an apply/up of N=300 with checkpoints takes about
 * a minute here), so `--plans=` takes repetitions of 1 only.
 */
function tofuPlan(): TofuPlan {
  return {
  counts: (plansArg() ?? (quick ? [{ count: 10, reps: 1 }] : [{ count: 100, reps: 1 }, { count: 300, reps: 1 }])).map(({ count, reps }) => {
    if (reps !== 1) throw new Error(`--plans: scenario T runs each side once per N; write ${count}x1`);
    return count;
  }),
  ...(args.sides ? { sides: args.sides as TofuSide[] } : {}),
  // `--checkpoints=skipped`: each Pulumi side only with PULUMI_SKIP_CHECKPOINTS=true, where the targets are.
  onlySkipCheckpointRuns: args.skipCheckpointsOnly,
  switches: args.switches,
  };
}

/** `--plans=100x3,500x1`: scenario N's (or L's) sizes (N x repetitions) when the default ones do not fit the time at hand. */
function plansArg(): EnginePlan[] | undefined {
  return args.plans?.map(({ count, reps }) => ({ count, reps, skipCheckpoints: false }));
}

/** The hand-written analysis of misses (bench/analysis.md), appended to latest.md when present. */
function analysis(): string {
  const file = path.join(repoRoot, "bench", "analysis.md");
  return fs.existsSync(file) ? `\n${fs.readFileSync(file, "utf8")}` : "";
}

/** Progress lines on stdout, each prefixed with the seconds since `started` (ms). */
function progressLog(started: number): (line: string) => void {
  return (line) => void process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${line}\n`);
}

/** What a report heads with: when its run started, how long it took, the machine and its load. */
interface RunMeta {
  startedAt: string;
  durationS: number;
  system: SystemInfo;
  load: { start: number[]; end: number[] };
}

/** A scenario run alone: its progress log, its start, and `meta` to take at its end. */
function aloneRun(started: number): { log: (line: string) => void; startedAt: string; loadStart: number[]; meta(pulumiCli: string): RunMeta } {
  const startedAt = new Date().toISOString();
  const loadStart = loadAverage();
  const meta = (pulumiCli: string): RunMeta => ({ startedAt, durationS: (Date.now() - started) / 1000, system: systemInfo(repoRoot, pulumiCli), load: { start: loadStart, end: loadAverage() } });
  return { log: progressLog(started), startedAt, loadStart, meta };
}

/** Where a scenario run alone writes (bench/results, or bench/tmp/results with `--quick`), made if missing. */
function aloneResultsDir(): string {
  const dir = quick ? path.join(repoRoot, "bench", "tmp", "results") : path.join(repoRoot, "bench", "results");
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** The command line of a scenario run alone, as its report names it. */
const aloneCommand = (): string => `node bench/dist/run.js ${process.argv.slice(2).join(" ")}`;

/** Writes `<name>.json` (the run's meta and its raw result) and `<name>.md` into `dir`. */
function writeResult(dir: string, name: string, meta: object, raw: unknown, markdown: string): void {
  fs.writeFileSync(path.join(dir, `${name}.json`), `${JSON.stringify({ ...meta, raw }, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, `${name}.md`), markdown);
}

/**
 * Writes scenario T's tofu.md into `dir` and, for a full-size run (into bench/results), the speed
 * table of docs/compared-with-rest-provider.md from the same result.
 */
function writeTofuReport(dir: string, result: TofuResult, meta: Parameters<typeof tofuMarkdown>[1], command: string): void {
  fs.writeFileSync(path.join(dir, "tofu.md"), tofuMarkdown(result, meta, command));
  if (path.resolve(dir) === path.join(repoRoot, "bench", "results")) writeSpeedTable(path.join(repoRoot, "docs", "compared-with-rest-provider.md"), result, meta);
}

/** Writes tofu.json (the runs and how they were made), then tofu.md and the speed table from it (see {@link writeTofuReport}). */
function writeTofuResult(dir: string, result: TofuResult, meta: Parameters<typeof tofuMarkdown>[1] & { commands: string[] }): void {
  fs.writeFileSync(path.join(dir, "tofu.json"), `${JSON.stringify({ ...meta, raw: result }, null, 2)}\n`);
  writeTofuReport(dir, result, meta, meta.commands.map((c) => `\`${c}\``).join(", then "));
}

/** Writes scenario F's single-file.json (the result and how it was made) and single-file.md into `dir`. */
function writeSingleFileResult(dir: string, result: SingleFileResult, meta: RunMeta, command: string): void {
  writeResult(dir, "single-file", meta, result, singleFileMarkdown(result, meta, command));
}

/**
 * Scenario T on each CLI `--engine=` names, in order (both by default): OpenTofu's side and the
 * backend's switches with the first only, since they do not depend on the Pulumi CLI.
 */
async function measureTofu(log: (line: string) => void): Promise<TofuResult> {
  let tofu: TofuResult | undefined;
  for (const [i, engine] of args.engines.entries()) {
    const toolchain = engine === "newest" ? await resolveNewestPulumiToolchain({ log }) : await resolvePulumiToolchain({ log });
    log(`Pulumi ${toolchain.version} (${toolchain.source}) at ${toolchain.pulumi}, ${engine === "newest" ? "one PULUMI_HOME kept for the run" : "a fresh PULUMI_HOME per side"}`);
    const plan: TofuPlan = i === 0 ? { ...tofuPlan(), engine } : { ...tofuPlan(), engine, tofu: false, switches: 0 };
    const result = await runTofuScenario(toolchain, plan, log);
    tofu = tofu ? { ...tofu, runs: [...tofu.runs, ...result.runs] } : result;
  }
  if (!tofu) throw new Error("--engine named no engine");
  return tofu;
}

/**
 * `node bench/dist/run.js T`: scenario T alone, written to tofu.md and tofu.json. With `--merge`,
 * its runs replace those of the same side, N, checkpoint setting and engine in the tofu.json already
 * there and the rest are kept (so N=300 of a few sides can join an earlier N=100 of all).
 */
async function scenarioTAlone(started: number): Promise<void> {
  if (args.render) return renderTofu();
  const run = aloneRun(started);
  const log = run.log;
  const tofu = await measureTofu(log);
  const dir = aloneResultsDir();
  const command = aloneCommand();
  const meta = { ...run.meta(tofuCliVersions(tofu).join(" and ")), commands: [command] };
  const file = path.join(dir, "tofu.json");
  if (args.merge && fs.existsSync(file)) {
    const before = JSON.parse(fs.readFileSync(file, "utf8")) as typeof meta & { raw: TofuResult };
    const same = (a: SideRun, b: SideRun): boolean => a.side === b.side && a.count === b.count && a.checkpoints === b.checkpoints && (a.engine?.name ?? "pinned") === (b.engine?.name ?? "pinned");
    tofu.runs = [...before.raw.runs.filter((old) => !tofu.runs.some((run) => same(old, run))), ...tofu.runs].sort((a, b) => a.count - b.count || TOFU_SIDES.indexOf(a.side) - TOFU_SIDES.indexOf(b.side) || Number(b.checkpoints) - Number(a.checkpoints));
    if (!tofu.switches && before.raw.switches) tofu.switches = before.raw.switches;
    meta.commands = [...(before.commands ?? []), command];
    meta.durationS += before.durationS;
    meta.startedAt = before.startedAt;
    meta.load.start = before.load.start;
    // The merged runs may name a CLI this run did not use.
    meta.system.pulumiCli = tofuCliVersions(tofu).join(" and ");
  }
  writeTofuResult(dir, tofu, meta);
  log(`wrote ${path.relative(repoRoot, dir)}/tofu.md and tofu.json`);
  for (const f of tofuFigures(tofu)) log(`${f.status.padEnd(4)} ${f.name}: ${f.value} (target ${f.target})`);
}

/**
 * `node bench/dist/run.js R`: scenario R alone, written to plugin-runtime.md and plugin-runtime.json;
 * `--against=<node>` names the Node.js to compare with.
 */
async function scenarioRAlone(started: number): Promise<void> {
  const run = aloneRun(started);
  const log = run.log;
  const toolchain = await resolvePulumiToolchain({ log });
  const against = args.against;
  const plans = quick ? [{ count: 10, reps: 1, skipCheckpoints: false }] : PLUGIN_RUNTIME_PLANS;
  const result = await runPluginRuntimeScenario(toolchain, { startReps: quick ? 2 : 21, plans, against }, log);
  const dir = aloneResultsDir();
  const meta = run.meta(toolchain.version);
  writeResult(dir, "plugin-runtime", meta, result, pluginRuntimeMarkdown(result, meta, aloneCommand()));
  log(`wrote ${path.relative(repoRoot, dir)}/plugin-runtime.md and plugin-runtime.json`);
  for (const f of pluginRuntimeFigures(result)) log(`${f.status.padEnd(8)} ${f.name}: ${f.ratio.toFixed(3)}x (paired ${f.paired.toFixed(3)}x)`);
}

/** `node bench/dist/run.js B`: scenario B alone, written to preview.md and preview.json. */
async function scenarioBAlone(started: number): Promise<void> {
  const run = aloneRun(started);
  const log = run.log;
  const toolchain = await resolvePulumiToolchain({ log });
  const plan = plansArg()?.[0] ?? (quick ? { count: 10, reps: 2 } : { count: 100, reps: 15 });
  const result = await runPreviewScenario(toolchain, { count: plan.count, pairs: plan.reps }, log);
  const dir = aloneResultsDir();
  const meta = run.meta(toolchain.version);
  writeResult(dir, "preview", meta, result, previewMarkdown(result, meta, aloneCommand()));
  log(`wrote ${path.relative(repoRoot, dir)}/preview.md and preview.json`);
  for (const f of previewFigures(result)) log(`${f.status.padEnd(4)} ${f.name}: ${f.value} (target ${f.target})`);
}

/** `node bench/dist/run.js P`: scenario P alone, its measurements put into latest.json and latest.md redrawn. */
async function scenarioPAlone(started: number): Promise<void> {
  const { log, startedAt, loadStart } = aloneRun(started);
  const persistence = await runPersistenceScenario(persistencePlan(quick), log);
  for (const f of persistenceFigures(persistence)) log(`${f.status.padEnd(7)} ${f.name}: ${f.value} (target ${f.target})`);
  if (quick) return;
  const dir = path.join(repoRoot, "bench", "results");
  const report = JSON.parse(fs.readFileSync(path.join(dir, "latest.json"), "utf8")) as BenchReport;
  const load = (l: number[]): string => l.map((x) => x.toFixed(2)).join(" / ");
  report.raw.persistence = persistence;
  report.commands["P: persistent state"] = `${persistence.command} (measured alone by \`node bench/dist/run.js P\`, ${startedAt}, load average ${load(loadStart)} at start, ${load(loadAverage())} at end)`;
  report.figures = figuresOf(report.raw);
  ensurePeers(log);
  await writeReport(dir, report, methodNotes(report) + analysis());
  log("wrote bench/results/latest.md and latest.json with this run's scenario P");
}

/** `node bench/dist/run.js E`: scenario E alone, its figures printed, nothing written. */
async function scenarioEAlone(started: number): Promise<void> {
  const log = progressLog(started);
  const client = await runClientScenario(CLIENT_PLAN, log);
  for (const c of client) {
    const ratios = c.runs.client.map((run, i) => (run.mean / c.runs.raw[i]!.mean).toFixed(3));
    log(`E c=${c.concurrency} mean ratio per repetition: ${ratios.join(", ")}`);
  }
  for (const f of clientFigures(client)) log(`${f.status.padEnd(4)} ${f.name}: ${f.value} (target ${f.target})`);
}

/** `node bench/dist/run.js N`: scenario N alone, written to native.md and native.json. */
async function scenarioNAlone(started: number): Promise<void> {
  const run = aloneRun(started);
  const log = run.log;
  const toolchain = await resolvePulumiToolchain({ log });
  log(`Pulumi ${toolchain.version} (${toolchain.source}) at ${toolchain.pulumi}`);
  const native = await runNativeScenario(toolchain, NATIVE_PLANS, log);
  const dir = aloneResultsDir();
  const meta = run.meta(toolchain.version);
  writeResult(dir, "native", meta, native, nativeMarkdown(native, meta));
  log(`wrote ${path.relative(repoRoot, dir)}/native.md and native.json`);
  for (const f of nativeFigures(native)) log(`${f.status.padEnd(4)} ${f.name}: ${f.value} (target ${f.target})`);
}

/** `node bench/dist/run.js F`: scenario F alone, written to single-file.md and single-file.json. */
async function scenarioFAlone(started: number): Promise<void> {
  const run = aloneRun(started);
  const log = run.log;
  const toolchain = await resolvePulumiToolchain({ log });
  const result = await runSingleFileScenario(toolchain, quick ? 2 : 9, singleFilePlans(), log);
  const dir = aloneResultsDir();
  writeSingleFileResult(dir, result, run.meta(toolchain.version), aloneCommand());
  log(`wrote ${path.relative(repoRoot, dir)}/single-file.md and single-file.json`);
}

/** `node bench/dist/run.js container`: scenario container alone, written to container.md and container.json. */
async function scenarioContainerAlone(started: number): Promise<void> {
  const run = aloneRun(started);
  const result = await runContainerScenario(quick ? 2 : 9, run.log);
  const dir = aloneResultsDir();
  const meta = run.meta("none (no Pulumi CLI in this scenario)");
  writeResult(dir, "container", meta, result, containerMarkdown(result, meta, aloneCommand()));
  run.log(`wrote ${path.relative(repoRoot, dir)}/container.md and container.json`);
  for (const f of containerFigures(result)) run.log(`${f.status.padEnd(4)} ${f.name}: ${f.value} (target ${f.target})`);
}

/** `node bench/dist/run.js L`: scenario L alone, written to scale.md and scale.json. */
async function scenarioLAlone(started: number): Promise<void> {
  const run = aloneRun(started);
  const log = run.log;
  const toolchain = await resolvePulumiToolchain({ log });
  log(`Pulumi ${toolchain.version} (${toolchain.source}) at ${toolchain.pulumi}`);
  const scale = await runScaleScenario(toolchain, SCALE_PLAN, log);
  const dir = aloneResultsDir();
  const meta = run.meta(toolchain.version);
  writeResult(dir, "scale", meta, scale, scaleMarkdown(scale, meta, aloneCommand()));
  log(`wrote ${path.relative(repoRoot, dir)}/scale.md and scale.json`);
  for (const f of scaleFigures(scale)) log(`${f.status.padEnd(4)} ${f.name}: ${f.value} (target ${f.target})`);
}

/** Each scenario that runs alone (see SCENARIOS in bench/lib/scenarios.ts), by name. */
const ALONE: Record<AloneScenario, (started: number) => Promise<void>> = {
  B: scenarioBAlone,
  E: scenarioEAlone,
  P: scenarioPAlone,
  N: scenarioNAlone,
  L: scenarioLAlone,
  T: scenarioTAlone,
  F: scenarioFAlone,
  R: scenarioRAlone,
  container: scenarioContainerAlone,
};

/** Scenario F's sizes. */
const singleFilePlans = (): EnginePlan[] => (quick ? [{ count: 1, reps: 1, skipCheckpoints: false }] : SINGLE_FILE_PLANS);

/** `--render` without names: re-renders latest.md from latest.json and bench/analysis.md, and tofu.md from tofu.json, measuring nothing. */
async function renderLatest(): Promise<void> {
  const dir = path.join(repoRoot, "bench", "results");
  const report = JSON.parse(fs.readFileSync(path.join(dir, "latest.json"), "utf8")) as BenchReport;
  // Figures are derived from the raw data again, so a change to how they are computed shows.
  report.figures = figuresOf(report.raw);
  ensurePeers((line) => process.stdout.write(`${line}\n`));
  await writeReport(dir, report, methodNotes(report) + analysis());
  renderTofu();
}

/**
 * Redraws tofu.md and the speed table from tofu.json, measuring nothing: tofu.json, not
 * latest.json, holds the CLIs and commands of the T runs it merged.
 */
function renderTofu(): void {
  const dir = path.join(repoRoot, "bench", "results");
  const saved = JSON.parse(fs.readFileSync(path.join(dir, "tofu.json"), "utf8")) as Parameters<typeof tofuMarkdown>[1] & { commands: string[]; raw: TofuResult };
  writeTofuReport(dir, saved.raw, saved, saved.commands.map((c) => `\`${c}\``).join(", then "));
}

/** The full run's measurements, every scenario of it in turn. */
async function measureAll(toolchain: PulumiToolchain, log: (line: string) => void) {
  ensurePeers(log);
  const document = writeOpenApiDocument();
  const memory = await runMemoryScenario(quick ? 10_000 : 100_000, log);
  const startup = await runStartupScenario(document, quick ? 2 : 11, log);
  const http = await runHttpScenario(
    { connections: [1, 8, 64], peerConnections: [1, 8], reps: quick ? 1 : 5, durationS: quick ? 1 : 3, calibrationSpins: [10, 20], document },
    log,
  );
  const client = await runClientScenario(CLIENT_PLAN, log);
  const persistence = await runPersistenceScenario(persistencePlan(quick), log);
  const engine = await runEngineScenarios(toolchain, ENGINE_PLANS, log);
  const native = await runNativeScenario(toolchain, NATIVE_PLANS, log);
  const scale = quick || args.withScale ? await runScaleScenario(toolchain, SCALE_PLAN, log) : undefined;
  const tofu = await measureTofu(log);
  const singleFile = await runSingleFileScenario(toolchain, quick ? 2 : 9, singleFilePlans(), log);
  return { engine, http, client, memory, startup, persistence, native, scale, tofu, singleFile };
}

/** The commands table of the full run's report. */
function fullRunCommands(raw: Awaited<ReturnType<typeof measureAll>>): Record<string, string> {
  const { engine, http, persistence, native, scale, startup } = raw;
  return {
    bench: "npm run bench",
    "A: pulumi up (each N, each repetition, ours and floor)": engine.commands.up,
    "B: no-change preview of the same stack": engine.commands.preview,
    "C: state footprint": engine.commands.export,
    "D: load (reference server, Prism and the bare server, same flags)": http.command,
    "D: Prism": http.prismCommand ?? "",
    "P: persistent state": persistence.command,
    "N: native plugin and dynamic floor, each N, each repetition (checkpoints on)": `${native.commands.up}; ${native.commands.preview}; ${native.commands.export}`,
    ...Object.fromEntries(Object.entries(scale?.commands ?? {}).map(([k, v]) => [`L: ${k}`, v])),
    "T: OpenTofu + restapi and the Pulumi sides, each N once (every command of each side is in tofu.md)": "tofu apply -auto-approve -input=false -no-color; pulumi up --yes --skip-preview --stack <stack>",
    ...Object.fromEntries(Object.entries(startup.commands).map(([who, line]) => [`S: start-up, ${who}`, line])),
  };
}

/** `npm run bench` with no names: every scenario of the full run, into latest.md, latest.json, tofu.md and single-file.md. */
async function fullRun(started: number): Promise<void> {
  const startedAt = new Date().toISOString();
  const loadStart = loadAverage();
  const log = progressLog(started);
  const toolchain = await resolvePulumiToolchain({ log });
  log(`Pulumi ${toolchain.version} (${toolchain.source}) at ${toolchain.pulumi}`);
  const raw = await measureAll(toolchain, log);
  const report: BenchReport = {
    startedAt,
    durationS: (Date.now() - started) / 1000,
    system: systemInfo(repoRoot, toolchain.version),
    load: { start: loadStart, end: loadAverage() },
    figures: figuresOf(raw),
    commands: fullRunCommands(raw),
    raw,
  };
  const dir = quick ? path.join(repoRoot, "bench", "tmp", "results") : path.join(repoRoot, "bench", "results");
  await writeReport(dir, report, methodNotes(report) + analysis());
  const meta = { startedAt: report.startedAt, durationS: report.durationS, system: report.system, load: report.load };
  writeTofuResult(dir, raw.tofu, { ...meta, system: systemInfo(repoRoot, tofuCliVersions(raw.tofu).join(" and ")), commands: ["npm run bench"] });
  writeSingleFileResult(dir, raw.singleFile, meta, "npm run bench");
  log(`wrote ${path.relative(repoRoot, dir)}/latest.md, latest.json, tofu.md, single-file.md and the charts`);
  for (const f of report.figures) log(`${f.status.padEnd(4)} ${f.scenario} ${f.name}: ${f.value} (target ${f.target})`);
}

async function main(): Promise<void> {
  if (args.help) return void process.stdout.write(scenarioHelp());
  if (args.render && args.names.length === 0) return renderLatest();
  if (args.names.length === 0) return fullRun(Date.now());
  for (const name of args.names) await ALONE[name](Date.now());
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

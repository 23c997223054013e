/**
 * Scenario F: the single-file plugin (tools/build-plugin-binary.js, Node.js built in) against the
 * script plugin, the release's portable fallback (the bundle tools/build-plugin-archive.js puts in
 * its archive, a `#!/usr/bin/env node` script run by the `node` of PATH), side by side: time from
 * start to the port line and the memory then, and to the first answered Check (after
 * GetPluginInfo and Configure, as the engine asks: the first call that needs the provider's shared
 * logic) with the plugin's CPU time then, each interleaved, with the repository's unbundled build
 * (dist/native/bin.js) beside them for reference; and `pulumi up` of bench/fixtures/native at N=1
 * and N=100 with the plugin's peak memory, through {@link compareWithFloor} with the script plugin
 * in the floor's place. Beside them, interleaved too, Node.js's own floor (bench/fixtures/http2-floor.js,
 * run by the same Node.js as the script): listening with node:http2 on 127.0.0.1, its port line,
 * and one gRPC unary call over h2c answered. Targets: the single file to its first answered Check
 * in at most 1.5x the floor's first answer and to its port line in at most 1.5x the floor's, and
 * at most 1.0x the script in both and in both ups; memory and CPU are reported, memory as RSS and
 * as its anonymous part (RSS also counts the pages of the executable the kernel has mapped from
 * disk, clean and droppable, and the single file is larger).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { PulumiToolchain } from "@pulumi-analytics/toolchain";
import { compareWithFloor, type Comparison, type EnginePlan, type Subject } from "./engine";
import type { Figure } from "./figure";
import { NATIVE, NATIVE_BIN } from "./native";
import { askFirstCheck, askPluginInfo } from "./plugin-calls";
import { HTTP2_FLOOR, startOnce } from "./plugin-start";
import { arm64Figures, arm64Markdown, arm64Unavailable, measureArm64Starts, type Arm64StartResult } from "./single-file-arm64";
import { median, round } from "./stats";
import { repoRoot } from "./workspace";

/** The plugins compared in `pulumi up`. */
export type PluginForm = "single" | "script";

/** What is started at start-up: those two, the repository's unbundled build and Node.js's floor. */
export type StartForm = PluginForm | "unbundled" | "floor";

/** Everything scenario F measured. */
export interface SingleFileResult {
  /** Milliseconds from spawn to the port line, per start, per form. */
  startMs: Record<StartForm, number[]>;
  /** RSS at the port line, MiB, per start, per form. */
  startRssMiB: Record<StartForm, number[]>;
  /** Anonymous resident memory (RssAnon) at the port line, MiB, per start, per form. */
  startAnonMiB: Record<StartForm, number[]>;
  /** Milliseconds from spawn to the answer of the first Check (the floor: of its one call), per start, per form. */
  firstCheckMs: Record<StartForm, number[]>;
  /** CPU milliseconds (user + system, every thread) from spawn to that answer, per start, per form. */
  firstCheckCpuMs: Record<StartForm, number[]>;
  /** Bytes of the executable and of its archive. */
  binaryBytes: number;
  archiveBytes: number;
  /** The `pulumi up` comparison. */
  up: Comparison<PluginForm>;
  /** The linux-arm64 file under qemu-user (bench/lib/single-file-arm64.ts), or why it was not measured; absent in older runs. */
  arm64?: Arm64StartResult | { skipped: string };
}

/** Scenario F's sizes: one DataSource (plus the Organization) and 100. */
export const SINGLE_FILE_PLANS: EnginePlan[] = [
  { count: 1, reps: 7, skipCheckpoints: false },
  { count: 100, reps: 7, skipCheckpoints: false },
];

/** bench/fixtures/native with a shim exec'ing `command` (the plugin process's command line holds it). */
export function pluginSubject(command: string): Subject {
  return {
    fixture: NATIVE.fixture,
    providerMarker: command,
    prepare(ws) {
      const dir = path.join(ws.programDir, "plugin-bin");
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, "pulumi-resource-analytics"), `#!/bin/sh\nexec "${command}" "$@"\n`, { mode: 0o755 });
    },
  };
}

/** The two release forms of the plugin, built into bench/tmp/plugin: the single file and the script. */
async function buildPluginForms(): Promise<{ binary: string; archive: string; script: string }> {
  const tools = path.join(repoRoot, "tools");
  const { buildPluginBinary } = require(path.join(tools, "build-plugin-binary.js")) as { buildPluginBinary(out: string): Promise<{ binary: string; archive: string }> };
  const { bundlePlugin } = require(path.join(tools, "build-plugin-archive.js")) as { bundlePlugin(outfile: string): unknown };
  const out = path.join(repoRoot, "bench", "tmp", "plugin");
  const { binary, archive } = await buildPluginBinary(out);
  const script = path.join(out, "script", "pulumi-resource-analytics");
  fs.mkdirSync(path.dirname(script), { recursive: true });
  bundlePlugin(script);
  fs.chmodSync(script, 0o755);
  return { binary, archive, script };
}

/** Builds the single-file plugin alone into bench/tmp/plugin (as {@link buildPluginForms} does); returns the executable's path. */
export async function singleFilePlugin(log: (line: string) => void): Promise<string> {
  const { buildPluginBinary } = require(path.join(repoRoot, "tools", "build-plugin-binary.js")) as { buildPluginBinary(out: string): Promise<{ binary: string }> };
  const { binary } = await buildPluginBinary(path.join(repoRoot, "bench", "tmp", "plugin"));
  log(`built ${path.relative(repoRoot, binary)}`);
  return binary;
}

/** How one form is started and asked: its command line and the calls up to its first answer. */
type StartCommand = [command: string, args: string[], ask: (port: number) => Promise<void>];

/** Starts each form `reps` times (after one warm-up start each), interleaved, alternating the order. */
async function measureStarts(forms: Record<StartForm, StartCommand>, reps: number): Promise<Pick<SingleFileResult, "startMs" | "startRssMiB" | "startAnonMiB" | "firstCheckMs" | "firstCheckCpuMs">> {
  const names = Object.keys(forms) as StartForm[];
  const perForm = (): Record<StartForm, number[]> => ({ single: [], script: [], unbundled: [], floor: [] });
  const result = { startMs: perForm(), startRssMiB: perForm(), startAnonMiB: perForm(), firstCheckMs: perForm(), firstCheckCpuMs: perForm() };
  for (let rep = 0; rep < reps + 1; rep++) {
    for (const form of rep % 2 === 0 ? names : [...names].reverse()) {
      const sample = await startOnce(...forms[form]);
      if (rep === 0) continue; // warm-up: disk caches
      result.startMs[form].push(sample.ms);
      result.startRssMiB[form].push(sample.rssMiB);
      result.startAnonMiB[form].push(sample.anonMiB);
      result.firstCheckMs[form].push(sample.checkMs);
      result.firstCheckCpuMs[form].push(sample.checkCpuMs);
    }
  }
  return result;
}

/** Builds both plugin forms into bench/tmp and runs scenario F; `log` gets progress lines. */
export async function runSingleFileScenario(toolchain: PulumiToolchain, startReps: number, plans: readonly EnginePlan[], log: (line: string) => void): Promise<SingleFileResult> {
  const { binary, archive, script } = await buildPluginForms();
  log(`built ${path.relative(repoRoot, binary)} and ${path.relative(repoRoot, script)}`);
  const starts = await measureStarts(
    {
      single: [binary, [], askFirstCheck],
      script: [process.execPath, [script], askFirstCheck],
      unbundled: [process.execPath, [NATIVE_BIN], askFirstCheck],
      floor: [process.execPath, [HTTP2_FLOOR], askPluginInfo],
    },
    startReps,
  );
  for (const [what, figures] of [["start", starts.startMs], ["first Check", starts.firstCheckMs]] as const) {
    log(`${what}: single ${median(figures.single).toFixed(0)} ms, script ${median(figures.script).toFixed(0)} ms, unbundled ${median(figures.unbundled).toFixed(0)} ms, floor ${median(figures.floor).toFixed(0)} ms`);
  }
  const up = await compareWithFloor<PluginForm>(toolchain, { single: pluginSubject(binary), script: pluginSubject(script) }, "single", plans, log);
  const unavailable = arm64Unavailable();
  if (unavailable) log(`linux-arm64 not measured: ${unavailable}`);
  const arm64 = unavailable ? { skipped: unavailable } : await measureArm64Starts(startReps, log);
  return { ...starts, binaryBytes: fs.statSync(binary).size, archiveBytes: fs.statSync(archive).size, up, arm64 };
}

/** The single file's start to its port line and to its first answered Check, at most, in multiples of Node.js's floor (medians). */
export const FLOOR_TARGET = 1.5;

/** Old runs without the floor were held to absolute times (ms, port line and first Check), retired: below the machine's own floor. */
const RETIRED_TARGETS_MS = { port: 40, check: 60 };

/**
 * The single file against Node.js's floor, a median each: at most {@link FLOOR_TARGET}×; a run
 * without the floor (older JSON) shows its median against the retired absolute target instead.
 */
function againstFloor(name: string, single: readonly number[], floor: readonly number[] | undefined, retiredMs: number): Figure {
  if (!floor || floor.length === 0) {
    return { scenario: "F", name: `single file, ${name} (${single.length} starts, median; no floor in this run)`, value: `${round(median(single), 1)} ms`, target: `≤ ${retiredMs} ms`, status: "retired" };
  }
  const r = median(single) / median(floor);
  const value = `${round(r, 3)}×`;
  return { scenario: "F", name: `${name} (${single.length} starts each): single file ${round(median(single), 1)} ms / Node.js's http2 floor ${round(median(floor), 1)} ms (medians)`, value, target: `≤ ${FLOOR_TARGET}×`, status: r <= FLOOR_TARGET ? "pass" : "miss" };
}

/** The single file against the script, a median each: at most 1.0× (not slower for being one file). */
function againstScript(name: string, single: readonly number[], script: readonly number[]): Figure {
  const r = median(single) / median(script);
  // Three decimals, as A's, B's and N's ratios: at two, 1.004× would read "1×" beside a miss.
  const value = `${round(r, 3)}×`;
  return { scenario: "F", name: `${name}: single file ${round(median(single), 1)} ms / script ${round(median(script), 1)} ms (medians)`, value, target: "≤ 1.0×", status: r <= 1 ? "pass" : "miss" };
}

/**
 * Scenario F's figures beside their targets, for latest.md: the single file's start to its port
 * line and to its first answered Check, each against Node.js's floor and against the script,
 * `pulumi up` against the script, and the linux-arm64 file's first Check against its scripts-blob form.
 */
export function singleFileFigures(result: SingleFileResult): Figure[] {
  return [
    againstFloor("start to port line", result.startMs.single, result.startMs.floor, RETIRED_TARGETS_MS.port),
    againstFloor("start to first answered Check (the floor: its one answer)", result.firstCheckMs.single, result.firstCheckMs.floor, RETIRED_TARGETS_MS.check),
    againstScript(`start to port line (${result.startMs.single.length} starts each)`, result.startMs.single, result.startMs.script),
    againstScript(`start to first answered Check (${result.firstCheckMs.single.length} starts each)`, result.firstCheckMs.single, result.firstCheckMs.script),
    ...result.up.runs.map((run) => againstScript(`pulumi up, N=${run.plan.count} (${run.plan.reps} each)`, run.upMs.single, run.upMs.script)),
    ...(result.arm64 && !("skipped" in result.arm64) ? arm64Figures(result.arm64) : []),
  ];
}

/** Scenario F's report: each figure of the single file beside the script's, as a ratio, and the unbundled build's start. */
export function singleFileMarkdown(result: SingleFileResult, meta: { startedAt: string; durationS: number; system: unknown }, command: string): string {
  const ms = (samples: readonly number[] | undefined, unit: string): string => (samples && samples.length > 0 ? `${round(median(samples), 1)} ${unit}` : "–");
  const row = (name: string, single: readonly number[], script: readonly number[], unit: string, targeted: boolean, others?: { unbundled: readonly number[]; floor?: readonly number[] | undefined; floorTargeted?: boolean }): string => {
    const [a, b] = [median(single), median(script)];
    const status = targeted ? (a / b <= 1 ? "met" : "missed") : "reported";
    const floor = others?.floor && others.floor.length > 0 ? median(others.floor) : undefined;
    const overFloor = floor === undefined ? "–" : `${round(a / floor, 2)}x${others?.floorTargeted ? ` (≤ ${FLOOR_TARGET}x: ${a / floor <= FLOOR_TARGET ? "met" : "missed"})` : ""}`;
    return `| ${name} | ${round(a, 1)} ${unit} | ${round(b, 1)} ${unit} | ${round(a / b, 2)}x | ${status} | ${ms(others?.unbundled, unit)} | ${ms(others?.floor, unit)} | ${overFloor} |`;
  };
  const lines = [
    "# Scenario F: the single-file plugin against the script plugin and Node.js's floor",
    "",
    `Run ${meta.startedAt}, ${round(meta.durationS / 60, 1)} min: \`${command}\`. Medians; targets: the single file to its port line and to its first answered Check in at most ${FLOOR_TARGET}x Node.js's floor (latest.md), and at most 1.0x the script in both and in \`pulumi up\`; memory and CPU reported.`,
    `The executable is ${round(result.binaryBytes / 1048576, 1)} MiB, its archive ${round(result.archiveBytes / 1048576, 1)} MiB. The script is the bundle the release's script archive holds, run by \`node\`;`,
    "the unbundled column is the repository's build (`node dist/native/bin.js`), for reference. The floor is `bench/fixtures/http2-floor.js` run by the same `node` as the script:",
    "it listens with node:http2 on 127.0.0.1, prints its port line and answers one gRPC unary call over h2c (the bench's client asks it GetPluginInfo on one HTTP/2 connection,",
    "as it asks the plugins GetPluginInfo, Configure and Check), so its first answer is what Node.js alone costs to start, listen and answer here. RSS counts the executable's pages mapped from disk",
    "(clean, shared with other processes running the same file, droppable under pressure); the anonymous part (RssAnon) is the plugin's own heap and stacks.",
    "",
    "| Figure | Single file | Script | Ratio | Target ≤ 1.0x | Unbundled | Floor | Single file ÷ floor |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    row(`start to port line (${result.startMs.single.length} starts each)`, result.startMs.single, result.startMs.script, "ms", true, { unbundled: result.startMs.unbundled, floor: result.startMs.floor, floorTargeted: true }),
    row("RSS at the port line", result.startRssMiB.single, result.startRssMiB.script, "MiB", false, { unbundled: result.startRssMiB.unbundled, floor: result.startRssMiB.floor }),
    row("anonymous memory at the port line", result.startAnonMiB.single, result.startAnonMiB.script, "MiB", false, { unbundled: result.startAnonMiB.unbundled, floor: result.startAnonMiB.floor }),
    row("start to first answered Check (GetPluginInfo, Configure, Check; the floor: its one call)", result.firstCheckMs.single, result.firstCheckMs.script, "ms", true, { unbundled: result.firstCheckMs.unbundled, floor: result.firstCheckMs.floor, floorTargeted: true }),
    row("CPU to the first answered Check (all threads)", result.firstCheckCpuMs.single, result.firstCheckCpuMs.script, "ms", false, { unbundled: result.firstCheckCpuMs.unbundled, floor: result.firstCheckCpuMs.floor }),
  ];
  for (const run of result.up.runs) {
    lines.push(row(`\`pulumi up\`, N=${run.plan.count} (${run.plan.reps} each)`, run.upMs.single, run.upMs.script, "ms", true));
    lines.push(row(`plugin peak RSS in that up, N=${run.plan.count}`, run.providerPeakMiB.single, run.providerPeakMiB.script, "MiB", false));
    lines.push(row(`plugin anonymous memory in that up (largest sampled), N=${run.plan.count}`, run.providerAnonPeakMiB.single, run.providerAnonPeakMiB.script, "MiB", false));
  }
  if (result.arm64) lines.push(...arm64Markdown(result.arm64));
  lines.push("", "System:", "", "```json", JSON.stringify(meta.system, null, 2), "```", "");
  return lines.join("\n");
}

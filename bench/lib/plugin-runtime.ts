/**
 * Scenario R: the single-file plugin as released, made of the pinned Node.js of PLUGIN_LINE
 * (tools/lib/node-runtime.js), against the same plugin made of another Node.js, by default the first
 * `node` on PATH outside the project cache (this machine's own, Node.js 20): both built by
 * tools/build-plugin-binary.js from one bundle. Side by side, interleaved: time from start to the
 * port line, the plugin's CPU time (all its threads) from start to its answer to the first call the
 * engine makes (GetPluginInfo), and its peak RSS in a `pulumi up` of bench/fixtures/native at N=100
 * (through {@link compareWithFloor}, the other build in the floor's place). Target: the pinned
 * build at most 1.05x the other on each. Both executables are dropped from the page cache before
 * they are measured ({@link evictFromPageCache}).
 */
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import * as fs from "node:fs";
import * as path from "node:path";
import type { PulumiToolchain } from "@pulumi-analytics/toolchain";
import { compareWithFloor, type Comparison, type EnginePlan } from "./engine";
import { askPluginInfo } from "./plugin-calls";
import { procMemory, procThreadsCpuMicros } from "./proc";
import { pluginSubject } from "./single-file";
import { median, pairedRatio, round } from "./stats";
import { repoRoot } from "./workspace";

/** The two builds: made of the pinned Node.js, and of the other one. */
export type RuntimeForm = "pinned" | "other";
const FORMS: readonly RuntimeForm[] = ["pinned", "other"];

/** A `node` executable and the release it says it is (`vX.Y.Z`). */
export interface NodeExecutable {
  path: string;
  version: string;
}

/** Everything scenario R measured. */
export interface PluginRuntimeResult {
  /** The Node.js each build is made of. */
  nodes: Record<RuntimeForm, NodeExecutable>;
  /** Milliseconds from spawn to the port line, per start. */
  startMs: Record<RuntimeForm, number[]>;
  /** CPU milliseconds (user + system, every thread) from spawn to the complete answer to GetPluginInfo, per start. */
  firstAnswerCpuMs: Record<RuntimeForm, number[]>;
  /** RSS and its anonymous part (RssAnon) at the port line, MiB, per start. */
  startRssMiB: Record<RuntimeForm, number[]>;
  startAnonMiB: Record<RuntimeForm, number[]>;
  /** Bytes of each executable and of its archive. */
  binaryBytes: Record<RuntimeForm, number>;
  archiveBytes: Record<RuntimeForm, number>;
  /** The `pulumi up` comparison. */
  up: Comparison<RuntimeForm>;
}

/** Scenario R's up: N=100, 7 each. */
export const PLUGIN_RUNTIME_PLANS: EnginePlan[] = [{ count: 100, reps: 7, skipCheckpoints: false }];

/** Target of every compared figure: the pinned build at most this many times the other. */
export const RUNTIME_TARGET = 1.05;

const nodeRuntimeTools = (): { PLUGIN_LINE: number; cacheRoot(): string; supportedLine(line: number): { pinned?: string } } =>
  require(path.join(repoRoot, "tools", "lib", "node-runtime.js")) as ReturnType<typeof nodeRuntimeTools>;

/** The release of PLUGIN_LINE the single file embeds, `X.Y.Z`. */
export function pinnedRelease(): string {
  const tools = nodeRuntimeTools();
  return tools.supportedLine(tools.PLUGIN_LINE).pinned!;
}

/** Whether `file` is an executable regular file. */
function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The first `node` of `searchPath` (in `which -a node`'s order) that is not under `cacheDir` (the
 * project cache's Node.js runtimes) and is not release `pinned`; undefined when there is none.
 */
export function otherNodeOnPath(searchPath: string, cacheDir: string, pinned: string): NodeExecutable | undefined {
  for (const dir of searchPath.split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, "node");
    if (!isExecutable(candidate)) continue;
    const real = fs.realpathSync(candidate);
    if (real.startsWith(`${fs.existsSync(cacheDir) ? fs.realpathSync(cacheDir) : path.resolve(cacheDir)}${path.sep}`)) continue;
    const version = execFileSync(real, ["--version"], { encoding: "utf8" }).trim();
    if (version !== `v${pinned}`) return { path: real, version };
  }
  return undefined;
}

/** The Node.js to compare with: `against` when given, else the first other `node` on PATH. */
export function comparedNode(against: string | undefined): NodeExecutable {
  if (against) return { path: path.resolve(against), version: execFileSync(against, ["--version"], { encoding: "utf8" }).trim() };
  const found = otherNodeOnPath(process.env.PATH ?? "", path.join(nodeRuntimeTools().cacheRoot(), "node"), pinnedRelease());
  if (!found) throw new Error(`No node on PATH other than Node.js ${pinnedRelease()}: name one with --against=<node executable>`);
  return found;
}

/** Builds the single file of each form into bench/tmp/plugin-runtime/<form>; checks each one's `--version` names its Node.js. */
async function buildForms(other: NodeExecutable): Promise<{ nodes: Record<RuntimeForm, NodeExecutable>; built: Record<RuntimeForm, { binary: string; archive: string }> }> {
  const { buildPluginBinary, pinnedBaseNode } = require(path.join(repoRoot, "tools", "build-plugin-binary.js")) as {
    buildPluginBinary(out: string, options?: { node?: string }): Promise<{ binary: string; archive: string }>;
    pinnedBaseNode(): Promise<string>;
  };
  const out = path.join(repoRoot, "bench", "tmp", "plugin-runtime");
  const nodes = { pinned: { path: await pinnedBaseNode(), version: `v${pinnedRelease()}` }, other };
  const built = { pinned: await buildPluginBinary(path.join(out, "pinned")), other: await buildPluginBinary(path.join(out, "other"), { node: other.path }) };
  for (const form of FORMS) {
    const printed = execFileSync(built[form].binary, ["--version"], { encoding: "utf8" });
    if (!printed.includes(`(Node.js ${nodes[form].version})`)) throw new Error(`${built[form].binary} --version printed ${printed.trim()}, not Node.js ${nodes[form].version}`);
  }
  return { nodes, built };
}

/**
 * Drops `file` from the page cache (GNU dd's `iflag=nocache`), so that its pages come back from
 * disk through page faults, as after a reboot. Just written by the build (the injection writes the
 * whole executable at once), it sits in the cache in larger folios, which a fault maps whole: the
 * plugin's file-backed RSS at its port line is then about 10 MiB higher for the 124 MiB executable,
 * 5 MiB for the 98 MiB one, and depends on how the file was written, not on what it runs.
 */
function evictFromPageCache(file: string): void {
  execFileSync("dd", [`if=${file}`, "iflag=nocache", "count=0", "status=none"]);
}

/** One start: the port line's time and memory, then the CPU used by the first answer's end; the plugin is then stopped. */
async function startAndAsk(binary: string): Promise<{ ms: number; cpuMs: number; rssMiB: number; anonMiB: number }> {
  const started = process.hrtime.bigint();
  const child = spawn(binary, [], { stdio: ["pipe", "pipe", "ignore"] });
  const exited = once(child, "exit");
  const [line] = (await once(child.stdout, "data")) as [Buffer];
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const memory = procMemory(child.pid!);
  await askPluginInfo(Number(String(line).trim()));
  const cpuMs = (procThreadsCpuMicros(child.pid!) ?? Number.NaN) / 1000;
  child.stdin.end();
  await exited;
  return { ms, cpuMs, rssMiB: (memory?.rssKiB ?? 0) / 1024, anonMiB: (memory?.anonKiB ?? 0) / 1024 };
}

/** Starts each build `reps` times after one unmeasured start each, interleaved, alternating the order. */
async function measureStarts(binaries: Record<RuntimeForm, string>, reps: number): Promise<Pick<PluginRuntimeResult, "startMs" | "firstAnswerCpuMs" | "startRssMiB" | "startAnonMiB">> {
  const perForm = (): Record<RuntimeForm, number[]> => ({ pinned: [], other: [] });
  const result = { startMs: perForm(), firstAnswerCpuMs: perForm(), startRssMiB: perForm(), startAnonMiB: perForm() };
  for (let rep = 0; rep < reps + 1; rep++) {
    for (const form of rep % 2 === 0 ? FORMS : [...FORMS].reverse()) {
      const sample = await startAndAsk(binaries[form]);
      if (rep === 0) continue; // warm-up: disk caches
      result.startMs[form].push(sample.ms);
      result.firstAnswerCpuMs[form].push(sample.cpuMs);
      result.startRssMiB[form].push(sample.rssMiB);
      result.startAnonMiB[form].push(sample.anonMiB);
    }
  }
  return result;
}

/** Builds both forms into bench/tmp and runs scenario R; `against` names the other Node.js (default: found on PATH). */
export async function runPluginRuntimeScenario(
  toolchain: PulumiToolchain,
  options: { startReps: number; plans: readonly EnginePlan[]; against?: string | undefined },
  log: (line: string) => void,
): Promise<PluginRuntimeResult> {
  const { nodes, built } = await buildForms(comparedNode(options.against));
  log(`built the single file on Node.js ${nodes.pinned.version} and on ${nodes.other.version} (${nodes.other.path})`);
  for (const form of FORMS) evictFromPageCache(built[form].binary);
  const starts = await measureStarts({ pinned: built.pinned.binary, other: built.other.binary }, options.startReps);
  log(`start: ${FORMS.map((f) => `${nodes[f].version} ${median(starts.startMs[f]).toFixed(0)} ms, CPU to first answer ${median(starts.firstAnswerCpuMs[f]).toFixed(0)} ms`).join("; ")}`);
  const subjects = { pinned: pluginSubject(built.pinned.binary), other: pluginSubject(built.other.binary) };
  const up = await compareWithFloor<RuntimeForm>(toolchain, subjects, "pinned", options.plans, log, { previews: false });
  const bytes = (file: "binary" | "archive"): Record<RuntimeForm, number> => ({ pinned: fs.statSync(built.pinned[file]).size, other: fs.statSync(built.other[file]).size });
  return { nodes, ...starts, binaryBytes: bytes("binary"), archiveBytes: bytes("archive"), up };
}

/** One compared figure: both medians, their ratio and the paired ratio, and its target or "reported". */
export interface RuntimeFigure {
  name: string;
  unit: string;
  pinned: number;
  other: number;
  ratio: number;
  paired: number;
  status: "met" | "missed" | "reported";
}

/** A figure of `pinned` against `other` samples; `targeted` ones are held to {@link RUNTIME_TARGET}. */
export function runtimeFigure(name: string, unit: string, pinned: readonly number[], other: readonly number[], targeted: boolean): RuntimeFigure {
  const [a, b] = [median(pinned), median(other)];
  const status = targeted ? (a / b <= RUNTIME_TARGET ? "met" : "missed") : "reported";
  return { name, unit, pinned: a, other: b, ratio: a / b, paired: pairedRatio(pinned, other), status };
}

/** Scenario R's figures: the three targeted ones first. */
export function pluginRuntimeFigures(result: PluginRuntimeResult): RuntimeFigure[] {
  const figures = [
    runtimeFigure(`start to port line (${result.startMs.pinned.length} starts each)`, "ms", result.startMs.pinned, result.startMs.other, true),
    runtimeFigure("CPU time, start to the first answer (GetPluginInfo)", "ms", result.firstAnswerCpuMs.pinned, result.firstAnswerCpuMs.other, true),
  ];
  for (const run of result.up.runs) figures.push(runtimeFigure(`plugin peak RSS in \`pulumi up\`, N=${run.plan.count} (${run.plan.reps} each)`, "MiB", run.providerPeakMiB.pinned, run.providerPeakMiB.other, true));
  figures.push(
    runtimeFigure("RSS at the port line", "MiB", result.startRssMiB.pinned, result.startRssMiB.other, false),
    runtimeFigure("anonymous memory at the port line", "MiB", result.startAnonMiB.pinned, result.startAnonMiB.other, false),
  );
  for (const run of result.up.runs) {
    figures.push(runtimeFigure(`plugin anonymous memory in that up (largest sampled), N=${run.plan.count}`, "MiB", run.providerAnonPeakMiB.pinned, run.providerAnonPeakMiB.other, false));
    figures.push(runtimeFigure(`\`pulumi up\` wall time, N=${run.plan.count}`, "ms", run.upMs.pinned, run.upMs.other, false));
  }
  return figures;
}

/** Scenario R's report: each figure of the pinned build beside the other's, as ratios. */
export function pluginRuntimeMarkdown(result: PluginRuntimeResult, meta: { startedAt: string; durationS: number; system: unknown; load?: unknown }, command: string): string {
  const [p, o] = [result.nodes.pinned.version, result.nodes.other.version];
  const mib = (n: number): number => round(n / 1048576, 1);
  const lines = [
    `# Scenario R: the single-file plugin on Node.js ${p} against the same on ${o}`,
    "",
    `Run ${meta.startedAt}, ${round(meta.durationS / 60, 1)} min: \`${command}\`. Both executables are tools/build-plugin-binary.js's build of one bundle, one made of the pinned`,
    `Node.js of tools/lib/node-runtime.js (\`${result.nodes.pinned.path}\`), the other of \`${result.nodes.other.path}\`. Medians; "paired" is the median of the ratios of back-to-back runs.`,
    `Target: Node.js ${p} at most ${RUNTIME_TARGET}x ${o} on the first three figures; the rest is reported. CPU is the plugin's user + system time summed over its threads`,
    "(/proc/<pid>/task/*/schedstat) when GetPluginInfo's answer has arrived. Both executables were dropped from the page cache after the build, so their",
    "file-backed pages (part of RSS) are read through page faults as after a reboot. Executables: " +
      `${mib(result.binaryBytes.pinned)} MiB and ${mib(result.binaryBytes.other)} MiB; archives ${mib(result.archiveBytes.pinned)} MiB and ${mib(result.archiveBytes.other)} MiB.`,
    "",
    `| Figure | Node.js ${p} | Node.js ${o} | Ratio | Paired | Target ≤ ${RUNTIME_TARGET}x |`,
    "| --- | --- | --- | --- | --- | --- |",
    ...pluginRuntimeFigures(result).map((f) => `| ${f.name} | ${round(f.pinned, 1)} ${f.unit} | ${round(f.other, 1)} ${f.unit} | ${round(f.ratio, 2)}x | ${round(f.paired, 2)}x | ${f.status} |`),
    "",
    "System:",
    "",
    "```json",
    JSON.stringify({ ...(meta.system as object), load: meta.load }, null, 2),
    "```",
    "",
  ];
  return lines.join("\n");
}

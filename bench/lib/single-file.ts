/**
 * Scenario F: the single-file plugin (tools/build-plugin-binary.js, Node.js built in) against the
 * script plugin (dist/native/bin.js on the `node` of PATH), side by side: time from start to the
 * port line and the RSS then, each interleaved; and `pulumi up` of bench/fixtures/native at N=1
 * and N=100 with the plugin's peak RSS, through {@link compareWithFloor} with the script plugin in
 * the floor's place. Target: the single file at most 1.0x the script on each.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { PulumiToolchain } from "pulumi-analytics/toolchain";
import { compareWithFloor, type Comparison, type EnginePlan, type Subject } from "./engine";
import { NATIVE } from "./native";
import { procMemory } from "./proc";
import { median, round } from "./stats";
import { repoRoot } from "./workspace";

/** The plugins compared. */
export type PluginForm = "single" | "script";

/** Everything scenario F measured. */
export interface SingleFileResult {
  /** Milliseconds from spawn to the port line, per start, per form. */
  startMs: Record<PluginForm, number[]>;
  /** RSS at the port line, MiB, per start, per form. */
  startRssMiB: Record<PluginForm, number[]>;
  /** Bytes of the executable and of its archive. */
  binaryBytes: number;
  archiveBytes: number;
  /** The `pulumi up` comparison. */
  up: Comparison<PluginForm>;
}

/** Scenario F's sizes: one DataSource (plus the Organization) and 100. */
export const SINGLE_FILE_PLANS: EnginePlan[] = [
  { count: 1, reps: 5, skipCheckpoints: false },
  { count: 100, reps: 3, skipCheckpoints: false },
];

/** bench/fixtures/native with a shim exec'ing the single-file plugin at `binary`. */
function singleFileSubject(binary: string): Subject {
  return {
    fixture: NATIVE.fixture,
    providerMarker: binary,
    prepare(ws) {
      const dir = path.join(ws.programDir, "plugin-bin");
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, "pulumi-resource-analytics"), `#!/bin/sh\nexec "${binary}" "$@"\n`, { mode: 0o755 });
    },
  };
}

/** Starts one plugin, waits for its port line, reads its RSS, closes its stdin and waits for its exit. */
async function startOnce(command: string, args: string[]): Promise<{ ms: number; rssMiB: number }> {
  const started = process.hrtime.bigint();
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "ignore"] });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  await new Promise((resolve) => child.stdout.once("data", resolve));
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const rssMiB = (procMemory(child.pid!)?.rssKiB ?? 0) / 1024;
  child.stdin.end();
  await exited;
  return { ms, rssMiB };
}

/** Builds the single-file plugin into bench/tmp and runs scenario F; `log` gets progress lines. */
export async function runSingleFileScenario(toolchain: PulumiToolchain, startReps: number, plans: readonly EnginePlan[], log: (line: string) => void): Promise<SingleFileResult> {
  const { buildPluginBinary } = require(path.join(repoRoot, "tools", "build-plugin-binary.js")) as { buildPluginBinary(out: string): Promise<{ binary: string; archive: string }> };
  const { binary, archive } = await buildPluginBinary(path.join(repoRoot, "bench", "tmp", "plugin"));
  log(`built ${path.relative(repoRoot, binary)}`);
  const forms: Record<PluginForm, [string, string[]]> = { single: [binary, []], script: [process.execPath, [path.join(repoRoot, "dist", "native", "bin.js")]] };
  const startMs: Record<PluginForm, number[]> = { single: [], script: [] };
  const startRssMiB: Record<PluginForm, number[]> = { single: [], script: [] };
  for (let rep = 0; rep < startReps + 1; rep++) {
    const order: PluginForm[] = rep % 2 === 0 ? ["single", "script"] : ["script", "single"];
    for (const form of order) {
      const sample = await startOnce(...forms[form]);
      if (rep === 0) continue; // warm-up: disk caches
      startMs[form].push(sample.ms);
      startRssMiB[form].push(sample.rssMiB);
    }
  }
  log(`start: single ${median(startMs.single).toFixed(0)} ms, script ${median(startMs.script).toFixed(0)} ms`);
  const up = await compareWithFloor<PluginForm>(toolchain, { single: singleFileSubject(binary), script: NATIVE }, "single", plans, log);
  return { startMs, startRssMiB, binaryBytes: fs.statSync(binary).size, archiveBytes: fs.statSync(archive).size, up };
}

/** Scenario F's report: each figure of the single file beside the script's, as a ratio. */
export function singleFileMarkdown(result: SingleFileResult, meta: { startedAt: string; durationS: number; system: unknown }, command: string): string {
  const row = (name: string, single: readonly number[], script: readonly number[], unit: string): string => {
    const [a, b] = [median(single), median(script)];
    return `| ${name} | ${round(a, 1)} ${unit} | ${round(b, 1)} ${unit} | ${round(a / b, 2)}x | ${a / b <= 1 ? "met" : "missed"} |`;
  };
  const lines = [
    "# Scenario F: the single-file plugin against the script plugin",
    "",
    `Run ${meta.startedAt}, ${round(meta.durationS / 60, 1)} min: \`${command}\`. Medians; target: the single file at most 1.0x the script.`,
    `The executable is ${round(result.binaryBytes / 1048576, 1)} MiB, its archive ${round(result.archiveBytes / 1048576, 1)} MiB.`,
    "",
    "| Figure | Single file | Script (`node dist/native/bin.js`) | Ratio | Target ≤ 1.0x |",
    "| --- | --- | --- | --- | --- |",
    row(`start to port line (${result.startMs.single.length} starts each)`, result.startMs.single, result.startMs.script, "ms"),
    row("RSS at the port line", result.startRssMiB.single, result.startRssMiB.script, "MiB"),
  ];
  for (const run of result.up.runs) {
    lines.push(row(`\`pulumi up\`, N=${run.plan.count} (${run.plan.reps} each)`, run.upMs.single, run.upMs.script, "ms"));
    lines.push(row(`plugin peak RSS in that up, N=${run.plan.count}`, run.providerPeakMiB.single, run.providerPeakMiB.script, "MiB"));
  }
  lines.push("", "System:", "", "```json", JSON.stringify(meta.system, null, 2), "```", "");
  return lines.join("\n");
}

/**
 * Scenario F: the single-file plugin (tools/build-plugin-binary.js, Node.js built in) against the
 * script plugin, the release's portable fallback (the bundle tools/build-plugin-archive.js puts in
 * its archive, a `#!/usr/bin/env node` script run by the `node` of PATH), and Node.js's own floor
 * (bench/fixtures/http2-floor.js, run by the same Node.js as the script: node:http2 on 127.0.0.1,
 * its port line, one gRPC unary call over h2c answered), started in turn: time to the port line and
 * to the first answered Check (after GetPluginInfo and Configure, as the engine asks). Targets: the
 * single file at most 1.5x the floor and at most 1.0x the script.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { bounded, type Figure } from "./figure";
import { askFirstCheck, askPluginInfo } from "./plugin-calls";
import { HTTP2_FLOOR, interleavedStarts, type StartCommand, type Starts } from "./plugin-start";
import { arm64Figures, arm64Unavailable, measureArm64Starts, type Arm64StartResult } from "./single-file-arm64";
import { median, round } from "./stats";
import { repoRoot } from "./workspace";

/** The two forms of the plugin a release ships. */
export type PluginForm = "single" | "script";

/** Everything scenario F measured: the starts of the two forms and of Node.js's floor, the arm64 file. */
export interface SingleFileResult extends Starts<PluginForm | "floor"> {
  /** Bytes of the executable and (when tools/build-plugin-binary.js makes one) of its archive. */
  binaryBytes: number;
  archiveBytes?: number;
  /** The linux-arm64 file under qemu-user (bench/lib/single-file-arm64.ts), or why it was not measured. */
  arm64?: Arm64StartResult | { skipped: string };
}

/** The two release forms of the plugin, built into bench/tmp/plugin: the single file and the script. */
async function buildPluginForms(): Promise<{ binary: string; archive?: string | undefined; script: string }> {
  const tools = path.join(repoRoot, "tools");
  const { buildPluginBinary } = require(path.join(tools, "build-plugin-binary.js")) as {
    buildPluginBinary: (out: string) => Promise<{ binary: string; archive?: string }>;
  };
  const { bundlePlugin } = require(path.join(tools, "build-plugin-archive.js")) as { bundlePlugin: (outfile: string) => unknown };
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
  const { buildPluginBinary } = require(path.join(repoRoot, "tools", "build-plugin-binary.js")) as {
    buildPluginBinary: (out: string) => Promise<{ binary: string }>;
  };
  const { binary } = await buildPluginBinary(path.join(repoRoot, "bench", "tmp", "plugin"));
  log(`built ${path.relative(repoRoot, binary)}`);
  return binary;
}

/** Builds both plugin forms into bench/tmp and runs scenario F; `log` gets progress lines. */
export async function runSingleFileScenario(startReps: number, log: (line: string) => void): Promise<SingleFileResult> {
  const { binary, archive, script } = await buildPluginForms();
  log(`built ${path.relative(repoRoot, binary)} and ${path.relative(repoRoot, script)}`);
  const forms = {
    single: [binary, [], askFirstCheck],
    script: [process.execPath, [script], askFirstCheck],
    floor: [process.execPath, [HTTP2_FLOOR], askPluginInfo],
  } satisfies Record<string, StartCommand>;
  const starts = await interleavedStarts<PluginForm | "floor">(forms, startReps);
  log(
    `first Check: single ${median(starts.firstCheckMs.single).toFixed(0)} ms, script ${median(starts.firstCheckMs.script).toFixed(0)} ms, floor ${median(starts.firstCheckMs.floor).toFixed(0)} ms`,
  );
  const unavailable = arm64Unavailable();
  if (unavailable) log(`linux-arm64 not measured: ${unavailable}`);
  const arm64 = unavailable ? { skipped: unavailable } : await measureArm64Starts(startReps, log);
  return { ...starts, binaryBytes: fs.statSync(binary).size, ...(archive ? { archiveBytes: fs.statSync(archive).size } : {}), arm64 };
}

/** The single file's start to its port line and to its first answered Check, at most, in multiples of Node.js's floor (medians). */
export const FLOOR_TARGET = 1.5;

/** The single file against Node.js's floor (at most {@link FLOOR_TARGET}×) or against the script (at most 1×), a median each. */
function against(name: string, single: readonly number[], other: readonly number[], floor: boolean): Figure {
  const [a, b] = [median(single), median(other)];
  const text = `${name}: single file ${round(a, 1)} ms / ${floor ? "Node.js's http2 floor" : "script"} ${round(b, 1)} ms (medians)`;
  return bounded("F", text, a / b, "≤", floor ? FLOOR_TARGET : 1);
}

/**
 * Scenario F's figures beside their targets: the single file's start to its port
 * line and to its first answered Check, each against Node.js's floor and against the script, and the
 * linux-arm64 file's first Check against its scripts-blob form.
 */
export function singleFileFigures(result: SingleFileResult): Figure[] {
  return [
    against(`start to port line (${result.startMs.single.length} starts each)`, result.startMs.single, result.startMs.floor, true),
    against(
      `start to first answered Check (${result.firstCheckMs.single.length} starts each; the floor: its one answer)`,
      result.firstCheckMs.single,
      result.firstCheckMs.floor,
      true,
    ),
    against(`start to port line (${result.startMs.single.length} starts each)`, result.startMs.single, result.startMs.script, false),
    against(`start to first answered Check (${result.firstCheckMs.single.length} starts each)`, result.firstCheckMs.single, result.firstCheckMs.script, false),
    ...(result.arm64 ? arm64Figures(result.arm64) : []),
  ];
}

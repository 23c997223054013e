#!/usr/bin/env node
/**
 * `npm run bench`: every scenario of the table in bench/lib/scenarios.ts that the full run has,
 * one after another; `npm run bench -- T F` (any names; `--help` lists them) runs exactly those.
 * Each scenario measured replaces its entry of bench/results/results.json, and results.md and the
 * figures of docs/benchmarks.md are redrawn from the whole file. `--quick` is a smoke run (small
 * sizes, one repetition) written to bench/tmp/results/ instead; `--render` redraws the pages from
 * results.json without measuring anything.
 */
import * as path from "node:path";
import { resolvePulumiToolchain, type PulumiToolchain } from "@pulumi-analytics/toolchain";
import { readResults, RESULTS_DIR, writeResults } from "./lib/report";
import type { BenchArgs, RunContext } from "./lib/figure";
import { parseBenchArgs, scenarioHelp, scenarioNamed, SCENARIOS, type Scenario } from "./lib/scenarios";
import { commitOf, loadAverage, systemInfo } from "./lib/system";
import { repoRoot } from "./lib/workspace";

/** Progress lines on stdout, each prefixed with the seconds since `started` (ms). */
function progressLog(started: number): (line: string) => void {
  return (line) => void process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${line}\n`);
}

/** Measures `scenario` and returns its entry of results.json. */
async function measure(scenario: Scenario, args: BenchArgs, log: (line: string) => void) {
  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  const loadStart = loadAverage();
  let toolchain: PulumiToolchain | undefined;
  const ctx: RunContext = {
    args,
    log: (line) => log(`${scenario.name}: ${line}`),
    toolchain: async () => (toolchain ??= await resolvePulumiToolchain({ log })),
  };
  log(`${scenario.name}: ${scenario.measures}`);
  const raw = await scenario.module.run(ctx);
  const system = systemInfo(repoRoot, toolchain?.version);
  const command = `npm run bench -- ${process.argv.slice(2).join(" ")}`.replace(/ -- $/, "");
  return {
    startedAt,
    durationS: (Date.now() - started) / 1000,
    commit: commitOf(repoRoot),
    command,
    system,
    load: { start: loadStart, end: loadAverage() },
    raw,
  };
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2));
  if (args.help) return void process.stdout.write(scenarioHelp());
  const dir = args.quick ? path.join(repoRoot, "bench", "tmp", "results") : RESULTS_DIR;
  const results = readResults(dir);
  const log = progressLog(Date.now());
  const scenarios = args.render ? [] : args.names.length > 0 ? args.names.map(scenarioNamed) : SCENARIOS.filter((s) => s.inFullRun);
  for (const scenario of scenarios) {
    results[scenario.name] = await measure(scenario, args, log);
    // Written after each scenario, so a later failure keeps what was measured.
    writeResults(dir, results);
    for (const f of scenario.module.figures(results[scenario.name]!.raw)) log(`${f.status.padEnd(4)} ${f.name}: ${f.value} (target ${f.target})`);
  }
  writeResults(dir, results);
  log(`wrote ${path.relative(repoRoot, dir)}/results.json and results.md`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

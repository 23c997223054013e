/** The unit every scenario reports (one figure beside its target) and the shape of a scenario's file. */
import type { PulumiToolchain } from "@pulumi-analytics/toolchain";

/** One reported figure of a scenario (its name in bench/lib/scenarios.ts): what is measured, the value and the target as shown ("–" and "info" for none), whether it is met. */
export interface Figure {
  scenario: string;
  name: string;
  value: string;
  target: string;
  status: "pass" | "miss" | "info";
}

/** How each status shows in a report's table. */
export const STATUS_MARK: Record<Figure["status"], string> = { pass: "✅ met", miss: "❌ missed", info: "info" };

/** Sizes given by `--plans=`: N x repetitions. */
export interface PlanArg {
  count: number;
  reps: number;
}

/** What the command line asks for. */
export interface BenchArgs {
  /** The scenarios named, each once, in the order given; empty: the full run. */
  names: string[];
  help: boolean;
  quick: boolean;
  /** `--render`: the results page and docs/benchmarks.md redrawn from results.json, nothing measured. */
  render: boolean;
  plans?: PlanArg[] | undefined;
}

/** What a scenario's run is given: the command line, progress lines, and the pinned Pulumi CLI on demand. */
export interface RunContext {
  args: BenchArgs;
  log: (line: string) => void;
  toolchain(): Promise<PulumiToolchain>;
}

/** A scenario's file (bench/scenarios/<name>.ts): how it measures, and its report rows made from what it measured. */
export interface ScenarioModule<R> {
  run(ctx: RunContext): Promise<R>;
  figures(raw: R): Figure[];
  /** Redraws a part of the docs from the scenario's committed entry (its run's start, load and raw data), if it has one. */
  docs?(entry: { startedAt: string; load: { start: number[]; end: number[] }; raw: R }): void;
}

/** A ratio as the reports show it: three decimals, so a miss by less than 1% does not read 1×. */
export const ratioText = (value: number): string => `${Math.round(value * 1000) / 1000}×`;

/** A figure of `scenario` comparing `value` with an upper (`≤`) or lower (`≥`) bound. */
export function bounded(scenario: string, name: string, value: number, bound: "≤" | "≥", limit: number): Figure {
  const met = bound === "≤" ? value <= limit : value >= limit;
  return { scenario, name, value: ratioText(value), target: `${bound} ${limit}×`, status: met ? "pass" : "miss" };
}

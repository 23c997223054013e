/** The unit every scenario reports (one figure beside its target), the shape of a scenario's file, and the blocks it writes into docs pages. */
import * as fs from "node:fs";
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
  toolchain: () => Promise<PulumiToolchain>;
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

/** A part of a docs page the bench writes, between two marker lines; `what` names it in errors. */
export interface DocBlock {
  begin: string;
  end: string;
  what: string;
}

/** `text` with the part between `block`'s markers replaced by `content`; throws when the markers are missing. */
export function withDocBlock(text: string, block: DocBlock, content: string): string {
  const begin = text.indexOf(block.begin);
  const end = text.indexOf(block.end);
  if (begin < 0 || end < begin) throw new Error(`the page has no ${block.what} markers (${block.begin} … ${block.end})`);
  return `${text.slice(0, begin + block.begin.length)}\n${content}\n${text.slice(end)}`;
}

/** Rewrites `block` of the page `file` with `content`. */
export function rewriteDocBlock(file: string, block: DocBlock, content: string): void {
  fs.writeFileSync(file, withDocBlock(fs.readFileSync(file, "utf8"), block, content));
}

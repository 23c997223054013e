/**
 * The scenarios' results (bench/results/results.json, one entry per scenario) and the two pages
 * drawn from them: bench/results/results.md and the figures block of docs/benchmarks.md. Each
 * figure comes from its scenario file's `figures`, recomputed from the raw data on every draw.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { rewriteDocBlock, STATUS_MARK, type DocBlock, type Figure } from "./figure";
import { SCENARIOS, type Scenario } from "./scenarios";
import { round } from "./stats";
import type { SystemInfo } from "./system";
import { repoRoot } from "./workspace";

/** How, when and where one scenario was measured, and what it measured. */
export interface ScenarioEntry {
  startedAt: string;
  durationS: number;
  commit: string;
  command: string;
  system: SystemInfo;
  load: { start: number[]; end: number[] };
  /** Anything the reader must know about where the figures came from. */
  note?: string;
  raw: unknown;
}

/** results.json: scenario name to its latest entry. */
export type Results = Record<string, ScenarioEntry>;

export const RESULTS_DIR = path.join(repoRoot, "bench", "results");
export const BENCHMARKS_DOC = path.join(repoRoot, "docs", "benchmarks.md");
export const DOC_FIGURES: DocBlock = {
  begin: "<!-- figures: written by `npm run bench` (bench/lib/report.ts) from bench/results/results.json; edit the generator, not the figures -->",
  end: "<!-- end of the figures -->",
  what: "figures",
};

/** results.json in `dir`, or none yet. */
export function readResults(dir: string): Results {
  const file = path.join(dir, "results.json");
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as Results) : {};
}

/** Each scenario that has an entry, in the table's order, with its figures. */
function measured(results: Results): Array<{ scenario: Scenario; entry: ScenarioEntry; figures: Figure[] }> {
  return SCENARIOS.filter((s) => results[s.name]).map((scenario) => ({
    scenario,
    entry: results[scenario.name]!,
    figures: scenario.module.figures(results[scenario.name]!.raw),
  }));
}

const targeted = (figures: Figure[]): Figure[] => figures.filter((f) => f.status !== "info");
const met = (figures: Figure[]): string => `${targeted(figures).filter((f) => f.status === "pass").length} of ${targeted(figures).length}`;
const table = (head: string[], rows: string[][]): string[] => [
  `| ${head.join(" | ")} |`,
  `|${head.map(() => "---").join("|")}|`,
  ...rows.map((r) => `| ${r.join(" | ")} |`),
];
const load = (l: number[]): string => l.map((x) => x.toFixed(2)).join(" / ");

/** A scenario's one-line account of its run: when, which commit, how, on what. */
function runLine(entry: ScenarioEntry): string {
  const { system: sys } = entry;
  const pulumi = sys.pulumiCli ? `, Pulumi CLI ${sys.pulumiCli}` : "";
  return `Measured ${entry.startedAt} at commit ${entry.commit} by \`${entry.command}\` (${round(entry.durationS / 60, 1)} min), ${sys.cpuModel} × ${sys.cpus}, Node.js ${sys.node}${pulumi}; load average ${load(entry.load.start)} at start, ${load(entry.load.end)} at end.${entry.note ? ` ${entry.note}` : ""}`;
}

/** bench/results/results.md. */
export function resultsPage(results: Results): string {
  const all = measured(results);
  const lines = [
    "# pulumi-analytics benchmarks",
    "",
    "Written by `npm run bench` from [results.json](results.json), which holds each scenario's latest run and its raw data; `npm run bench -- --render` redraws this page and the figures of [docs/benchmarks.md](../../docs/benchmarks.md) from it. Every scenario measures this package beside a peer or a floor in the same run; the targets retired, and why, are in [bench/analysis.md](../analysis.md).",
    "",
    `**${met(all.flatMap((m) => m.figures))} targets met.**`,
    "",
    ...table(
      ["Scenario", "Measures", "Measured", "Targets met"],
      all.map(({ scenario, entry, figures }) => [scenario.name, scenario.measures, `${entry.startedAt.slice(0, 10)}, ${entry.commit}`, met(figures)]),
    ),
  ];
  for (const { scenario, entry, figures } of all) {
    lines.push(
      "",
      `## ${scenario.name}`,
      "",
      runLine(entry),
      "",
      ...table(
        ["Figure", "Value", "Target", ""],
        figures.map((f) => [f.name, f.value, f.target, STATUS_MARK[f.status]]),
      ),
    );
  }
  return `${lines.join("\n")}\n`;
}

/** The figures block of docs/benchmarks.md: per scenario, when it ran and its targeted figures. */
export function docFigures(results: Results): string {
  const all = measured(results);
  return [
    `From [bench/results/results.md](../bench/results/results.md): ${met(all.flatMap((m) => m.figures))} targets met.`,
    "",
    ...table(
      ["Scenario", "Measured (commit)", "Figure", "Value", "Target", ""],
      all.flatMap(({ scenario, entry, figures }) =>
        targeted(figures).map((f) => [scenario.name, `${entry.startedAt.slice(0, 10)} (${entry.commit})`, f.name, f.value, f.target, STATUS_MARK[f.status]]),
      ),
    ),
  ].join("\n");
}

/** Writes results.json and results.md into `dir` and, for the committed results, the figures of docs/benchmarks.md. */
export function writeResults(dir: string, results: Results): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, "results.md"), resultsPage(results));
  if (path.resolve(dir) !== RESULTS_DIR) return;
  rewriteDocBlock(BENCHMARKS_DOC, DOC_FIGURES, docFigures(results));
  for (const { scenario, entry } of measured(results)) scenario.module.docs?.(entry);
}

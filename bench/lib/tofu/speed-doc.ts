/**
 * The table of docs/compared-with-rest-provider.md's speed section, written from scenario T's
 * result (bench/results/results.json) by every run that measures or redraws T, between two markers;
 * the prose around it is the page's own.
 */
import type { DocBlock } from "../figure";
import { round } from "../stats";
import { SIDE_NAMES, cpuPerCreate, engineCpuPerCreate } from "./tofu-report";
import { TOFU_SIDES, type SideRun, type StepResult, type TofuResult } from "./tofu";

/** The lines that open and close the generated table. */
export const SPEED_TABLE: DocBlock = {
  begin: "<!-- speed table: written by `npm run bench` (bench/lib/tofu/speed-doc.ts) from bench/results/results.json; edit the generator, not the table -->",
  end: "<!-- end of the speed table -->",
  what: "speed table",
};

/** When and where scenario T ran, as tofu.json records it. */
export interface SpeedMeta {
  startedAt: string;
  load: { start: number[]; end: number[] };
}

const seconds = (ms: number | undefined): string => (ms === undefined ? "–" : `${round(ms / 1000, 2)} s`);
const step = (run: SideRun | undefined, name: string): StepResult | undefined => run?.steps.find((s) => s.step === name);

/** One row: a label and a cell per side (the side's runs at N, checkpoints on and skipped). */
type Row = [string, (on: SideRun | undefined, skipped: SideRun | undefined) => string];

const ROWS: readonly Row[] = [
  ["apply / up, checkpoints on", (on) => seconds(step(on, on?.side === "tofu" ? "apply" : "up")?.ms)],
  ["up, checkpoints skipped", (on, skipped) => (on?.side === "tofu" ? "–" : seconds(step(skipped, "up")?.ms))],
  [
    "no-change `plan -refresh=false` / `preview`",
    (on, skipped) => seconds(step(on, on?.side === "tofu" ? "plan -refresh=false" : "preview")?.ms ?? step(skipped, "preview")?.ms),
  ],
  ["destroy", (on) => seconds(step(on, "destroy")?.ms)],
  [
    "CPU of every process of the apply / up (checkpoints on / skipped)",
    (on, skipped) =>
      [on, skipped]
        .filter((r) => r !== undefined)
        .map((r) => `${round(r!.steps[0]!.allCpuS, 2)} s`)
        .join(" / ") || "–",
  ],
  [
    "provider CPU per create (checkpoints on / skipped)",
    (on, skipped) =>
      [on, skipped]
        .filter((r) => r !== undefined)
        .map((r) => `${round(cpuPerCreate(r!) * 1000, 1)} ms`)
        .join(" / ") || "–",
  ],
  [
    "engine CPU per create (checkpoints on / skipped)",
    (on, skipped) =>
      [on, skipped]
        .filter((r) => r?.steps[0]?.engineCpuS !== undefined)
        .map((r) => `${round(engineCpuPerCreate(r!) * 1000, 1)} ms`)
        .join(" / ") || "–",
  ],
  [
    "state file after the first apply / up",
    (on, skipped) => {
      const bytes = (on ?? skipped)?.stateBytes;
      return bytes === undefined ? "–" : `${Math.round(bytes / 1000).toLocaleString("en-US")} KB`;
    },
  ],
];

/** The speed table of the largest N scenario T ran, every side that ran at it as a column. */
export function speedTable(result: TofuResult, meta: SpeedMeta): string {
  const n = Math.max(...result.runs.map((r) => r.count));
  const sides = TOFU_SIDES.filter((side) => result.runs.some((r) => r.count === n && r.side === side));
  const runOf = (side: string, checkpoints: boolean) => result.runs.find((r) => r.count === n && r.side === side && r.checkpoints === checkpoints);
  const load = (values: number[]) => values.map((v) => round(v, 1)).join(" ");
  const lines = [
    `Scenario T at N=${n}, each side once on a fresh reference server, from [results.json](../bench/results/results.json) (run of ${meta.startedAt.slice(0, 10)}, load average ${load(meta.load.start)} at its start and ${load(meta.load.end)} at its end; [results.md](../bench/results/results.md) has its figures beside their targets):`,
    "",
    `| N=${n} | ${sides.map((side) => SIDE_NAMES[side]).join(" | ")} |`,
    `|---|${sides.map(() => "---").join("|")}|`,
    ...ROWS.map(([label, cell]) => `| ${label} | ${sides.map((side) => cell(runOf(side, true), runOf(side, false))).join(" | ")} |`),
  ];
  return lines.join("\n");
}

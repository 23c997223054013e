import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { withDocBlock } from "../figure";
import { readResults, RESULTS_DIR } from "../report";
import { repoRoot } from "../workspace";
import { SPEED_TABLE, speedTable, type SpeedMeta } from "./speed-doc";
import type { SideRun, StepResult, TofuResult } from "./tofu";

const stepOf = (name: string, ms: number, extra: Partial<StepResult> = {}): StepResult => ({
  step: name,
  command: name,
  code: 0,
  ms,
  creates: 0,
  providerCpuS: 0,
  allCpuS: 0,
  providerPeakMiB: 0,
  errors: [],
  ...extra,
});

const runOf = (side: SideRun["side"], count: number, checkpoints: boolean, steps: StepResult[]): SideRun => ({
  side,
  count,
  checkpoints,
  steps,
  stateBytes: 1_045_000,
});

const RESULT: TofuResult = {
  versions: { opentofu: "1.10.7", restapi: "1.20.0" },
  runs: [
    runOf("tofu", 100, true, [stepOf("apply", 1390, { creates: 101, providerCpuS: 0.65, allCpuS: 1.85 })]),
    runOf("tofu", 300, true, [
      stepOf("apply", 3210, { creates: 301, providerCpuS: 1.6, allCpuS: 4.94 }),
      stepOf("plan -refresh=false", 900),
      stepOf("destroy", 2110),
    ]),
    runOf("yaml", 300, true, [stepOf("up", 31720, { creates: 301, providerCpuS: 2.5, allCpuS: 41.7 }), stepOf("preview", 2390), stepOf("destroy", 28600)]),
    runOf("yaml", 300, false, [stepOf("up", 3710, { creates: 301, providerCpuS: 2.35, allCpuS: 4.63 }), stepOf("preview", 2400)]),
  ],
};
const META = { startedAt: "2026-11-26T04:00:00.000Z", load: { start: [1.51, 2.0, 2.2], end: [2.33, 2.2, 2.24] } };

describe("the speed table of docs/compared-with-rest-provider.md", () => {
  it("holds the largest N, a column per side that ran there, each row from that side's runs", () => {
    const table = speedTable(RESULT, META);
    expect(table).toContain(
      "Scenario T at N=300, each side once on a fresh reference server, from [results.json](../bench/results/results.json) (run of 2026-11-26, load average 1.5 2 2.2 at its start and 2.3 2.2 2.2 at its end;",
    );
    expect(table).toContain("| N=300 | OpenTofu + restapi | native plugin, YAML |");
    expect(table).toContain("| apply / up, checkpoints on | 3.21 s | 31.72 s |");
    expect(table).toContain("| up, checkpoints skipped | – | 3.71 s |");
    expect(table).toContain("| no-change `plan -refresh=false` / `preview` | 0.9 s | 2.39 s |");
    expect(table).toContain("| provider CPU per create (checkpoints on / skipped) | 5.3 ms | 8.3 ms / 7.8 ms |");
    expect(table).not.toContain("1.39 s");
    expect(table).toContain("| engine CPU per create (checkpoints on / skipped) | – | – |");
  });

  it("has a column for the bridged restapi, with its engine's CPU per create", () => {
    const bridge = runOf("bridge", 300, true, [stepOf("up", 9000, { creates: 301, providerCpuS: 0.9, allCpuS: 12, engineCpuS: 6.02 })]);
    const table = speedTable({ ...RESULT, runs: [...RESULT.runs, bridge] }, META);
    expect(table).toContain("| N=300 | OpenTofu + restapi | restapi through Pulumi, YAML | native plugin, YAML |");
    expect(table).toContain("| engine CPU per create (checkpoints on / skipped) | – | 20 ms | – |");
  });

  it("is, as committed, the table of scenario T's entry of the committed bench/results/results.json (npm run bench -- --render rewrites it)", () => {
    const saved = readResults(RESULTS_DIR).T as SpeedMeta & { raw: TofuResult };
    const page = fs.readFileSync(path.join(repoRoot, "docs", "compared-with-rest-provider.md"), "utf8");
    expect(withDocBlock(page, SPEED_TABLE, speedTable(saved.raw, saved))).toBe(page);
  });
});

/** Scenario T's figures: which runs each target applies to, and against what. */
import { describe, expect, it } from "vitest";
import type { SideRun, StepResult, TofuSide } from "./tofu";
import { tofuFigures } from "./tofu-report";

/** A step taking `ms`, with `creates` creates and `cpuS` provider CPU seconds. */
const step = (name: string, ms: number, creates = 0, cpuS = 0): StepResult => ({
  step: name,
  command: name,
  code: 0,
  ms,
  creates,
  requests: {},
  summary: undefined,
  providerCpuS: cpuS,
  allCpuS: cpuS,
  providerPeakMiB: 0,
  errors: [],
  warnings: { count: 0, first: [] },
  excerpt: "",
});

/** A run of `side` at N=`count`: its up (N+1 creates, `cpuS`), then a no-change preview of `previewMs`. */
const run = (side: TofuSide, count: number, upMs: number, cpuS: number, previewMs: number, checkpoints = false): SideRun => ({
  side,
  count,
  checkpoints,
  steps: [step(side === "tofu" ? "apply" : "up", upMs, count + 1, cpuS), step(side === "tofu" ? "plan" : "preview", previewMs)],
  stateBytes: 0,
  stateObjectsAfterDestroy: 0,
  serverObjectsAfterDestroy: 0,
  secrets: { passwordInState: 0, passwordInOutput: 0, apiKeyInState: 0, apiKeyInOutput: 0 },
  crash: undefined,
});

const byName = (figures: ReturnType<typeof tofuFigures>, text: string) => figures.filter((f) => f.name.includes(text));

describe("scenario T's figures", () => {
  it("holds the plugin's CPU per create to 1.5× restapi's at N=100 and 1.2× at N=300, for every side that runs the plugin", () => {
    // restapi: 1.01 s for 101 creates at N=100 and 3.01 s for 301 at N=300, 10 ms each.
    const figures = tofuFigures({
      versions: { opentofu: "", restapi: "" },
      runs: [run("tofu", 100, 1000, 1.01, 900), run("ts-js", 100, 2000, 1.414, 1000), run("tofu", 300, 3000, 3.01, 900), run("yaml", 300, 3000, 3.913, 1000), run("dynamic", 300, 9000, 9, 5000)],
    });
    const cpu = byName(figures, "provider CPU per create");
    expect(cpu.map((f) => [f.name.match(/N=\d+/)![0], f.value, f.target, f.status])).toEqual([
      ["N=100", "1.4×", "≤ 1.5×", "pass"],
      ["N=300", "1.3×", "≤ 1.2×", "miss"],
    ]);
  });

  it("targets pulumi up at 1.25× tofu apply for YAML and 2× for a TypeScript program, checkpoints skipped from N=300", () => {
    const figures = tofuFigures({
      versions: { opentofu: "", restapi: "" },
      runs: [run("tofu", 300, 3000, 3, 900), run("yaml", 300, 3600, 3, 1000), run("ts-transpile", 300, 6300, 3, 1400), run("ts", 300, 5000, 3, 1000, true), run("dynamic", 300, 9000, 9, 5000)],
    });
    const up = byName(figures, "pulumi up").map((f) => [f.name.split(" (")[1]!.split(")")[0], f.target, f.status]);
    expect(up).toEqual([
      ["native plugin, YAML, checkpoints skipped", "≤ 1.25×", "pass"],
      ["native plugin, TypeScript SDK, transpile-only, checkpoints skipped", "≤ 2×", "miss"],
      ["native plugin, TypeScript SDK, checkpoints on", "–", "info"],
      ["dynamic classes, checkpoints skipped", "–", "info"],
    ]);
  });

  it("compares each TypeScript side's no-change preview with YAML's of the same checkpoint setting, at most 1.5×", () => {
    const figures = tofuFigures({
      versions: { opentofu: "", restapi: "" },
      runs: [run("tofu", 300, 3000, 3, 900), run("yaml", 300, 3600, 3, 2000), run("ts", 300, 9000, 3, 14000), run("ts-js", 300, 4000, 3, 2800), run("ts-js", 300, 9000, 3, 2800, true)],
    });
    expect(byName(figures, "pulumi preview").map((f) => [f.value, f.status])).toEqual([
      ["7×", "miss"],
      ["1.4×", "pass"],
    ]);
  });
});

/** Scenario T's figures: which runs each target applies to, and against what. */
import { describe, expect, it } from "vitest";
import type { SideRun, StepResult, TofuSide } from "./tofu";
import { tofuFigures } from "./tofu-report";

/** A step taking `ms`, with `creates` creates, `cpuS` provider CPU seconds and `engineCpuS` of the engine. */
const step = (name: string, ms: number, creates = 0, cpuS = 0, engineCpuS?: number): StepResult => ({
  step: name,
  command: name,
  code: 0,
  ms,
  creates,
  providerCpuS: cpuS,
  allCpuS: cpuS,
  ...(engineCpuS === undefined ? {} : { engineCpuS }),
  providerPeakMiB: 0,
  errors: [],
});

/** A run of `side` at N=`count`: its up (N+1 creates, `cpuS`), then a no-change preview of `previewMs`. */
const run = (side: TofuSide, count: number, upMs: number, cpuS: number, previewMs: number, checkpoints = false, engineCpuS?: number): SideRun => ({
  side,
  count,
  checkpoints,
  steps: [step(side === "tofu" ? "apply" : "up", upMs, count + 1, cpuS, engineCpuS), step(side === "tofu" ? "plan" : "preview", previewMs)],
  stateBytes: 0,
});

/** Scenario T's figures of `runs`. */
const figuresOf = (runs: SideRun[]) => tofuFigures({ versions: { opentofu: "", restapi: "" }, runs });
const byName = (figures: ReturnType<typeof tofuFigures>, text: string) => figures.filter((f) => f.name.includes(text));

describe("scenario T's figures", () => {
  it("holds the plugin's CPU per create to 1.2× restapi's at N=100 and 1.0× at N=300, for every side that runs the plugin", () => {
    // restapi: 1.01 s for 101 creates at N=100 and 3.01 s for 301 at N=300, 10 ms each.
    const figures = figuresOf([
      run("tofu", 100, 1000, 1.01, 900),
      run("ts", 100, 2000, 1.2119, 1000),
      run("yaml", 100, 2000, 1.213, 1000),
      run("tofu", 300, 3000, 3.01, 900),
      run("yaml", 300, 3000, 3.01, 1000),
      run("ts", 300, 3000, 3.02, 1000),
      run("dynamic", 300, 9000, 9, 5000),
    ]);
    const cpu = byName(figures, "provider CPU per create");
    expect(cpu.map((f) => [f.name.match(/N=\d+/)![0], f.value, f.target, f.status])).toEqual([
      ["N=100", "1.2×", "≤ 1.2×", "pass"],
      ["N=100", "1.2×", "≤ 1.2×", "miss"],
      ["N=300", "1×", "≤ 1×", "pass"],
      ["N=300", "1×", "≤ 1×", "miss"],
    ]);
  });

  it("targets pulumi up at 1.25× tofu apply for YAML and 2× for a TypeScript program, checkpoints skipped from N=300", () => {
    const figures = figuresOf([
      run("tofu", 300, 3000, 3, 900),
      run("yaml", 300, 3600, 3, 1000),
      run("ts", 300, 6300, 3, 1400),
      run("ts", 300, 5000, 3, 1000, true),
      run("dynamic", 300, 9000, 9, 5000),
    ]);
    const up = byName(figures, "pulumi up").map((f) => [f.name.split(" (")[1]!.split(")")[0], f.target, f.status]);
    expect(up).toEqual([
      ["native plugin, YAML, checkpoints skipped", "≤ 1.25×", "pass"],
      ["native plugin, TypeScript SDK, checkpoints skipped", "≤ 2×", "miss"],
      ["native plugin, TypeScript SDK, checkpoints on", "–", "info"],
      ["dynamic classes, checkpoints skipped", "–", "info"],
    ]);
  });

  it("compares each TypeScript side's no-change preview with YAML's of the same checkpoint setting, at most 1.5×", () => {
    const figures = figuresOf([
      run("tofu", 300, 3000, 3, 900),
      run("yaml", 300, 3600, 3, 2000),
      run("ts", 300, 9000, 3, 14000),
      run("yaml", 300, 3600, 3, 2000, true),
      run("ts", 300, 9000, 3, 2800, true),
    ]);
    expect(byName(figures, "pulumi preview").map((f) => [f.value, f.status])).toEqual([
      ["7×", "miss"],
      ["1.4×", "pass"],
    ]);
  });

  it("holds our YAML program to the bridged restapi's in up time and plugin CPU per create (≤ 1.0×), each checkpoint setting, and reports the TypeScript sides and engine CPU beside them", () => {
    const figures = figuresOf([
      run("bridge", 100, 4000, 1.01, 900, true, 8.08),
      run("bridge", 100, 1000, 0.505, 900, false, 1.01),
      run("yaml", 100, 3000, 1.212, 900, true, 6.06),
      run("yaml", 100, 1100, 0.404, 900, false),
      run("ts", 100, 5000, 1.01, 900, true, 6.06),
    ]);
    const bridge = byName(figures, "restapi through Pulumi").map((f) => [f.name.replace(/ [\d.]+ (s|ms)/g, ""), f.value, f.target, f.status]);
    expect(bridge).toEqual([
      ["pulumi up (native plugin, YAML, checkpoints on) / restapi through Pulumi, N=100", "0.75×", "≤ 1×", "pass"],
      ["provider CPU per create (native plugin, YAML, checkpoints on) / restapi through Pulumi, N=100", "1.2×", "≤ 1×", "miss"],
      ["engine CPU per create (native plugin, YAML, checkpoints on) / restapi through Pulumi, N=100", "0.75×", "–", "info"],
      ["pulumi up (native plugin, TypeScript SDK, checkpoints on) / restapi through Pulumi, N=100", "1.25×", "–", "info"],
      ["provider CPU per create (native plugin, TypeScript SDK, checkpoints on) / restapi through Pulumi, N=100", "1×", "–", "info"],
      ["engine CPU per create (native plugin, TypeScript SDK, checkpoints on) / restapi through Pulumi, N=100", "0.75×", "–", "info"],
      ["pulumi up (native plugin, YAML, checkpoints skipped) / restapi through Pulumi, N=100", "1.1×", "≤ 1×", "miss"],
      ["provider CPU per create (native plugin, YAML, checkpoints skipped) / restapi through Pulumi, N=100", "0.8×", "≤ 1×", "pass"],
    ]);
    // Without tofu at that N, no figure against tofu apply; the bridged side never has a target against it.
    expect(byName(figures, "tofu apply")).toEqual([]);
  });
});

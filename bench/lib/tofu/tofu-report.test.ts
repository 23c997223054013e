/** Scenario T's figures: which runs each target applies to, and against what. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { SideRun, StepResult, TofuSide } from "./tofu";
import { filesBelow, switchFigures, switchTable, type SwitchRun } from "./backend-switches";
import { tofuCliVersions, tofuFigures } from "./tofu-report";

/** A step taking `ms`, with `creates` creates, `cpuS` provider CPU seconds and `engineCpuS` of the engine. */
const step = (name: string, ms: number, creates = 0, cpuS = 0, engineCpuS?: number): StepResult => ({
  step: name,
  command: name,
  code: 0,
  ms,
  creates,
  requests: {},
  summary: undefined,
  providerCpuS: cpuS,
  allCpuS: cpuS,
  ...(engineCpuS === undefined ? {} : { engineCpuS }),
  providerPeakMiB: 0,
  errors: [],
  warnings: { count: 0, first: [] },
  excerpt: "",
});

/** A run of `side` at N=`count`: its up (N+1 creates, `cpuS`), then a no-change preview of `previewMs`. */
const run = (side: TofuSide, count: number, upMs: number, cpuS: number, previewMs: number, checkpoints = false, engineCpuS?: number): SideRun => ({
  side,
  count,
  checkpoints,
  steps: [step(side === "tofu" ? "apply" : "up", upMs, count + 1, cpuS, engineCpuS), step(side === "tofu" ? "plan" : "preview", previewMs)],
  stateBytes: 0,
  stateObjectsAfterDestroy: 0,
  serverObjectsAfterDestroy: 0,
  secrets: { passwordInState: 0, passwordInOutput: 0, apiKeyInState: 0, apiKeyInOutput: 0 },
  crash: undefined,
});

const byName = (figures: ReturnType<typeof tofuFigures>, text: string) => figures.filter((f) => f.name.includes(text));

describe("the CLIs of a T result", () => {
  const on = (r: SideRun, cli: string): SideRun => ({ ...r, engine: { name: cli === "3.200.0" ? "pinned" : "newest", cli, home: cli === "3.200.0" ? "fresh" : "kept" } });
  it.each([
    ["both engines, in the order they ran", [run("tofu", 100, 1, 1, 1), on(run("yaml", 100, 1, 1, 1), "3.200.0"), on(run("ts", 100, 1, 1, 1), "3.200.0"), on(run("yaml", 100, 1, 1, 1), "3.274.1")], ["3.200.0", "3.274.1"]],
    ["the newest alone", [run("tofu", 100, 1, 1, 1), on(run("yaml", 100, 1, 1, 1), "3.274.1")], ["3.274.1"]],
    ["runs recorded before they named their CLI", [run("tofu", 100, 1, 1, 1), run("yaml", 100, 1, 1, 1)], []],
  ])("%s", (_, runs, versions) => {
    expect(tofuCliVersions({ versions: { opentofu: "", restapi: "" }, runs })).toEqual(versions);
  });
});

describe("scenario T's figures", () => {
  it("compares each engine's Pulumi sides with OpenTofu's and with that engine's bridged restapi alone, naming its CLI and PULUMI_HOME", () => {
    const on = (r: SideRun, name: "pinned" | "newest", cli: string, home: "fresh" | "kept"): SideRun => ({ ...r, engine: { name, cli, home } });
    const figures = tofuFigures({
      versions: { opentofu: "", restapi: "" },
      runs: [
        run("tofu", 100, 1000, 1.01, 900),
        on(run("bridge", 100, 3000, 2.02, 1000), "pinned", "3.200.0", "fresh"),
        on(run("yaml", 100, 2000, 1.515, 1000), "pinned", "3.200.0", "fresh"),
        on(run("bridge", 100, 3000, 1.01, 1000), "newest", "3.274.1", "kept"),
        on(run("yaml", 100, 2000, 1.01, 1000), "newest", "3.274.1", "kept"),
      ],
    });
    const cpu = byName(figures, "provider CPU per create, N=100: our plugin");
    expect(cpu.map((f) => [f.name.includes("Pulumi 3.200.0 with a fresh PULUMI_HOME"), f.name.includes("Pulumi 3.274.1 with a kept PULUMI_HOME"), f.value, f.status])).toEqual([
      [true, false, "1.5×", "miss"],
      [false, true, "1×", "pass"],
    ]);
    // Against the bridged restapi of its own engine only: 15 / 20 ms (pinned) and 10 / 10 ms (newest).
    const bridged = byName(figures, "/ restapi through Pulumi").filter((f) => f.name.startsWith("provider CPU per create ("));
    expect(bridged.map((f) => [f.name.includes("Pulumi 3.200.0"), f.value])).toEqual([
      [true, "0.75×"],
      [false, "1×"],
    ]);
  });

  it("holds the plugin's CPU per create to 1.2× restapi's at N=100 and 1.0× at N=300, for every side that runs the plugin", () => {
    // restapi: 1.01 s for 101 creates at N=100 and 3.01 s for 301 at N=300, 10 ms each.
    const figures = tofuFigures({
      versions: { opentofu: "", restapi: "" },
      runs: [
        run("tofu", 100, 1000, 1.01, 900),
        run("ts-js", 100, 2000, 1.2119, 1000),
        run("yaml", 100, 2000, 1.213, 1000),
        run("tofu", 300, 3000, 3.01, 900),
        run("yaml", 300, 3000, 3.01, 1000),
        run("ts", 300, 3000, 3.02, 1000),
        run("dynamic", 300, 9000, 9, 5000),
      ],
    });
    const cpu = byName(figures, "provider CPU per create");
    expect(cpu.map((f) => [f.name.match(/N=\d+/)![0], f.value, f.target, f.status])).toEqual([
      ["N=100", "1.2×", "≤ 1.2×", "pass"],
      ["N=100", "1.2×", "≤ 1.2×", "miss"],
      ["N=300", "1×", "≤ 1×", "pass"],
      ["N=300", "1×", "≤ 1×", "miss"],
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

  it("holds our YAML program to the bridged restapi's in up time and plugin CPU per create (≤ 1.0×), each checkpoint setting, and reports the TypeScript sides and engine CPU beside them", () => {
    const figures = tofuFigures({
      versions: { opentofu: "", restapi: "" },
      runs: [
        run("bridge", 100, 4000, 1.01, 900, true, 8.08),
        run("bridge", 100, 1000, 0.505, 900, false, 1.01),
        run("yaml", 100, 3000, 1.212, 900, true, 6.06),
        run("yaml", 100, 1100, 0.404, 900, false),
        run("ts-js", 100, 5000, 1.01, 900, true, 6.06),
      ],
    });
    const bridge = byName(figures, "restapi through Pulumi").map((f) => [f.name.replace(/ [\d.]+ (s|ms)/g, ""), f.value, f.target, f.status]);
    expect(bridge).toEqual([
      ["pulumi up (native plugin, YAML, checkpoints on) / restapi through Pulumi, N=100", "0.75×", "≤ 1×", "pass"],
      ["provider CPU per create (native plugin, YAML, checkpoints on) / restapi through Pulumi, N=100", "1.2×", "≤ 1×", "miss"],
      ["engine CPU per create (native plugin, YAML, checkpoints on) / restapi through Pulumi, N=100", "0.75×", "–", "info"],
      ["pulumi up (native plugin, TypeScript SDK compiled to JavaScript, checkpoints on) / restapi through Pulumi, N=100", "1.25×", "–", "info"],
      ["provider CPU per create (native plugin, TypeScript SDK compiled to JavaScript, checkpoints on) / restapi through Pulumi, N=100", "1×", "–", "info"],
      ["engine CPU per create (native plugin, TypeScript SDK compiled to JavaScript, checkpoints on) / restapi through Pulumi, N=100", "0.75×", "–", "info"],
      ["pulumi up (native plugin, YAML, checkpoints skipped) / restapi through Pulumi, N=100", "1.1×", "≤ 1×", "miss"],
      ["provider CPU per create (native plugin, YAML, checkpoints skipped) / restapi through Pulumi, N=100", "0.8×", "≤ 1×", "pass"],
    ]);
    // Without tofu at that N, no figure against tofu apply; the bridged side never has a target against it.
    expect(byName(figures, "tofu apply")).toEqual([]);
  });
});

describe("the DIY backend switches", () => {
  const switchRun = (backend: SwitchRun["backend"], setting: SwitchRun["setting"], ms: number, code = 0): SwitchRun => ({ backend, setting, count: 300, code, ms, creates: 301, engineCpuS: 1, allCpuS: 2, backendBytes: 1_234_567 });
  const runs = [switchRun("file", "none", 20000), switchRun("file", "PULUMI_DIY_BACKEND_GZIP", 25000), switchRun("file", "PULUMI_SKIP_CHECKPOINTS", 2000), switchRun("s3", "none", 40000), switchRun("s3", "PULUMI_DIY_BACKEND_DISABLE_CHECKPOINT_BACKUPS", 30000, 255)];

  it("reports each switch's up against the up without one on the same backend, none for a failed run", () => {
    expect(switchFigures(runs).map((f) => [f.name, f.value, f.status])).toEqual([
      ["pulumi up (native plugin, YAML, file://) with PULUMI_DIY_BACKEND_GZIP=true 25 s / without 20 s, N=300", "1.25×", "info"],
      ["pulumi up (native plugin, YAML, file://) with PULUMI_SKIP_CHECKPOINTS=true 2 s / without 20 s, N=300", "0.1×", "info"],
    ]);
  });

  it("tables every run with its ratio, or – when it or the up without a switch failed", () => {
    const table = switchTable(runs);
    expect(table[0]).toBe("## The DIY backend's switches, N=300, checkpoints on");
    expect(table).toContain("| file:// | `PULUMI_DIY_BACKEND_GZIP=true` | 0 | 25 s | 1.25× | 301 | 1 s | 2 s | 1,234,567 | – |");
    expect(table).toContain("| s3:// | `PULUMI_DIY_BACKEND_DISABLE_CHECKPOINT_BACKUPS=true` | 255 | 30 s | – | 301 | 1 s | 2 s | 1,234,567 | – |");
    expect(switchTable([])).toEqual([]);
  });
});

describe("a backend's files", () => {
  it("lists them relative to its root with timestamps as <n>, sorted, without the file driver's .attrs, none for a missing directory", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "backend-files-"));
    try {
      fs.mkdirSync(path.join(dir, ".pulumi", "history", "p", "s"), { recursive: true });
      fs.writeFileSync(path.join(dir, ".pulumi", "history", "p", "s", "s-1764230000123456789.checkpoint.json"), "{}");
      fs.writeFileSync(path.join(dir, ".pulumi", "s.json.gz"), "");
      fs.writeFileSync(path.join(dir, ".pulumi", "s.json.gz.attrs"), "{}");
      expect(filesBelow(dir)).toEqual([".pulumi/history/p/s/s-<n>.checkpoint.json", ".pulumi/s.json.gz"]);
      expect(filesBelow(path.join(dir, "missing"))).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

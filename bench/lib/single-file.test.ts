import { describe, expect, it } from "vitest";
import type { EnginePlan } from "./engine";
import { singleFileFigures, singleFileMarkdown, type SingleFileResult } from "./single-file";

const forms = (single: number[], script: number[], floor: number[]) => ({ single, script, unbundled: script, floor });

/** A result with the given medians (single, script, floor); everything the figures do not read is empty. */
function result(startMs: [number, number, number], checkMs: [number, number, number], upMs: [number, number]): SingleFileResult {
  const plan: EnginePlan = { count: 100, reps: 1, skipCheckpoints: false };
  return {
    startMs: forms([startMs[0]], [startMs[1]], [startMs[2]]),
    startRssMiB: forms([1], [1], [1]),
    startAnonMiB: forms([1], [1], [1]),
    firstCheckMs: forms([checkMs[0]], [checkMs[1]], [checkMs[2]]),
    firstCheckCpuMs: forms([1], [1], [1]),
    binaryBytes: 0,
    archiveBytes: 0,
    up: { runs: [{ plan, upMs: { single: [upMs[0]], script: [upMs[1]] }, providerPeakMiB: { single: [1], script: [1] }, providerAnonPeakMiB: { single: [1], script: [1] } }], footprints: {}, commands: {} } as unknown as SingleFileResult["up"],
  };
}

describe("scenario F's figures", () => {
  it("holds the single file to 1.5x Node.js's http2 floor, to its port line and to its first answered Check", () => {
    const met = singleFileFigures(result([60, 100, 40], [150, 200, 100], [1000, 1000])).slice(0, 2);
    const missed = singleFileFigures(result([60.1, 100, 40], [150.1, 200, 100], [1000, 1000])).slice(0, 2);
    expect(met.map((f) => [f.value, f.target, f.status])).toEqual([["1.5×", "≤ 1.5×", "pass"], ["1.5×", "≤ 1.5×", "pass"]]);
    expect(met[1]!.name).toContain("single file 150 ms / Node.js's http2 floor 100 ms");
    expect(missed.map((f) => f.status)).toEqual(["miss", "miss"]);
  });

  it("shows a run without the floor (older JSON) against the retired absolute targets, as retired", () => {
    const old = result([72, 100, 0], [90, 100, 0], [1000, 1000]);
    for (const times of [old.startMs, old.firstCheckMs]) delete (times as Partial<typeof times>).floor;
    const [start, check] = singleFileFigures(old);
    expect([start, check].map((f) => [f!.value, f!.target, f!.status])).toEqual([["72 ms", "≤ 40 ms", "retired"], ["90 ms", "≤ 60 ms", "retired"]]);
  });

  it("writes a ratio against the script to three decimals, so a miss by less than 1% does not read 1×", () => {
    const [, , start, check, up] = singleFileFigures(result([72, 100, 50], [50, 100, 40], [11604.3, 11555.4]));
    expect([start, check, up].map((f) => [f!.value, f!.status])).toEqual([["0.72×", "pass"], ["0.5×", "pass"], ["1.004×", "miss"]]);
  });

  it("puts the floor's medians and the single file over the floor beside the start rows of single-file.md", () => {
    const md = singleFileMarkdown(result([60, 100, 40], [160, 200, 100], [1000, 1000]), { startedAt: "t", durationS: 60, system: {} }, "npm run bench -- F");
    expect(md).toContain("| start to port line (1 starts each) | 60 ms | 100 ms | 0.6x | met | 100 ms | 40 ms | 1.5x (≤ 1.5x: met) |");
    expect(md).toMatch(/\| start to first answered Check [^|]*\| 160 ms \| 200 ms \| 0\.8x \| met \| 200 ms \| 100 ms \| 1\.6x \(≤ 1\.5x: missed\) \|/);
    expect(md).toContain("| `pulumi up`, N=100 (1 each) | 1000 ms | 1000 ms | 1x | met | – | – | – |");
  });
});

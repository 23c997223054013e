import { describe, expect, it } from "vitest";
import type { EnginePlan } from "./engine";
import { singleFileFigures, type SingleFileResult } from "./single-file";

const forms = (single: number[], script: number[]) => ({ single, script, unbundled: script });

/** A result with the given medians; everything the figures do not read is empty. */
function result(startMs: [number, number], checkMs: [number, number], upMs: [number, number]): SingleFileResult {
  const plan: EnginePlan = { count: 100, reps: 1, skipCheckpoints: false };
  return {
    startMs: forms([startMs[0]], [startMs[1]]),
    startRssMiB: forms([], []),
    startAnonMiB: forms([], []),
    firstCheckMs: forms([checkMs[0]], [checkMs[1]]),
    firstCheckCpuMs: forms([], []),
    binaryBytes: 0,
    archiveBytes: 0,
    up: { runs: [{ plan, upMs: { single: [upMs[0]], script: [upMs[1]] } }], footprints: {}, commands: {} } as unknown as SingleFileResult["up"],
  };
}

describe("scenario F's figures", () => {
  it("holds the single file to 40 ms to its port line and 60 ms to its first answered Check", () => {
    const met = singleFileFigures(result([40, 50], [60, 70], [1000, 1000])).slice(0, 2);
    const missed = singleFileFigures(result([40.1, 50], [60.1, 70], [1000, 1000])).slice(0, 2);
    expect(met.map((f) => [f.value, f.target, f.status])).toEqual([["40 ms", "≤ 40 ms", "pass"], ["60 ms", "≤ 60 ms", "pass"]]);
    expect(missed.map((f) => f.status)).toEqual(["miss", "miss"]);
  });

  it("writes a ratio against the script to three decimals, so a miss by less than 1% does not read 1×", () => {
    const [, , start, check, up] = singleFileFigures(result([72, 100], [50, 100], [11604.3, 11555.4]));
    expect([start, check, up].map((f) => [f!.value, f!.status])).toEqual([["0.72×", "pass"], ["0.5×", "pass"], ["1.004×", "miss"]]);
  });
});

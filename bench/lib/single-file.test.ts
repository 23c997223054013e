import { describe, expect, it } from "vitest";
import type { EnginePlan } from "./engine";
import { singleFileFigures, type SingleFileResult } from "./single-file";

const forms = (single: number[], script: number[], floor: number[]) => ({ single, script, floor });

/** A result with the given medians (single, script, floor); everything the figures do not read is empty. */
function result(startMs: [number, number, number], checkMs: [number, number, number], upMs: [number, number]): SingleFileResult {
  const plan: EnginePlan = { count: 100, reps: 1, skipCheckpoints: false };
  return {
    startMs: forms([startMs[0]], [startMs[1]], [startMs[2]]),
    firstCheckMs: forms([checkMs[0]], [checkMs[1]], [checkMs[2]]),
    binaryBytes: 0,
    up: { runs: [{ plan, upMs: { single: [upMs[0]], script: [upMs[1]] }, upRequests: [], providerPeakMiB: { single: [1], script: [1] } }], commands: { up: "" } },
  };
}

describe("scenario F's figures", () => {
  it("holds the single file to 1.5x Node.js's http2 floor, to its port line and to its first answered Check", () => {
    const met = singleFileFigures(result([60, 100, 40], [150, 200, 100], [1000, 1000])).slice(0, 2);
    const missed = singleFileFigures(result([60.1, 100, 40], [150.1, 200, 100], [1000, 1000])).slice(0, 2);
    expect(met.map((f) => [f.value, f.target, f.status])).toEqual([["1.5×", "≤ 1.5×", "pass"], ["1.5×", "≤ 1.5×", "pass"]]);
    expect(met[1]!.name).toContain("single file 150 ms / Node.js's http2 floor 100 ms");
    expect(singleFileFigures(result([60, 100, 40], [150, 200, 100], [1000, 1000])).slice(2).map((f) => f.target)).toEqual(["≤ 1×", "≤ 1×", "≤ 1×"]);
    expect(missed.map((f) => f.status)).toEqual(["miss", "miss"]);
  });

  it("writes a ratio against the script to three decimals, so a miss by less than 1% does not read 1×", () => {
    const [, , start, check, up] = singleFileFigures(result([72, 100, 50], [50, 100, 40], [11604.3, 11555.4]));
    expect([start, check, up].map((f) => [f!.value, f!.status])).toEqual([["0.72×", "pass"], ["0.5×", "pass"], ["1.004×", "miss"]]);
  });
});

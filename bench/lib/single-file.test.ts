import { describe, expect, it } from "vitest";
import { singleFileFigures, type SingleFileResult } from "./single-file";

const forms = (single: number[], script: number[], floor: number[]) => ({ single, script, floor });

/** A result with the given medians (single, script, floor) of the start to the port line and to the first answered Check. */
function result(startMs: [number, number, number], checkMs: [number, number, number]): SingleFileResult {
  return { startMs: forms([startMs[0]], [startMs[1]], [startMs[2]]), firstCheckMs: forms([checkMs[0]], [checkMs[1]], [checkMs[2]]), binaryBytes: 0 };
}

describe("scenario F's figures", () => {
  it("holds the single file to 1.5x Node.js's http2 floor, to its port line and to its first answered Check", () => {
    const met = singleFileFigures(result([60, 100, 40], [150, 200, 100])).slice(0, 2);
    const missed = singleFileFigures(result([60.1, 100, 40], [150.1, 200, 100])).slice(0, 2);
    expect(met.map((f) => [f.value, f.target, f.status])).toEqual([
      ["1.5×", "≤ 1.5×", "pass"],
      ["1.5×", "≤ 1.5×", "pass"],
    ]);
    expect(met[1]!.name).toContain("single file 150 ms / Node.js's http2 floor 100 ms");
    expect(missed.map((f) => f.status)).toEqual(["miss", "miss"]);
  });

  it("holds it to the script at most 1×, to three decimals, so a miss by less than 1% does not read 1×", () => {
    const [, , start, check] = singleFileFigures(result([72, 100, 50], [100.4, 100, 40]));
    expect([start, check].map((f) => [f!.value, f!.target, f!.status])).toEqual([
      ["0.72×", "≤ 1×", "pass"],
      ["1.004×", "≤ 1×", "miss"],
    ]);
    expect(check!.name).toContain("single file 100.4 ms / script 100 ms");
  });

  it("says why the linux-arm64 file was not measured, beside the target it could not check", () => {
    const figures = singleFileFigures({ ...result([60, 100, 40], [150, 200, 100]), arm64: { skipped: "it runs on linux-x64 only" } });
    expect(figures.at(-1)).toEqual({
      scenario: "F",
      name: "linux-arm64 under qemu-user: not measured",
      value: "it runs on linux-x64 only",
      target: "≤ 0.6×",
      status: "info",
    });
  });
});

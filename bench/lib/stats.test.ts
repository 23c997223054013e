import { describe, expect, it } from "vitest";
import { median, pairedRatio } from "./stats";

describe("paired ratios", () => {
  it("takes the median of each repetition's own ratio, not the ratio of two medians", () => {
    // A machine that slows down between repetitions: each pair ran back to back at 0.9×.
    const ours = [90, 180, 270];
    const base = [100, 200, 300];
    expect(pairedRatio(ours, base)).toBeCloseTo(0.9, 10);
    expect(pairedRatio([1, 10, 3], [1, 5, 1])).toBe(2);
    expect(median([1, 10, 3]) / median([1, 5, 1])).toBe(3);
  });

  it("refuses lists of different lengths and an empty median", () => {
    expect(() => pairedRatio([1, 2], [1])).toThrow(/differ in length/);
    expect(() => median([])).toThrow(/empty list/);
  });
});

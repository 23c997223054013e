import { describe, expect, it } from "vitest";
import { medianInterval } from "./stats";

describe("medianInterval", () => {
  it("takes the 4th smallest and 4th largest of 15 values at 95% (coverage 96.5%)", () => {
    const values = Array.from({ length: 15 }, (_, i) => 15 - i); // unsorted on purpose
    const interval = medianInterval(values)!;
    expect([interval.low, interval.high]).toEqual([4, 12]);
    expect(interval.coverage).toBeCloseTo(1 - 2 * (1 + 15 + 105 + 455) / 2 ** 15, 10);
  });

  it("needs 6 values for 95% and gives the extremes there", () => {
    expect(medianInterval([1, 2, 3, 4, 5])).toBeUndefined();
    const interval = medianInterval([6, 1, 5, 2, 4, 3])!;
    expect([interval.low, interval.high]).toEqual([1, 6]);
    expect(interval.coverage).toBeCloseTo(1 - 2 / 64, 10);
  });
});

import { describe, expect, it } from "vitest";
import { isoTime } from "./iso-time";

describe("isoTime", () => {
  it("is toISOString, one string per millisecond", () => {
    const first = isoTime(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)));
    expect(first).toBe("2026-01-02T03:04:05.678Z");
    expect(isoTime(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)))).toBe(first);
    expect(isoTime(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 679)))).toBe("2026-01-02T03:04:05.679Z");
    // Back to an earlier time: formatted again, never a stale string.
    expect(isoTime(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)))).toBe("2026-01-02T03:04:05.678Z");
  });

  it("throws for an invalid date, as toISOString does, and keeps working after", () => {
    expect(() => isoTime(new Date(Number.NaN))).toThrow(RangeError);
    expect(isoTime(new Date(0))).toBe("1970-01-01T00:00:00.000Z");
  });
});

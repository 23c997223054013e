import { describe, expect, it } from "vitest";
import { ARM64_SNAPSHOT_TARGET, arm64Figures, type Arm64StartResult } from "./single-file-arm64";

/** A result whose medians are the given first-Check times (snapshot, scripts blob, floor). */
function result(snapshot: number, scripts: number, floor: number): Arm64StartResult {
  const forms = { snapshot: [snapshot - 1, snapshot, snapshot + 1], scripts: [scripts, scripts, scripts], floor: [floor, floor, floor] };
  return { startMs: forms, firstCheckMs: forms };
}

describe("scenario F's linux-arm64 part", () => {
  it("holds the released file's first Check to the scripts-blob file's times the target, met at the bound and missed past it", () => {
    const [met] = arm64Figures(result(ARM64_SNAPSHOT_TARGET * 1000, 1000, 500));
    const [missed] = arm64Figures(result(ARM64_SNAPSHOT_TARGET * 1000 + 1, 1000, 500));
    expect(met).toMatchObject({ scenario: "F", value: "0.6×", target: "≤ 0.6×", status: "pass" });
    expect(missed?.status).toBe("miss");
    expect(met?.name).toContain("600 ms / from the scripts blob 1000 ms");
  });
});

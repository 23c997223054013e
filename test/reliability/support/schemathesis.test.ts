import { describe, expect, it } from "vitest";
import { parseSchemathesisSummary } from "./schemathesis";

/** The closing lines of two real runs: one clean, one that found failures. */
const CLEAN = `Test Phases:
  ⏭  Examples
  ✅ Coverage

Test cases:
  654 generated, 654 passed, 4 skipped

Seed: 1

========================== No issues found in 19.72s ===========================
`;
const FAILED = `Failures:
  ❌ ST101 Server error: 7
  ❌ ST205 Allow header mismatch: 2
  ❌ ST202 Schema-valid request rejected: 12

For more information, run \`st explain <code>\` for ST101, ST202, ST205.

Test cases:
  703 generated, 19 found 22 unique failures, 4 skipped

Seed: 1

============================ 22 failures in 26.12s =============================
`;

describe("parseSchemathesisSummary", () => {
  it.each([
    ["a clean run", CLEAN, { generated: 654, passed: 654, failures: [], clean: true }],
    [
      "a run with failures",
      FAILED,
      {
        generated: 703,
        passed: 0,
        failures: ["ST101 Server error: 7", "ST205 Allow header mismatch: 2", "ST202 Schema-valid request rejected: 12"],
        clean: false,
      },
    ],
  ])("reads %s", (_label, output, summary) => {
    expect(parseSchemathesisSummary(output)).toEqual(summary);
  });

  it("refuses output with no summary rather than reading it as clean", () => {
    expect(() => parseSchemathesisSummary("Traceback (most recent call last):\n  ...")).toThrow(/no test-case summary/);
  });
});

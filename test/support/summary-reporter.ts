import * as fs from "node:fs";
import * as path from "node:path";
import type { Reporter, TestModule } from "vitest/node";

/** What a run's summary holds; tools/test-tiers.js reads it from `$ANALYTICS_TEST_REPORT`. */
export interface RunReport {
  passed: number;
  failed: number;
  skipped: number;
  /** Each test file with its tier (its vitest project) and duration, slowest first. */
  files: Array<{ file: string; project: string; ms: number; state: string }>;
}

/** The counts and per-file durations of a finished run. */
export function runReport(testModules: ReadonlyArray<TestModule>, root: string): RunReport {
  const report: RunReport = { passed: 0, failed: 0, skipped: 0, files: [] };
  for (const module of testModules) {
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if (state === "passed") report.passed++;
      else if (state === "failed") report.failed++;
      else report.skipped++;
    }
    report.files.push({
      file: path.relative(root, module.moduleId),
      project: module.project.name,
      ms: Math.round(module.diagnostic().duration),
      state: module.state(),
    });
  }
  report.files.sort((a, b) => b.ms - a.ms);
  return report;
}

/**
 * Ends the run with one plain `Tests: N passed, N failed, N skipped` line that any CI log reader
 * understands; writes the counts and per-file durations as JSON to `$ANALYTICS_TEST_REPORT` when
 * set (tools/test-tiers.js prints the slowest files of all tiers from them).
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const report = runReport(testModules, process.cwd());
    const out = process.env.ANALYTICS_TEST_REPORT;
    if (out) fs.writeFileSync(out, JSON.stringify(report));
    const text = `Tests: ${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped\n`;
    // The default reporter prints its summary after this hook; print ours once it is out.
    process.once("exit", () => process.stdout.write(text));
  }
}

import type { Reporter, TestModule } from "vitest/node";

/** Ends the run with one plain `Tests: N passed, N failed, N skipped` line that any CI log reader understands. */
export default class SummaryReporter implements Reporter {
  private line = "";

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") counts.passed++;
        else if (state === "failed") counts.failed++;
        else counts.skipped++;
      }
    }
    this.line = `Tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`;
    // The default reporter prints its summary after this hook; print ours once it is out.
    process.once("exit", () => process.stdout.write(`${this.line}\n`));
  }
}

/**
 * The release folder of this checkout, made once per test run however many test files ask for it,
 * by the release workflow itself: the first asker runs it with act on a tag push
 * (test/support/release-run.ts) under a cross-process lock, and the folder is the build job's
 * artifact (`npm run release` on the Linux x64 runner); the others wait and reuse it. A run is
 * one `vitest run` or every tier of one `npm test` (test/support/test-run.js); whoever made the
 * run's id removes the folder when the run ends.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { withLock } from "../../toolchain/src/go-build";
import { readReleaseRun, runReleaseWorkflow, type ReleaseRun } from "./release-run";
import { currentRunId, runFolder } from "./test-run.js";

/** This test run's release run, made on first use. */
export async function sharedReleaseRun(log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Promise<ReleaseRun> {
  const dir = path.join(runFolder(currentRunId()), "release-run");
  const marker = path.join(dir, ".complete");
  if (!fs.existsSync(marker)) {
    await withLock(
      `${dir}.lock`,
      log,
      async () => {
        if (fs.existsSync(marker)) return;
        const started = Date.now();
        fs.rmSync(dir, { recursive: true, force: true });
        fs.mkdirSync(dir, { recursive: true });
        await runReleaseWorkflow(dir, log);
        fs.writeFileSync(marker, "");
        log(`[release] the release folder is ready (${Math.round((Date.now() - started) / 1000)} s)`);
      },
      "the release folder",
    );
  }
  return readReleaseRun(dir);
}

/** The path of this test run's release folder (the build job's artifact), made on first use. */
export async function sharedReleaseFolder(log?: (line: string) => void): Promise<string> {
  return (await sharedReleaseRun(log)).folder;
}

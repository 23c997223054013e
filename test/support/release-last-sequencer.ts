/**
 * The order in which one `vitest run` hands its files to the workers: vitest's own (failed first,
 * then the slowest of the last run, else the largest file), except that the files which read the
 * release folder (test/support/release-folder.ts, imported directly or through a support module)
 * come last, and when there are any, the folder starts building at once, in the background: the
 * workers spend those minutes on the other files instead of waiting on its lock, and each reader
 * waits only for what is left of the build (or tries again, failing with the build's error).
 */
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { sharedReleaseFolder } from "./release-folder";
import { releaseReaders } from "./release-readers";
import { TEST_RUN_MARKER } from "./test-run.js";
import { TIERS } from "../tiers.js";

/** Whether `spec`'s tier may build (the unit tier never does). */
function mayBuild(spec: TestSpecification): boolean {
  return TIERS.find((tier) => tier.name === spec.project.name)?.engine === true;
}

/** Starts building the run's release folder; its readers wait on the build's lock. */
function buildReleaseFolderEarly(): void {
  sharedReleaseFolder().catch((err: unknown) => {
    process.stderr.write(`[release] building the release folder failed; its readers will try again: ${err instanceof Error ? err.message : String(err)}\n`);
  });
}

export default class ReleaseLastSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { others, readers } = releaseReaders(await super.sort(files), (spec) => spec.moduleId);
    if (readers.some(mayBuild) && process.env[TEST_RUN_MARKER]) buildReleaseFolderEarly();
    return [...others, ...readers];
  }
}

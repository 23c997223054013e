// @ts-check
/**
 * One test run's identity and its shared folder. A run is one `vitest run`, or every tier of one
 * `node tools/test-tiers.js` (so `npm test`), which passes one id to all of its tiers: what a run
 * builds once and shares (the release folder, test/support/release-folder.ts) is then built once
 * for the whole of `npm test`, and removed by whoever made the id when the run ends.
 */
"use strict";
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

/**
 * Name of the variable holding the run's id. Every process the suite starts inherits it, which is
 * how test/support/leftover-processes.ts finds those still alive. Deliberately neither `PULUMI_*`
 * nor `ANALYTICS_*`: the workspaces and the demo test strip those prefixes from the environment
 * they pass on.
 */
const TEST_RUN_MARKER = "TEST_RUN_PULUMI_ANALYTICS";

/** A fresh id for one run. @returns {string} */
function newRunId() {
  return `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/** The id of the run this process belongs to; throws when there is none (not started by vitest). @returns {string} */
function currentRunId() {
  const runId = process.env[TEST_RUN_MARKER];
  if (!runId) throw new Error(`${TEST_RUN_MARKER} is not set: run the tests with vitest, whose global setup sets it`);
  return runId;
}

/** The folder holding what the run `runId` builds once and shares. @param {string} runId */
function runFolder(runId) {
  return path.join(os.tmpdir(), `pulumi-analytics-run-${runId}`);
}

/** Where a run loads the reference server's image in podman (test/support/reference-image.ts). */
const IMAGE_REPOSITORY = "localhost/analytics-reference-server";

/** The tag of the run's linux/amd64 image (`-arm64` appended for the arm64 one). @param {string} runId */
function runImageTag(runId) {
  return `run-${runId}`;
}

/**
 * Removes the run's shared folder, its locks, and the images it loaded into podman, if any (no
 * podman, or no image, is nothing to remove).
 * @param {string} runId
 */
function removeRunFolder(runId) {
  fs.rmSync(runFolder(runId), { recursive: true, force: true });
  for (const lock of [".lock", ".image.lock"]) fs.rmSync(`${runFolder(runId)}${lock}`, { recursive: true, force: true });
  const tag = `${IMAGE_REPOSITORY}:${runImageTag(runId)}`;
  spawnSync("podman", ["rmi", "--ignore", tag, `${tag}-arm64`], { stdio: "ignore" });
}

module.exports = { IMAGE_REPOSITORY, TEST_RUN_MARKER, currentRunId, newRunId, runFolder, runImageTag, removeRunFolder };

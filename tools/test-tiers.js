#!/usr/bin/env node
// @ts-check
/**
 * Runs the tiers of test/tiers.js in order, each as one `vitest run --project <tier>` with as many
 * workers as the machine has cores, going on after a failed tier so one run shows every failure;
 * all of them as one test run (test/support/test-run.js), so what one tier builds once the others reuse.
 * Ends with each tier's time, the ten slowest files of the whole run, and one plain
 * `Tests: N passed, N failed, N skipped` line; exits 1 when any tier failed.
 * Usage: node tools/test-tiers.js [tier ...]   (default: every tier)
 */
"use strict";
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { TIERS } = require("../test/tiers.js");
const { TEST_RUN_MARKER, newRunId, removeRunFolder } = require("../test/support/test-run.js");

/** Workers per tier: the machine's cores (measured: 2 on 2 cores keeps the engine tiers inside their timeouts). */
const WORKERS = Math.max(1, os.availableParallelism());

/** @typedef {import("../test/support/summary-reporter").RunReport} RunReport What each tier's summary reporter writes. */

/**
 * Runs one tier as part of the run `runId`; returns its report (undefined when vitest wrote none) and whether it passed.
 * @param {string} name
 * @param {string} runId
 * @returns {{ report: RunReport | undefined, ok: boolean, seconds: number }}
 */
function runTier(name, runId) {
  const reportFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-analytics-tier-")), "report.json");
  const started = Date.now();
  process.stdout.write(`\n[tiers] ${name}: vitest run --project ${name} with ${WORKERS} worker(s)\n`);
  const vitest = path.join(__dirname, "..", "node_modules", "vitest", "vitest.mjs");
  const result = spawnSync(process.execPath, [vitest, "run", "--project", name, `--maxWorkers=${WORKERS}`, `--minWorkers=1`], {
    stdio: "inherit",
    env: { ...process.env, ANALYTICS_TEST_REPORT: reportFile, [TEST_RUN_MARKER]: runId },
  });
  const report = fs.existsSync(reportFile) ? /** @type {RunReport} */ (JSON.parse(fs.readFileSync(reportFile, "utf8"))) : undefined;
  fs.rmSync(path.dirname(reportFile), { recursive: true, force: true });
  return { report, ok: result.status === 0 && report !== undefined, seconds: (Date.now() - started) / 1000 };
}

function main() {
  const names = process.argv.slice(2);
  const tiers = names.length > 0 ? TIERS.filter((t) => names.includes(t.name)) : TIERS;
  if (tiers.length !== (names.length || TIERS.length)) throw new Error(`unknown tier in ${names.join(", ")}; tiers: ${TIERS.map((t) => t.name).join(", ")}`);
  // One run for every tier: what a tier builds once (the release folder) the next ones reuse.
  const runId = newRunId();
  let results;
  try {
    results = tiers.map((tier) => ({ name: tier.name, ...runTier(tier.name, runId) }));
  } finally {
    removeRunFolder(runId);
  }
  const files = results.flatMap((r) => r.report?.files ?? []).sort((a, b) => b.ms - a.ms);
  const total = { passed: 0, failed: 0, skipped: 0 };
  for (const { report } of results) for (const key of /** @type {const} */ (["passed", "failed", "skipped"])) total[key] += report?.[key] ?? 0;
  const lines = ["", "| Tier | Result | Wall time |", "|---|---|---:|"];
  for (const r of results) lines.push(`| ${r.name} | ${r.ok ? "passed" : r.report ? "failed" : "no report (vitest did not finish)"} | ${r.seconds.toFixed(0)} s |`);
  lines.push("", "| Slowest test files | Duration |", "|---|---:|", ...files.slice(0, 10).map((f) => `| ${f.file} | ${(f.ms / 1000).toFixed(1)} s |`));
  lines.push(`Tests: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
  process.stdout.write(`${lines.join("\n")}\n`);
  process.exitCode = results.every((r) => r.ok) ? 0 : 1;
}

main();

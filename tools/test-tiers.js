#!/usr/bin/env node
// @ts-check
/**
 * Runs the tiers of test/tiers.js asked for (every one by default) in two vitest runs: the unit
 * tier alone, its files sharing each worker's loaded modules (`--no-isolate`, {@link runsOf}), then the
 * others as one `vitest run --project engine --project languages --project release`, so that no core
 * idles while one tier's last file ends before the next tier may start. The files go to the workers in vitest's
 * order (the slowest of the last run first, by vitest's record of it, which vitest.config.ts keeps in
 * the project's cache folder so that a fresh clone on the same machine has it too; else the largest
 * first), the readers of the release folder last (test/support/release-last-sequencer.ts): the folder
 * starts building as the run begins, made by the release workflow itself under act
 * (test/support/release-run.ts), so the cores run the other files meanwhile. There are as many
 * workers as the machine has cores; what one file builds once (the release folder,
 * test/support/test-run.js) the others reuse. Node.js's compile cache (`NODE_COMPILE_CACHE`, in the cache folder of the
 * toolchain) serves every process the tests start, which loads the same modules hundreds of times,
 * Maven's JVM runs with C1 alone and the serial collector (`MAVEN_OPTS`, {@link MAVEN_OPTS}), and Go's
 * collector in the CLI, its language hosts and every other Go program runs less often (`GOGC`, {@link GOGC}).
 * Ends with each tier's summed file time and each run's wall time, the ten slowest files of the
 * whole run, and one plain `Tests: N passed, N failed, N skipped` line; exits 1 when any failed.
 * With `--typecheck`, `npm run typecheck` runs beside the tests, on the cores they leave idle while
 * the run starts, rather than before them; its output is printed at the end, and its failure fails
 * the run.
 * Usage: node tools/test-tiers.js [--typecheck] [tier ...]   (default: every tier)
 */
"use strict";
const { spawn, spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { TIERS } = require("../test/tiers.js");
const { TEST_RUN_MARKER, newRunId, removeRunFolder } = require("../test/support/test-run.js");
const { cacheRoot } = require("./lib/node-runtime.js");

/**
 * Workers per run: the machine's cores. One more kept 2 cores busier (93% against 88%) but each
 * process then took more CPU for the same work (a fresh-clone run on 2 cores: 3,065 s of CPU against
 * 2,400 to 2,560 s with 2 workers, and 1,598 s of wall time against 1,475 to 1,498 s), so no run was faster.
 */
const WORKERS = Math.max(1, os.availableParallelism());

/**
 * The JVM options of every Maven the tests start (the Java SDK's build, its publishing, the Java
 * program under pulumi-language-java), unless MAVEN_OPTS is set: each runs for seconds, in which
 * C2's compiler threads and G1's cost more than they give (measured: `mvn compile` of a small
 * project, 5.2 s of CPU with the defaults against 2.9 s with these).
 */
const MAVEN_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";

/**
 * Go's garbage collector target for every Go program the tests start (the Pulumi CLI, its language
 * hosts, the KMS and S3 servers, `go build`), unless GOGC is set: each CLI run lasts about a second
 * and spends part of it collecting a heap it is about to drop (measured: `pulumi stack export`,
 * 15 runs each in alternation, 0.30 s of CPU with the default 100 against 0.24 s with 400).
 */
const GOGC = "400";

/**
 * The vitest runs for `tiers`, in order: each tier without isolation alone (test/tiers.js), then the
 * others as one run. vitest takes isolation for a whole run, and a run without it runs one tier's
 * files only once the last tier's have all ended.
 * @param {readonly import("../test/tiers.js").Tier[]} tiers
 * @returns {{ names: string[], isolate: boolean }[]}
 */
function runsOf(tiers) {
  const alone = tiers.filter((t) => !t.isolate).map((t) => ({ names: [t.name], isolate: false }));
  const together = tiers.filter((t) => t.isolate).map((t) => t.name);
  return [...alone, ...(together.length > 0 ? [{ names: together, isolate: true }] : [])];
}

/** @typedef {import("../test/support/summary-reporter").RunReport} RunReport What each run's summary reporter writes. */
/** @typedef {{ tiers: string[], report: RunReport | undefined, ok: boolean, seconds: number }} RunResult */

/**
 * Runs the tiers `names` as one vitest run (with a fork per file when `isolate`), part of the test
 * run `runId`; returns its report (undefined when vitest wrote none) and whether it passed.
 * @param {{ names: string[], isolate: boolean }} run
 * @param {string} runId
 * @returns {RunResult}
 */
function runTiers({ names, isolate }, runId) {
  const reportFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-analytics-tier-")), "report.json");
  const started = Date.now();
  const projects = names.flatMap((name) => ["--project", name]);
  process.stdout.write(`\n[tiers] ${names.join(" + ")}: vitest run ${projects.join(" ")} with ${WORKERS} worker(s)\n`);
  const vitest = path.join(__dirname, "..", "node_modules", "vitest", "vitest.mjs");
  const compileCache = process.env.NODE_COMPILE_CACHE ?? path.join(cacheRoot(), "node-compile-cache");
  const env = {
    ...process.env,
    ANALYTICS_TEST_REPORT: reportFile,
    [TEST_RUN_MARKER]: runId,
    NODE_COMPILE_CACHE: compileCache,
    MAVEN_OPTS: process.env.MAVEN_OPTS ?? MAVEN_OPTS,
    GOGC: process.env.GOGC ?? GOGC,
  };
  const result = spawnSync(process.execPath, [vitest, "run", ...projects, ...(isolate ? [] : ["--no-isolate"]), `--maxWorkers=${WORKERS}`, `--minWorkers=1`], {
    stdio: "inherit",
    env,
  });
  const report = fs.existsSync(reportFile) ? /** @type {RunReport} */ (JSON.parse(fs.readFileSync(reportFile, "utf8"))) : undefined;
  fs.rmSync(path.dirname(reportFile), { recursive: true, force: true });
  return { tiers: names, report, ok: result.status === 0 && report !== undefined, seconds: (Date.now() - started) / 1000 };
}

/** The closing tables: each tier's summed file time, each run's wall time, the slowest files. @param {RunResult[]} results */
function summary(results) {
  const files = results.flatMap((r) => r.report?.files ?? []).sort((a, b) => b.ms - a.ms);
  const lines = ["", "| Tier | Files | Summed file time |", "|---|---:|---:|"];
  for (const tier of results.flatMap((r) => r.tiers)) {
    const own = files.filter((f) => f.project === tier);
    lines.push(`| ${tier} | ${own.length} | ${(own.reduce((sum, f) => sum + f.ms, 0) / 1000).toFixed(0)} s |`);
  }
  lines.push("", "| Run | Result | Wall time |", "|---|---|---:|");
  for (const r of results)
    lines.push(`| ${r.tiers.join(" + ")} | ${r.ok ? "passed" : r.report ? "failed" : "no report (vitest did not finish)"} | ${r.seconds.toFixed(0)} s |`);
  lines.push("", "| Slowest test files | Duration |", "|---|---:|", ...files.slice(0, 10).map((f) => `| ${f.file} | ${(f.ms / 1000).toFixed(1)} s |`));
  return lines;
}

/**
 * Starts `npm run typecheck` (with the npm running this script, else `npm` on PATH), its output into
 * a file, and resolves with whether it passed and what it printed.
 * @returns {Promise<{ ok: boolean, output: string }>}
 */
function startTypecheck() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-analytics-typecheck-"));
  const log = path.join(dir, "typecheck.log");
  const fd = fs.openSync(log, "w");
  const npm = process.env.npm_execpath;
  const [command, args] = npm ? [process.execPath, [npm, "run", "--silent", "typecheck"]] : ["npm", ["run", "--silent", "typecheck"]];
  const child = spawn(command, args, { cwd: path.join(__dirname, ".."), stdio: ["ignore", fd, fd] });
  fs.closeSync(fd);
  return new Promise((resolve) => {
    const done = (/** @type {boolean} */ ok, /** @type {string} */ why = "") => {
      const output = `${fs.readFileSync(log, "utf8")}${why}`;
      fs.rmSync(dir, { recursive: true, force: true });
      resolve({ ok, output });
    };
    child.on("error", (error) => done(false, `could not start npm run typecheck: ${error.message}\n`));
    child.on("close", (code) => done(code === 0));
  });
}

async function main() {
  const typecheckFlag = process.argv.includes("--typecheck");
  const names = process.argv.slice(2).filter((arg) => arg !== "--typecheck");
  const tiers = names.length > 0 ? TIERS.filter((t) => names.includes(t.name)) : TIERS;
  if (tiers.length !== (names.length || TIERS.length)) throw new Error(`unknown tier in ${names.join(", ")}; tiers: ${TIERS.map((t) => t.name).join(", ")}`);
  const typecheck = typecheckFlag ? startTypecheck() : undefined;
  // One test run (test/support/test-run.js) across the vitest runs: the release folder is built once for all its files.
  const runId = newRunId();
  let results;
  try {
    results = runsOf(tiers).map((run) => runTiers(run, runId));
  } finally {
    removeRunFolder(runId);
  }
  const total = { passed: 0, failed: 0, skipped: 0 };
  for (const { report } of results) for (const key of /** @type {const} */ (["passed", "failed", "skipped"])) total[key] += report?.[key] ?? 0;
  const checked = await typecheck;
  const lines = summary(results);
  if (checked) lines.push("", checked.ok ? "Type-check (npm run typecheck): passed" : `Type-check (npm run typecheck): failed\n${checked.output.trimEnd()}`);
  lines.push(`Tests: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
  process.stdout.write(`${lines.join("\n")}\n`);
  process.exitCode = results.every((r) => r.ok) && (checked?.ok ?? true) ? 0 : 1;
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});

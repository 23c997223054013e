// @ts-check
/**
 * The test suite's tiers, in the order `npm test` runs them (tools/test-tiers.js), each a vitest
 * project of vitest.config.ts, with the folder of test/ named after it. A file belongs to the first
 * tier whose globs match it; `unit` takes the rest. test/tiers.test.ts holds every file to exactly
 * one tier and keeps the unit tier off the engine. What each tier runs: docs/maintainers/tests.md,
 * "The tiers"; the unit tier needs no Pulumi CLI, no Go build, no network and no database.
 */
"use strict";

/** Every test file of the suite. */
const ALL = [
  "src/**/*.test.ts",
  "toolchain/src/**/*.test.ts",
  "demo/**/*.test.ts",
  "test/**/*.test.ts",
  "examples/testing-recipe/**/*.test.ts",
  "bench/lib/**/*.test.ts",
];

/**
 * @typedef {object} Tier
 * @property {"unit" | "engine" | "languages" | "release"} name
 * @property {string[]} include Globs of its files (unit: every file no other tier takes).
 * @property {boolean} engine Whether its global setup resolves the Pulumi CLI (and builds it when missing).
 * @property {boolean} newestEngine Whether it also resolves the newest CLI of the compatibility tier.
 * @property {boolean} isolate Whether each of its files gets a fork of its own. The unit tier's files run
 *   one after another in each worker, sharing its loaded modules: a fork and a fresh module graph
 *   per file cost more than most of those files' tests (`npm run test:unit` on 2 cores: 65 s and
 *   109 s of CPU with a fork per file, 40 s and 59 s without). A file that changes what later files
 *   load or see puts it back when it ends (test/third-kind.test.ts).
 */

/*
 * A tier is its folder: test/engine/, test/languages/ and test/release/ hold the tests of those
 * tiers, and the files flat in test/ (and beside their sources in src/, toolchain/ and bench/lib/)
 * are unit tests. Outside those folders, only these take a tier other than unit:
 * - test/reliability/: the reliability campaign (engine tier), a folder of its own because
 *   `npm run test:campaign` runs it with its own config (test/reliability/vitest.campaign.config.ts);
 * - test/support/{s3-server,test-postgres,kms-server}.test.ts: tests of the services test/support/
 *   starts, kept beside the modules they test;
 * - demo/ and examples/testing-recipe/: suites that live with the programs they run;
 * - toolchain/src/pulumi-cli.test.ts: builds both engines, kept beside the module it tests.
 */
const RELEASE = ["test/release/**/*.test.ts"];
const LANGUAGES = ["test/languages/**/*.test.ts", "toolchain/src/pulumi-cli.test.ts"];
const ENGINE = [
  "test/engine/**/*.test.ts",
  "test/reliability/**/*.test.ts",
  "test/support/{s3-server,test-postgres,kms-server}.test.ts",
  "demo/**/*.test.ts",
  "examples/testing-recipe/**/*.test.ts",
];

/** @type {readonly Tier[]} */
const TIERS = [
  { name: "unit", include: ALL, engine: false, newestEngine: false, isolate: false },
  { name: "engine", include: ENGINE, engine: true, newestEngine: false, isolate: true },
  { name: "languages", include: LANGUAGES, engine: true, newestEngine: true, isolate: true },
  { name: "release", include: RELEASE, engine: true, newestEngine: true, isolate: true },
];

/** The globs a tier leaves out: the unit tier leaves out every other tier's files. @param {Tier} tier */
function excludedBy(tier) {
  return tier.name === "unit" ? [...ENGINE, ...LANGUAGES, ...RELEASE] : [];
}

module.exports = { ALL, TIERS, excludedBy };

/**
 * Setup file of the engine tier (vitest.config.ts): what a user who installed `pulumi` and
 * `pulumi-analytics` has, for examples/testing-recipe's suite, which drives the Automation API as
 * that recipe tells users to. The CLI global setup resolved goes first on the worker's PATH (the
 * Automation API runs the `pulumi` on PATH), and NODE_PATH lends the provider processes a
 * `pulumi-analytics` that resolves to this checkout: a stack's serialized providers load the
 * package by name, and the checkout is not in its own node_modules. The link lives in the run's
 * shared folder (test/support/test-run.js), removed when the run ends.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { inject } from "vitest";
import { toolchainPathDirs } from "../../toolchain/src/pulumi-cli";
import { repoRoot } from "./pulumi-workspace";
import { TEST_RUN_MARKER, runFolder } from "./test-run.js";

process.env.PATH = [...toolchainPathDirs(inject("pulumiToolchain")), process.env.PATH ?? ""].join(path.delimiter);

const modules = path.join(runFolder(process.env[TEST_RUN_MARKER] ?? "unmarked"), "node-path");
fs.mkdirSync(modules, { recursive: true });
try {
  fs.symlinkSync(repoRoot, path.join(modules, "pulumi-analytics"), "dir");
} catch (error) {
  if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
}
process.env.NODE_PATH = [modules, process.env.NODE_PATH].filter(Boolean).join(path.delimiter);

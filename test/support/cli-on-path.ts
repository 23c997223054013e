/**
 * Setup file of the engine tier (vitest.config.ts): the CLI its global setup resolved goes first on
 * the worker's PATH, as a user with an installed `pulumi` has it. examples/testing-recipe's suite
 * drives the Automation API, which runs the `pulumi` on PATH, as that recipe tells users to install.
 */
import * as path from "node:path";
import { inject } from "vitest";
import { toolchainPathDirs } from "../../toolchain/src/pulumi-cli";

process.env.PATH = [...toolchainPathDirs(inject("pulumiToolchain")), process.env.PATH ?? ""].join(path.delimiter);

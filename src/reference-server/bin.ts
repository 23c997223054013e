#!/usr/bin/env node
import * as nodeModule from "node:module";
import type { CliOutput } from "./cli";

// Node 22.1 and later can keep compiled code on disk between runs, which shortens every later
// start; on older versions there is no such function and nothing changes. Called before the
// server's modules load, so they are the ones cached.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const { closeOnSignal, runCli } = require("./cli") as typeof import("./cli");

const out: CliOutput = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

runCli(process.argv.slice(2), out).then(
  async (result) => {
    if (result.kind === "exit") process.exit(result.code);
    const code = await closeOnSignal(result.server, process, out);
    process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);

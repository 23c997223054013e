#!/usr/bin/env node
import { closeOnSignal, runCli, type CliOutput } from "./cli";

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

/**
 * What `analytics-reference-server` does when it starts: runs the command line on the process's
 * arguments and environment, and exits with its code, or once a server it started has closed on
 * SIGINT or SIGTERM. bin.ts runs it, and so does the single file's start-up snapshot
 * (snapshot-entry.ts) once deserialized; both read the arguments and the environment only here.
 */
import { closeOnSignal, runCli, type CliOutput } from "./cli";

export function runReferenceServer(): void {
  const out: CliOutput = {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  };
  runCli(process.argv.slice(2), out, process.env).then(
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
}

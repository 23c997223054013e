/**
 * What `pulumi-resource-analytics` does when it starts: print its version, or serve the engine
 * until the engine closes its stdin, SIGINT or SIGTERM. bin.ts runs it, and so does the single
 * file's start-up snapshot (snapshot-entry.ts) once deserialized; both read the arguments and the
 * environment only here, when the process starts.
 */
import * as fs from "node:fs";
import { limitPluginMemory } from "./memory";

/** Whether stdin is a pipe, whose end means the engine has gone (a terminal or /dev/null says nothing). */
function stdinIsPipe(): boolean {
  try {
    return fs.fstatSync(0).isFIFO() || fs.fstatSync(0).isSocket();
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  if (process.argv.includes("--version")) {
    const { pluginVersion } = await import("./provider");
    process.stdout.write(`${pluginVersion()} (Node.js ${process.version})\n`);
    return;
  }
  limitPluginMemory();
  // Loaded after the V8 settings: node:http2 and the bindings allocate enough to grow the young
  // generation past its first semi-spaces if they load before --semi-space-growth-factor=1 is set.
  const [{ startPluginServer }, { NativeProvider }] = await Promise.all([import("./pulumi-service"), import("./provider")]);
  const engineAddress = process.argv.slice(2).find((arg) => !arg.startsWith("-"));
  const server = await startPluginServer(new NativeProvider(), { engineAddress });
  const stop = (): void => {
    void server.shutdown().then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  if (stdinIsPipe()) {
    process.stdin.on("end", stop);
    process.stdin.on("error", stop);
    process.stdin.resume();
  }
  process.stdout.write(`${server.port}\n`);
}

/** Runs the plugin; a failure to start is one line on stderr and exit code 1. */
export function runPlugin(): void {
  main().catch((error: unknown) => {
    process.stderr.write(`error: the analytics provider could not start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}

#!/usr/bin/env node
/**
 * `pulumi-resource-analytics`: the native provider plugin. The engine starts it (with its own
 * address as argument, where notices are logged), reads the port from the first line of stdout and
 * speaks gRPC to it. The plugin exits when the engine closes its stdin, on SIGINT or SIGTERM.
 */
import * as fs from "node:fs";
import * as v8 from "node:v8";
import { startPluginServer } from "./grpc-server";
import { NativeProvider } from "./provider";

/**
 * V8 settings that keep the plugin's peak memory low, set before the first create loads the HTTP
 * client. undici parses responses with WebAssembly, whose optimizing tier compiles in a burst of
 * about 30 MiB; the baseline tier is ample for small JSON answers. A young generation that does not
 * grow past its first 1 MiB semi-spaces costs a few more short collections, not 14 MiB.
 */
const V8_FLAGS = ["--liftoff-only", "--semi-space-growth-factor=1"];

/** Whether stdin is a pipe, whose end means the engine has gone (a terminal or /dev/null says nothing). */
function stdinIsPipe(): boolean {
  try {
    return fs.fstatSync(0).isFIFO() || fs.fstatSync(0).isSocket();
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  for (const flag of V8_FLAGS) v8.setFlagsFromString(flag);
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

main().catch((error: unknown) => {
  process.stderr.write(`error: the analytics provider could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

#!/usr/bin/env node
/**
 * `pulumi-resource-analytics`: the native provider plugin. The engine starts it (with its own
 * address as argument, where notices are logged), reads the port from the first line of stdout and
 * speaks gRPC to it. The plugin exits when the engine closes its stdin, on SIGINT or SIGTERM.
 * `pulumi-resource-analytics --version` prints the version and the Node.js it runs on, e.g.
 * `0.1.0 (Node.js v24.21.0)` (for the single file, the one built into it), and exits.
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
  const [{ startPluginServer }, { NativeProvider }] = await Promise.all([import("./grpc-server"), import("./provider")]);
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

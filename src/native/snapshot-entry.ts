/**
 * The entry of the single file's V8 start-up snapshot (tools/lib/start-up-snapshot.js). Run once, when
 * the single file is built: it loads what every command needs (the gRPC service, the protobuf
 * messages, the provider and its shared check, diff and create logic) and runs a Check of each kind,
 * so that the contract's zod schemas are built, then names {@link runPlugin} as what the single
 * file runs when it starts. node:http2 and the HTTP client (undici) cannot be held in a snapshot:
 * they load when the server starts and at the first create, as in bin.ts. Nothing here opens a
 * handle or reads the arguments or the environment.
 */
import * as v8 from "node:v8";
// The built-ins node:http2 and the server's listen load that can be held in a start-up snapshot:
// held in it, they are not compiled and run again when the server starts. (node:http, node:tls
// and node:http2 itself cannot be held, and load when the server starts.) node:cluster, which
// listen loads, and node:child_process, which it loads, Node.js has not verified in snapshots:
// the plugin never forks, and cluster takes the primary's part without NODE_UNIQUE_ID, absent
// when the snapshot is built and when the engine starts the plugin.
import "node:assert";
import "node:child_process";
import "node:cluster";
import "node:crypto";
import "node:dns";
import "node:fs/promises";
import * as net from "node:net";
import "node:os";
import "node:stream";
import { allKindSpecs, nativeTypeToken } from "../kinds";
import { loadBindings } from "./pulumi-service";
import { runPlugin } from "./plugin-main";
import { NativeProvider } from "./provider";

/** A Check of each kind with no inputs: its failures are the point, the schemas they need are built. */
async function warm(): Promise<void> {
  loadBindings();
  // The server's listen on 127.0.0.1 asks whether its address is an IPv6 link-local one: the
  // first such question compiles node:net's IPv6 pattern.
  net.isIPv6("127.0.0.1");
  const provider = new NativeProvider(() => undefined);
  for (const spec of allKindSpecs()) await provider.check(`urn:pulumi:snapshot::snapshot::${nativeTypeToken(spec)}::warm`, {});
}

v8.startupSnapshot.setDeserializeMainFunction(runPlugin);
warm().catch((error: unknown) => {
  process.stderr.write(`error: the plugin's start-up snapshot could not be built: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});

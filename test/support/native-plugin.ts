/**
 * The built native plugin (`dist/native/bin.js`, run `npm run build` first) started as the engine
 * starts it, a stand-in for the engine's Engine service that keeps every Log request, and unary
 * calls as promises: what the gRPC tests of the plugin share.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { EngineService } from "@pulumi/pulumi/proto/engine_grpc_pb";
import type { LogRequest } from "@pulumi/pulumi/proto/engine_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";

/** The built plugin's entry point. */
export const PLUGIN_BIN = path.resolve(__dirname, "..", "..", "dist", "native", "bin.js");

/** A running plugin process and a client connected to it. */
export interface Plugin {
  child: ChildProcessWithoutNullStreams;
  client: ResourceProviderClient;
  /** The port it printed. */
  port: number;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** One Log request the plugin sent to the engine. */
export interface EngineLogEntry {
  severity: number;
  message: string;
  urn: string;
}

/** A stand-in for the engine's Engine service: keeps every Log request. */
export async function startEngine(): Promise<{ address: string; logs: EngineLogEntry[]; close(): void }> {
  const logs: EngineLogEntry[] = [];
  const server = new grpc.Server();
  server.addService(EngineService, {
    log: (call: { request: LogRequest }, callback: (error: null, response: Empty) => void) => {
      logs.push({ severity: call.request.getSeverity(), message: call.request.getMessage(), urn: call.request.getUrn() });
      callback(null, new Empty());
    },
  } as never);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  return { address: `127.0.0.1:${port}`, logs, close: () => server.forceShutdown() };
}

/** Starts the plugin with `engineAddress` as its argument; ANALYTICS_* settings cleared unless `env` sets them. */
export function startPlugin(engineAddress: string, nodeOptions: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Plugin> {
  return startPluginCommand([process.execPath, ...nodeOptions, PLUGIN_BIN, engineAddress], env);
}

/** Starts the plugin of the command line `argv` (the single file, say), as {@link startPlugin} does. */
export async function startPluginCommand([command, ...args]: [string, ...string[]], env: NodeJS.ProcessEnv = {}): Promise<Plugin> {
  const child = spawn(command, args, {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ANALYTICS_API_KEY: "", ANALYTICS_BASE_URL: "", ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes("\n")) resolve(stdout.split("\n")[0]!);
    });
    child.on("exit", () => reject(new Error(`plugin exited: ${stderr}`)));
  });
  if (!/^\d+$/.test(port)) throw new Error(`the plugin printed ${JSON.stringify(port)} instead of a port`);
  const client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), { "grpc.max_receive_message_length": 400 * 1024 * 1024 });
  return { child, client, port: Number(port), stderr: () => stderr, exited };
}

/** One unary call as a promise; `deadlineMs` bounds it (a call past it fails DEADLINE_EXCEEDED). */
export function call<Req, Res>(client: ResourceProviderClient, method: string, request: Req, deadlineMs?: number): Promise<Res> {
  return new Promise((resolve, reject) => {
    const options = deadlineMs === undefined ? {} : { deadline: Date.now() + deadlineMs };
    (client as unknown as Record<string, (r: Req, m: grpc.Metadata, o: grpc.CallOptions, cb: (e: grpc.ServiceError | null, res: Res) => void) => void>)[
      method
    ]!.call(client, request, new grpc.Metadata(), options, (error, response) => (error ? reject(error) : resolve(response)));
  });
}

/** A property map as the engine sends it. */
export const struct = (values: Record<string, unknown>): Struct => Struct.fromJavaScript(values as never);

/**
 * The ResourceProvider gRPC service of `pulumi-resource-analytics`: each method decodes its
 * request, calls {@link NativeProvider} and encodes the answer. Errors go back as a gRPC status
 * with the message alone (no stack); methods the provider has no use for answer UNIMPLEMENTED, so
 * the engine falls back. The gRPC library and the bindings are @pulumi/pulumi's own.
 */
import { createRequire } from "node:module";
import type * as Grpc from "@grpc/grpc-js";
import type * as EmptyProto from "google-protobuf/google/protobuf/empty_pb";
import type * as StructProto from "google-protobuf/google/protobuf/struct_pb";
import type * as EngineGrpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import type * as EngineProto from "@pulumi/pulumi/proto/engine_pb";
import type * as PluginProto from "@pulumi/pulumi/proto/plugin_pb";
import type * as ProviderGrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import type * as ProviderProto from "@pulumi/pulumi/proto/provider_pb";
import { notifyOnStderr } from "../provider-core/notices";
import { pluginVersion, type NativeProvider, type ProviderLog } from "./provider";
import type { PropertyMap } from "./property-values";

/** The modules the service needs, loaded from where @pulumi/pulumi finds them, so they are the bindings' own copies. */
interface Bindings {
  grpc: typeof Grpc;
  empty: typeof EmptyProto;
  struct: typeof StructProto;
  plugin: typeof PluginProto;
  service: typeof ProviderGrpc;
  proto: typeof ProviderProto;
  engine: typeof EngineGrpc;
  engineProto: typeof EngineProto;
}

/**
 * Each binding's module id, and the same module required by its literal name: the plugin archive's
 * bundle (tools/build-plugin-archive.js) carries those inside itself, where no @pulumi/pulumi is
 * installed to load them from.
 */
const BINDING_MODULES: { [K in keyof Bindings]: readonly [id: string, bundled: () => Bindings[K]] } = {
  grpc: ["@grpc/grpc-js", () => require("@grpc/grpc-js")],
  empty: ["google-protobuf/google/protobuf/empty_pb", () => require("google-protobuf/google/protobuf/empty_pb")],
  struct: ["google-protobuf/google/protobuf/struct_pb", () => require("google-protobuf/google/protobuf/struct_pb")],
  plugin: ["@pulumi/pulumi/proto/plugin_pb", () => require("@pulumi/pulumi/proto/plugin_pb")],
  service: ["@pulumi/pulumi/proto/provider_grpc_pb", () => require("@pulumi/pulumi/proto/provider_grpc_pb")],
  proto: ["@pulumi/pulumi/proto/provider_pb", () => require("@pulumi/pulumi/proto/provider_pb")],
  engine: ["@pulumi/pulumi/proto/engine_grpc_pb", () => require("@pulumi/pulumi/proto/engine_grpc_pb")],
  engineProto: ["@pulumi/pulumi/proto/engine_pb", () => require("@pulumi/pulumi/proto/engine_pb")],
};

function loadBindings(): Bindings {
  let fromPulumi: NodeRequire | undefined;
  try {
    fromPulumi = createRequire(require.resolve("@pulumi/pulumi/package.json"));
  } catch {
    // The bundled plugin: no installed @pulumi/pulumi, the modules are inside the bundle.
  }
  const entries = Object.entries(BINDING_MODULES).map(([name, [id, bundled]]) => [name, fromPulumi ? fromPulumi(id) : bundled()]);
  return Object.fromEntries(entries) as Bindings;
}

/** The methods the engine falls back from when they answer UNIMPLEMENTED. */
const UNIMPLEMENTED = ["handshake", "parameterize", "diffConfig", "invoke", "call", "construct", "list", "getMapping", "getMappings"] as const;

/** A running plugin server. */
export interface PluginServer {
  /** The port on 127.0.0.1 the engine connects to. */
  port: number;
  /**
   * Answers new calls UNAVAILABLE, waits for the calls in flight however long they take (a create
   * the service may already have done must reach the engine), then closes the server once their
   * answers are written, or {@link FLUSH_GRACE_MS} later at most.
   */
  shutdown(): Promise<void>;
}

/**
 * How long shutdown waits, after the last call in flight is answered, for the connections to close
 * by themselves: writing an answer takes far less, and the engine, whose connection does not close
 * gracefully, is waiting for the plugin to exit.
 */
export const FLUSH_GRACE_MS = 50;

/**
 * The calls being answered. {@link close} refuses new ones and resolves when the last one is
 * answered: the provider's HTTP client bounds each call with its request timeouts, and the engine
 * kills a plugin that has not exited 5 s after its interrupt.
 */
class CallsInFlight {
  private pending = new Set<Promise<unknown>>();
  /** Whether {@link close} was called. */
  closed = false;

  /** Counts `call` in flight until it settles. */
  track(call: Promise<unknown>): void {
    const settled: Promise<unknown> = call.then(
      () => this.pending.delete(settled),
      () => this.pending.delete(settled),
    );
    this.pending.add(settled);
  }

  /** Refuses new calls; resolves once every call in flight has settled. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.pending.size > 0) await Promise.all(this.pending);
  }
}

/** Waits for the calls in flight, then closes `server` once their answers are written, or {@link FLUSH_GRACE_MS} later. */
async function closeAfterCalls(server: Grpc.Server, calls: CallsInFlight): Promise<void> {
  await calls.close();
  await new Promise<void>((resolve) => {
    const flushed = (): void => {
      clearTimeout(timer);
      server.forceShutdown();
      resolve();
    };
    const timer = setTimeout(flushed, FLUSH_GRACE_MS);
    server.tryShutdown(flushed);
  });
}

type Callback = (error: Partial<Grpc.StatusObject> | null, value?: unknown) => void;
type Call = { request: unknown };

/** Options of {@link startPluginServer}. */
export interface PluginServerOptions {
  /** The engine's address (the plugin's first argument): notices go to its log, shown under each resource. */
  engineAddress?: string | undefined;
}

/**
 * A {@link ProviderLog} writing to the engine's log at `address`: the engine hides what a native
 * plugin writes to stderr. A notice the engine does not take goes to stderr instead.
 */
function engineLog(b: Bindings, address: string): { log: ProviderLog; close(): void } {
  const client = new b.engine.EngineClient(address, b.grpc.credentials.createInsecure());
  const severities = { info: b.engineProto.LogSeverity.INFO, warning: b.engineProto.LogSeverity.WARNING } as const;
  const log: ProviderLog = (level, message, urn) =>
    new Promise<void>((resolve) => {
      const request = new b.engineProto.LogRequest().setSeverity(severities[level]).setMessage(message).setUrn(urn ?? "");
      client.log(request, (error) => {
        if (error) void notifyOnStderr(level, message);
        resolve();
      });
    });
  return { log, close: () => client.close() };
}

/** Converts between the wire's Struct values and plain property maps, and errors into gRPC statuses. */
function wireCodec(b: Bindings) {
  const toStruct = (values: PropertyMap): StructProto.Struct =>
    b.struct.Struct.fromJavaScript(Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Record<string, StructProto.JavaScriptValue>);
  return {
    toJs: (struct: StructProto.Struct | undefined): PropertyMap => (struct ? (struct.toJavaScript() as PropertyMap) : {}),
    toStruct,
    failure(error: unknown): Partial<Grpc.StatusObject> {
      const metadata = new b.grpc.Metadata();
      const code = (error as { code?: unknown } | null)?.code;
      if (typeof code === "string") metadata.set("analytics-error-code", code);
      return { code: b.grpc.status.UNKNOWN, details: error instanceof Error ? error.message : String(error), metadata };
    },
    checkResponse(result: { inputs: PropertyMap; failures: Array<{ property: string; reason: string }> }): ProviderProto.CheckResponse {
      const response = new b.proto.CheckResponse();
      response.setInputs(toStruct(result.inputs));
      response.setFailuresList(result.failures.map((f) => new b.proto.CheckFailure().setProperty(f.property).setReason(f.reason)));
      return response;
    },
  };
}

type WireCodec = ReturnType<typeof wireCodec>;
type Unary = <Req>(handler: (request: Req) => unknown) => (call: Call, callback: Callback) => void;

/** One unary method: the handler's answer, or its error as a status; UNAVAILABLE once shutting down. */
function unaryMethods(b: Bindings, codec: WireCodec, calls: CallsInFlight): Unary {
  return (handler) => (call, callback) => {
    if (calls.closed) return callback({ code: b.grpc.status.UNAVAILABLE, details: "The analytics provider is shutting down." });
    calls.track(
      Promise.resolve()
        .then(() => handler(call.request as never))
        .then(
          (answer) => callback(null, answer),
          (error: unknown) => callback(codec.failure(error)),
        ),
    );
  };
}

/** The engine's plugin-level calls: info, schema, attach, cancel, and the provider's configuration. */
function pluginMethods(b: Bindings, provider: NativeProvider, codec: WireCodec, unary: Unary, attach: (address: string) => void) {
  const { proto } = b;
  return {
    getPluginInfo: unary(() => new b.plugin.PluginInfo().setVersion(pluginVersion())),
    getSchema: unary((request: ProviderProto.GetSchemaRequest) => {
      if (request.getVersion() !== 0) throw new Error(`The analytics provider has no schema version ${request.getVersion()}.`);
      return provider.schema().then((schema) => new proto.GetSchemaResponse().setSchema(schema));
    }),
    attach: unary((request: PluginProto.PluginAttach) => {
      if (request.getAddress()) attach(request.getAddress());
      return new b.empty.Empty();
    }),
    cancel: unary(() => {
      provider.cancel();
      return new b.empty.Empty();
    }),
    checkConfig: unary((request: ProviderProto.CheckRequest) => codec.checkResponse(provider.checkConfig(codec.toJs(request.getNews())))),
    configure: unary((request: ProviderProto.ConfigureRequest) => {
      const variables: Record<string, string> = {};
      request.getVariablesMap().forEach((value, key) => (variables[key] = value));
      provider.configure({ name: request.getName(), args: codec.toJs(request.getArgs()), variables });
      return new proto.ConfigureResponse().setAcceptsecrets(true).setSupportspreview(true).setAcceptresources(false).setAcceptoutputs(false);
    }),
  };
}

/** The resource calls: check, diff, create, read, update, delete. */
function resourceMethods(b: Bindings, provider: NativeProvider, { toJs, toStruct, checkResponse }: WireCodec, unary: Unary) {
  const { proto } = b;
  return {
    check: unary(async (request: ProviderProto.CheckRequest) => checkResponse(await provider.check(request.getUrn(), toJs(request.getNews())))),
    diff: unary(async (request: ProviderProto.DiffRequest) => {
      const result = await provider.diff(request.getUrn(), request.getId(), toJs(request.getOlds()), toJs(request.getNews()));
      return new proto.DiffResponse()
        .setChanges(result.changes ? proto.DiffResponse.DiffChanges.DIFF_SOME : proto.DiffResponse.DiffChanges.DIFF_NONE)
        .setReplacesList(result.replaces)
        .setDiffsList(result.replaces)
        .setDeletebeforereplace(result.deleteBeforeReplace);
    }),
    create: unary(async (request: ProviderProto.CreateRequest) => {
      const created = await provider.create(request.getUrn(), toJs(request.getProperties()), request.getPreview());
      return new proto.CreateResponse().setId(created.id).setProperties(toStruct(created.properties));
    }),
    read: unary((request: ProviderProto.ReadRequest) => {
      const read = provider.read(request.getUrn(), request.getId(), toJs(request.getProperties()), toJs(request.getInputs()));
      return new proto.ReadResponse().setId(read.id).setProperties(toStruct(read.properties)).setInputs(toStruct(read.inputs));
    }),
    update: unary((request: ProviderProto.UpdateRequest) => provider.update(request.getUrn())),
    delete: unary(async (request: ProviderProto.DeleteRequest) => {
      await provider.delete(request.getUrn(), request.getId(), toJs(request.getProperties()));
      return new b.empty.Empty();
    }),
  };
}

/** Serves `provider` on 127.0.0.1 at a free port. */
export async function startPluginServer(provider: NativeProvider, options: PluginServerOptions = {}): Promise<PluginServer> {
  const b = loadBindings();
  const { grpc } = b;
  let engine: ReturnType<typeof engineLog> | undefined;
  const attach = (address: string): void => {
    engine?.close();
    engine = engineLog(b, address);
    provider.log = engine.log;
  };
  if (options.engineAddress) attach(options.engineAddress);

  const codec = wireCodec(b);
  const calls = new CallsInFlight();
  const unary = unaryMethods(b, codec, calls);
  const implementation: Record<string, (call: Call, callback: Callback) => void> = {
    ...pluginMethods(b, provider, codec, unary, attach),
    ...resourceMethods(b, provider, codec, unary),
  };
  for (const method of UNIMPLEMENTED) {
    implementation[method] = (_call, callback) => callback({ code: grpc.status.UNIMPLEMENTED, details: `The analytics provider does not implement ${method}.` });
  }

  const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
  server.addService(b.service.ResourceProviderService as unknown as Grpc.ServiceDefinition, implementation as unknown as Grpc.UntypedServiceImplementation);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound)));
  });
  let closing: Promise<void> | undefined;
  return {
    port,
    shutdown() {
      closing ??= closeAfterCalls(server, calls).then(() => engine?.close());
      return closing;
    },
  };
}

/**
 * The ResourceProvider gRPC service of `pulumi-resource-analytics`: each method decodes its
 * request, calls {@link NativeProvider} and encodes the answer. Errors go back as a gRPC status
 * with the message alone (no stack); methods the provider does not serve answer UNIMPLEMENTED, so
 * the engine falls back. The server and the protocol are grpc/'s, over node:http2; the message
 * bindings are @pulumi/pulumi's own.
 */
import type * as NodeModule from "node:module";
import type * as AnyProto from "google-protobuf/google/protobuf/any_pb";
import type * as EmptyProto from "google-protobuf/google/protobuf/empty_pb";
import type * as StructProto from "google-protobuf/google/protobuf/struct_pb";
import type * as EngineProto from "@pulumi/pulumi/proto/engine_pb";
import type * as PluginProto from "@pulumi/pulumi/proto/plugin_pb";
import type * as ProviderProto from "@pulumi/pulumi/proto/provider_pb";
import type * as StatusProto from "@pulumi/pulumi/proto/status_pb";
import { notifyOnStderr } from "../provider-core/notices";
import { PartialCreateError, partialCreate } from "../provider-core/partial-create";
import { startGrpcServer, type GrpcServer } from "./grpc/grpc-server";
import { GrpcStatus, exceedsGrpcMessageCap, type GrpcFailure } from "./grpc/grpc-status";
import { unaryClient, type UnaryMethod } from "./grpc/wire";
import { kindOfUrn, pluginVersion, type NativeProvider, type ProviderLog } from "./provider";
import type { PropertyMap } from "./property-values";

/** The modules the service needs, loaded from where @pulumi/pulumi finds them, so they are the bindings' own copies. */
export interface Bindings {
  any: typeof AnyProto;
  empty: typeof EmptyProto;
  struct: typeof StructProto;
  plugin: typeof PluginProto;
  proto: typeof ProviderProto;
  engineProto: typeof EngineProto;
  status: typeof StatusProto;
}

/**
 * Each binding's module id, and the same module required by its literal name: the plugin archive's
 * bundle (tools/build-plugin-archive.js) carries those inside itself, where no @pulumi/pulumi is
 * installed to load them from.
 */
const BINDING_MODULES: { [K in keyof Bindings]: readonly [id: string, bundled: () => Bindings[K]] } = {
  any: ["google-protobuf/google/protobuf/any_pb", () => require("google-protobuf/google/protobuf/any_pb")],
  empty: ["google-protobuf/google/protobuf/empty_pb", () => require("google-protobuf/google/protobuf/empty_pb")],
  struct: ["google-protobuf/google/protobuf/struct_pb", () => require("google-protobuf/google/protobuf/struct_pb")],
  plugin: ["@pulumi/pulumi/proto/plugin_pb", () => require("@pulumi/pulumi/proto/plugin_pb")],
  proto: ["@pulumi/pulumi/proto/provider_pb", () => require("@pulumi/pulumi/proto/provider_pb")],
  engineProto: ["@pulumi/pulumi/proto/engine_pb", () => require("@pulumi/pulumi/proto/engine_pb")],
  status: ["@pulumi/pulumi/proto/status_pb", () => require("@pulumi/pulumi/proto/status_pb")],
};

let loaded: Bindings | undefined;

/**
 * The message bindings, loaded on the first call and kept: from where @pulumi/pulumi finds them
 * when it is installed, else from inside the bundle. The start-up snapshot's entry calls it while
 * the snapshot is built, so the single file starts with them loaded.
 */
export function loadBindings(): Bindings {
  if (loaded) return loaded;
  let fromPulumi: NodeRequire | undefined;
  try {
    const pulumiPackage = require.resolve("@pulumi/pulumi/package.json");
    fromPulumi = (require("node:module") as typeof NodeModule).createRequire(pulumiPackage);
  } catch {
    // The bundled plugin: no installed @pulumi/pulumi, the modules are inside the bundle.
  }
  const entries = Object.entries(BINDING_MODULES).map(([name, [id, bundled]]) => [name, fromPulumi ? fromPulumi(id) : bundled()]);
  loaded = Object.fromEntries(entries) as Bindings;
  return loaded;
}

/** A running plugin server: its port, and its shutdown once the calls in flight are answered. */
export type PluginServer = GrpcServer;

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
  const client = unaryClient(address);
  const severities = { info: b.engineProto.LogSeverity.INFO, warning: b.engineProto.LogSeverity.WARNING } as const;
  const log: ProviderLog = async (level, message, urn) => {
    const request = new b.engineProto.LogRequest()
      .setSeverity(severities[level])
      .setMessage(message)
      .setUrn(urn ?? "");
    if (!(await client.call("/pulumirpc.Engine/Log", request.serializeBinary()))) await notifyOnStderr(level, message);
  };
  return { log, close: () => client.close() };
}

/**
 * The `grpc-status-details-bin` trailer of a partial create: a google.rpc.Status whose one detail
 * is `pulumirpc.ErrorResourceInitFailed` with the object's id, recorded outputs and reasons, so the
 * engine keeps the object in the state (provider.proto: a Create that returns an error without it
 * must not have created anything). Base64, as gRPC sends binary metadata.
 */
function initFailedStatus(b: Bindings, error: PartialCreateError, message: string, toStruct: (values: PropertyMap) => StructProto.Struct): string {
  const detail = new b.proto.ErrorResourceInitFailed().setId(error.id).setProperties(toStruct(error.outputs)).setReasonsList(error.reasons);
  const packed = new b.any.Any();
  packed.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
  const status = new b.status.Status().setCode(GrpcStatus.UNKNOWN).setMessage(message);
  status.addDetails(packed);
  return Buffer.from(status.serializeBinary()).toString("base64");
}

/** Converts between the wire's Struct values and plain property maps, and errors into gRPC statuses. */
function wireCodec(b: Bindings) {
  const toStruct = (values: PropertyMap): StructProto.Struct =>
    b.struct.Struct.fromJavaScript(
      Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Record<string, StructProto.JavaScriptValue>,
    );
  return {
    toJs: (struct: StructProto.Struct | undefined): PropertyMap => (struct ? (struct.toJavaScript() as PropertyMap) : {}),
    toStruct,
    failure(error: unknown): GrpcFailure {
      const code = (error as { code?: unknown } | null)?.code;
      const details = error instanceof Error ? error.message : String(error);
      const metadata: Record<string, string> = typeof code === "string" ? { "analytics-error-code": code } : {};
      if (error instanceof PartialCreateError) metadata["grpc-status-details-bin"] = initFailedStatus(b, error, details, toStruct);
      return { code: GrpcStatus.UNKNOWN, details, metadata };
    },
    checkResponse: (result: { inputs: PropertyMap; failures: Array<{ property: string; reason: string }> }): ProviderProto.CheckResponse => {
      const response = new b.proto.CheckResponse();
      response.setInputs(toStruct(result.inputs));
      response.setFailuresList(result.failures.map((f) => new b.proto.CheckFailure().setProperty(f.property).setReason(f.reason)));
      return response;
    },
  };
}

type WireCodec = ReturnType<typeof wireCodec>;
/** A method's handler on its decoded request, answering with a message. */
type Handler = (request: never, signal: never) => { serializeBinary(): Uint8Array } | Promise<{ serializeBinary(): Uint8Array }>;
type Handle = (request: unknown, signal: AbortSignal) => Promise<Uint8Array | GrpcFailure>;
type Unary = (handler: Handler) => Handle;

/** The URN a request names, if its type has one. */
function requestUrn(request: unknown): string | undefined {
  const getUrn = (request as { getUrn?: unknown } | null)?.getUrn;
  return typeof getUrn === "function" ? String(getUrn.call(request)) : undefined;
}

/**
 * One unary method: the handler's answer, or its error as a status. An error too long for `grpc-message` is logged whole first, under the request's resource:
 * the status carries its head and tail only.
 */
function unaryMethods(codec: WireCodec, provider: NativeProvider): Unary {
  return (handler) => async (request, signal) => {
    try {
      return (await handler(request as never, signal as never)).serializeBinary();
    } catch (error) {
      const failure = codec.failure(error);
      if (exceedsGrpcMessageCap(failure.details)) await provider.log("warning", `The whole error: ${failure.details}`, requestUrn(request));
      return failure;
    }
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

/** A created object whose outputs did not all marshal, as a partial create of the outputs that do. */
function unmarshalledCreate(
  urn: string,
  created: { id: string; properties: PropertyMap },
  error: unknown,
  toStruct: (values: PropertyMap) => StructProto.Struct,
): PartialCreateError {
  const marshals = (value: unknown): boolean => {
    try {
      toStruct({ value } as PropertyMap);
      return true;
    } catch {
      return false;
    }
  };
  const kept = Object.fromEntries(Object.entries(created.properties).filter(([, value]) => marshals(value)));
  const why = `an output could not be marshalled for the engine (${error instanceof Error ? error.message : String(error)}), so the outputs that could not were left out`;
  return partialCreate(kindOfUrn(urn).kind, created.id, kept, [why]);
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
    create: unary(async (request: ProviderProto.CreateRequest, signal: AbortSignal) => {
      const created = await provider.create(request.getUrn(), toJs(request.getProperties()), request.getPreview(), signal);
      try {
        return new proto.CreateResponse().setId(created.id).setProperties(toStruct(created.properties));
      } catch (error) {
        // The object exists: what cannot be marshalled is left out, and the engine records the rest.
        throw unmarshalledCreate(request.getUrn(), created, error, toStruct);
      }
    }),
    read: unary((request: ProviderProto.ReadRequest) => {
      const read = provider.read(request.getUrn(), request.getId(), toJs(request.getProperties()), toJs(request.getInputs()));
      return new proto.ReadResponse().setId(read.id).setProperties(toStruct(read.properties)).setInputs(toStruct(read.inputs));
    }),
    update: unary((request: ProviderProto.UpdateRequest) =>
      new proto.UpdateResponse().setProperties(toStruct(provider.update(request.getUrn(), toJs(request.getOlds())).properties)),
    ),
    delete: unary(async (request: ProviderProto.DeleteRequest) => {
      await provider.delete(request.getUrn(), request.getId(), toJs(request.getProperties()));
      return new b.empty.Empty();
    }),
  };
}

/** How each method's request is read, by the method's name. */
function requestDecoders(b: Bindings): Record<string, (bytes: Uint8Array) => unknown> {
  const { proto } = b;
  return {
    getPluginInfo: (bytes) => b.empty.Empty.deserializeBinary(bytes),
    getSchema: (bytes) => proto.GetSchemaRequest.deserializeBinary(bytes),
    attach: (bytes) => b.plugin.PluginAttach.deserializeBinary(bytes),
    cancel: (bytes) => b.empty.Empty.deserializeBinary(bytes),
    checkConfig: (bytes) => proto.CheckRequest.deserializeBinary(bytes),
    configure: (bytes) => proto.ConfigureRequest.deserializeBinary(bytes),
    check: (bytes) => proto.CheckRequest.deserializeBinary(bytes),
    diff: (bytes) => proto.DiffRequest.deserializeBinary(bytes),
    create: (bytes) => proto.CreateRequest.deserializeBinary(bytes),
    read: (bytes) => proto.ReadRequest.deserializeBinary(bytes),
    update: (bytes) => proto.UpdateRequest.deserializeBinary(bytes),
    delete: (bytes) => proto.DeleteRequest.deserializeBinary(bytes),
  };
}

/** The served methods by request path (`/pulumirpc.ResourceProvider/Create`); any other path answers UNIMPLEMENTED. */
function methodTable(b: Bindings, handlers: Record<string, Handle>): Map<string, UnaryMethod> {
  const decoders = requestDecoders(b);
  return new Map(
    Object.entries(handlers).map(([name, handle]) => {
      const decode = decoders[name];
      if (decode === undefined) throw new Error(`No request type for ${name}.`);
      return [`/pulumirpc.ResourceProvider/${name[0]!.toUpperCase()}${name.slice(1)}`, { decode, handle }];
    }),
  );
}

/** The services the health check names SERVING besides itself, as `rpcutil` registers them for a Go plugin (it also serves reflection, which the plugin does not). */
const SERVICES = ["pulumirpc.ResourceProvider"] as const;

/** Serves `provider` on 127.0.0.1 at a free port. */
export async function startPluginServer(provider: NativeProvider, options: PluginServerOptions = {}): Promise<PluginServer> {
  const b = loadBindings();
  let engine: ReturnType<typeof engineLog> | undefined;
  const attach = (address: string): void => {
    engine?.close();
    engine = engineLog(b, address);
    provider.log = engine.log;
  };
  if (options.engineAddress) attach(options.engineAddress);

  const codec = wireCodec(b);
  const unary = unaryMethods(codec, provider);
  const methods = methodTable(b, { ...pluginMethods(b, provider, codec, unary, attach), ...resourceMethods(b, provider, codec, unary) });
  const server = await startGrpcServer(methods, SERVICES);
  let closing: Promise<void> | undefined;
  return {
    port: server.port,
    shutdown() {
      closing ??= server.shutdown().then(() => engine?.close());
      return closing;
    },
  };
}

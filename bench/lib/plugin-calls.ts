/**
 * The engine's first calls to a started plugin, made as a gRPC client makes them (unary calls on
 * one HTTP/2 connection, each message length-prefixed): GetPluginInfo alone, the engine's first
 * call, or the calls up to the first answered Check (GetPluginInfo, Configure, then the Check of
 * one DataSource with the bench's inputs), the first call that needs the provider's shared logic.
 */
import { once } from "node:events";
import * as http2 from "node:http2";
import { Struct, type JavaScriptValue } from "google-protobuf/google/protobuf/struct_pb";
import { CheckRequest, CheckResponse, ConfigureRequest } from "@pulumi/pulumi/proto/provider_pb";
import { DATA_SOURCE_BODY } from "./http";

/** The URN the first Check is for: a DataSource of the native provider. */
const CHECK_URN = "urn:pulumi:bench::start::analytics:index:DataSource::warehouse";

/** One unary call of ResourceProvider `method` on `session`; resolves with the answer's message, throws on a status other than OK. */
async function unary(session: http2.ClientHttp2Session, method: string, message: Uint8Array): Promise<Buffer> {
  const stream = session.request({ ":method": "POST", ":path": `/pulumirpc.ResourceProvider/${method}`, "content-type": "application/grpc", te: "trailers" });
  let status: unknown;
  const chunks: Buffer[] = [];
  stream.on("response", (headers) => (status = headers["grpc-status"] ?? status));
  stream.on("trailers", (trailers) => (status = trailers["grpc-status"]));
  stream.on("data", (chunk: Buffer) => chunks.push(chunk));
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1); // byte 0: uncompressed
  frame.set(message, 5);
  stream.end(frame);
  await once(stream, "close");
  if (status !== "0") throw new Error(`${method} answered grpc-status ${String(status)}`);
  return Buffer.concat(chunks).subarray(5);
}

/** Runs `calls` on one connection to the plugin on `port`, then closes it. */
async function onConnection(port: number, calls: (session: http2.ClientHttp2Session) => Promise<void>): Promise<void> {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  try {
    await calls(session);
  } finally {
    session.close();
  }
}

/** Sends GetPluginInfo to the plugin on `port` and waits for the whole answer. */
export function askPluginInfo(port: number): Promise<void> {
  return onConnection(port, async (session) => void (await unary(session, "GetPluginInfo", new Uint8Array())));
}

/** Sends GetPluginInfo, Configure and a DataSource's Check to the plugin on `port`; resolves once the Check is answered, without failures. */
export function askFirstCheck(port: number): Promise<void> {
  return onConnection(port, async (session) => {
    await unary(session, "GetPluginInfo", new Uint8Array());
    await unary(
      session,
      "Configure",
      new ConfigureRequest()
        .setName("default")
        .setArgs(Struct.fromJavaScript({ baseUrl: "http://127.0.0.1:9" }))
        .serializeBinary(),
    );
    const news = Struct.fromJavaScript({ ...DATA_SOURCE_BODY, orgId: "org-bench" } as Record<string, JavaScriptValue>);
    const answer = CheckResponse.deserializeBinary(await unary(session, "Check", new CheckRequest().setUrn(CHECK_URN).setNews(news).serializeBinary()));
    const failures = answer.getFailuresList().map((failure) => `${failure.getProperty()}: ${failure.getReason()}`);
    if (failures.length > 0) throw new Error(`the first Check failed: ${failures.join("; ")}`);
  });
}

/**
 * Unary gRPC over node:http2, the part of the protocol the plugin speaks: a server answering the
 * engine's calls and a client for the engine's Log service. A unary call is one HTTP/2 POST to
 * `/<package.Service>/<Method>` whose body is one length-prefixed message; the answer is one such
 * message, then trailers with `grpc-status` (and `grpc-message`, percent-encoded). @grpc/grpc-js
 * does the same with channels, load balancing, TLS and name resolution the plugin never uses, and
 * loading them was most of the plugin's start-up.
 */
import type * as http2 from "node:http2";

/**
 * node:http2, loaded on first use: a V8 start-up snapshot (tools/plugin-snapshot.js) cannot hold
 * it, so the snapshot's code loads it only when the server starts or the client connects.
 */
export function http2Module(): typeof http2 {
  return require("node:http2") as typeof http2;
}

/** The gRPC status codes the plugin answers with. */
export const GrpcStatus = { OK: 0, UNKNOWN: 2, INTERNAL: 13, UNIMPLEMENTED: 12, UNAVAILABLE: 14 } as const;

/** A failed call: its status code, its message, and metadata sent in the trailers (lower-case keys). */
export interface GrpcFailure {
  code: number;
  details: string;
  metadata?: Readonly<Record<string, string>> | undefined;
}

/** One method: how its request is read, and the handler whose answer is written back. */
export interface UnaryMethod {
  /** The request message from its bytes. */
  decode(bytes: Uint8Array): unknown;
  /** The answer's message bytes, or a {@link GrpcFailure} to send instead. */
  handle(request: unknown): Promise<Uint8Array | GrpcFailure>;
}

/** The length-prefixed frame of one uncompressed message. */
export function frame(message: Uint8Array): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(message.length, 1);
  return Buffer.concat([header, message]);
}

/** The one message of a unary body, or a reason it is not one. */
export function unframe(body: Buffer): Uint8Array | string {
  if (body.length < 5) return "The request carries no message.";
  if (body[0] !== 0) return "The analytics provider does not accept compressed messages.";
  const length = body.readUInt32BE(1);
  if (body.length !== 5 + length) return "The request carries other than one message.";
  return body.subarray(5);
}

/** `grpc-message`'s encoding: printable ASCII as is, every other byte (and `%`) as `%XX`. */
export function encodeGrpcMessage(text: string): string {
  let out = "";
  for (const byte of Buffer.from(text, "utf8")) out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  return out;
}

/** The trailers of a status. */
function statusHeaders(failure: GrpcFailure): http2.OutgoingHttpHeaders {
  return { ...failure.metadata, "grpc-status": String(failure.code), "grpc-message": encodeGrpcMessage(failure.details) };
}

/** Answers `stream` with a status and no message (a trailers-only answer). */
export function respondFailure(stream: http2.ServerHttp2Stream, failure: GrpcFailure): void {
  if (stream.destroyed || stream.headersSent) return;
  stream.respond({ ":status": 200, "content-type": "application/grpc", ...statusHeaders(failure) }, { endStream: true });
}

/** Answers `stream` with one message, then an OK status in the trailers. */
export function respondMessage(stream: http2.ServerHttp2Stream, message: Uint8Array): void {
  if (stream.destroyed || stream.headersSent) return;
  stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
  stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
  stream.end(frame(message));
}

/** The whole body of a request or answer stream. */
export function readBody(stream: http2.Http2Stream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.once("end", () => resolve(Buffer.concat(chunks)));
    stream.once("error", reject);
  });
}

/**
 * Serves one request stream: finds its method by path, reads the message and writes the answer.
 * `track` gets each call once its message has arrived, as a promise that settles when the answer is written.
 */
export async function serveUnary(
  stream: http2.ServerHttp2Stream,
  headers: http2.IncomingHttpHeaders,
  methods: ReadonlyMap<string, UnaryMethod>,
  track: (answered: Promise<void>) => void = () => undefined,
): Promise<void> {
  const path = String(headers[":path"]);
  const method = methods.get(path);
  if (method === undefined) {
    stream.resume();
    return respondFailure(stream, { code: GrpcStatus.UNIMPLEMENTED, details: `The analytics provider does not implement ${path.split("/").pop()}.` });
  }
  const message = unframe(await readBody(stream));
  if (typeof message === "string") return respondFailure(stream, { code: GrpcStatus.INTERNAL, details: message });
  const answered = method.handle(method.decode(message)).then((answer) => (answer instanceof Uint8Array ? respondMessage(stream, answer) : respondFailure(stream, answer)));
  track(answered);
  await answered;
}

/** The status of a finished client call, from its answer's headers or trailers. */
function statusOf(headers: http2.IncomingHttpHeaders): number | undefined {
  const status = headers["grpc-status"];
  return status === undefined ? undefined : Number(status);
}

/**
 * A unary client on one HTTP/2 connection to `address` (`host:port`, plaintext), opened on the
 * first call and again after it fails; `call` resolves with whether the call succeeded.
 */
export function unaryClient(address: string): { call(path: string, message: Uint8Array): Promise<boolean>; close(): void } {
  let session: http2.ClientHttp2Session | undefined;
  const connect = (): http2.ClientHttp2Session => {
    if (session && !session.closed && !session.destroyed) return session;
    const opened = http2Module().connect(`http://${address}`);
    opened.on("error", () => undefined);
    opened.unref();
    session = opened;
    return opened;
  };
  const call = (path: string, message: Uint8Array): Promise<boolean> =>
    new Promise((resolve) => {
      const stream = connect().request({ ":method": "POST", ":path": path, "content-type": "application/grpc", te: "trailers" });
      let status: number | undefined;
      stream.on("response", (headers) => (status ??= statusOf(headers)));
      stream.on("trailers", (trailers) => (status ??= statusOf(trailers)));
      stream.on("error", () => resolve(false));
      stream.on("close", () => resolve(status === GrpcStatus.OK));
      stream.resume();
      stream.end(frame(message));
    });
  return { call, close: () => session?.close() };
}

/**
 * Unary gRPC over node:http2, the part of the protocol the plugin speaks: a server answering the
 * engine's calls and a client for the engine's Log service. A unary call is one HTTP/2 POST to
 * `/<package.Service>/<Method>` whose body is one length-prefixed message; the answer is one such
 * message, then trailers with `grpc-status` (and `grpc-message`, percent-encoded and capped; see
 * grpc-status.ts). The message is read by frames.ts as it arrives. @grpc/grpc-js
 * does the same with channels, load balancing, TLS and name resolution the plugin never uses, and
 * loading them was most of the plugin's start-up.
 */
import type * as http2 from "node:http2";
import { MessageReader, frame } from "./frames";
import { GrpcStatus, capGrpcMessage, encodeGrpcMessage, type GrpcFailure } from "./grpc-status";

/**
 * node:http2, loaded on first use: a V8 start-up snapshot (tools/lib/start-up-snapshot.js) cannot hold
 * it, so the snapshot's code loads it only when the server starts or the client connects.
 */
export function http2Module(): typeof http2 {
  return require("node:http2") as typeof http2;
}

/** One method: how its request is read, and the handler whose answer is written back. */
export interface UnaryMethod {
  /** The request message from its bytes. */
  decode(bytes: Uint8Array): unknown;
  /**
   * The answer's message bytes, or a {@link GrpcFailure} to send instead. `signal` aborts when the
   * answer can no longer reach the caller: it cancelled the call (RST_STREAM), the call's
   * `grpc-timeout` passed, or the stream was gone when the answer was ready; never once it is written.
   */
  handle(request: unknown, signal: AbortSignal): Promise<Uint8Array | GrpcFailure>;
}

/** The trailers of a status; its text capped (see {@link capGrpcMessage}). */
function statusHeaders(failure: GrpcFailure): http2.OutgoingHttpHeaders {
  return { ...failure.metadata, "grpc-status": String(failure.code), "grpc-message": encodeGrpcMessage(capGrpcMessage(failure.details)) };
}

/** Whether `stream` can still take an answer. */
function answerable(stream: http2.ServerHttp2Stream): boolean {
  return !stream.destroyed && !stream.closed && !stream.headersSent;
}

/** Answers `stream` with a status and no message (a trailers-only answer); false when it could not. */
export function respondFailure(stream: http2.ServerHttp2Stream, failure: GrpcFailure, extra: http2.OutgoingHttpHeaders = {}): boolean {
  if (!answerable(stream)) return false;
  stream.respond({ ":status": 200, "content-type": "application/grpc", ...extra, ...statusHeaders(failure) }, { endStream: true });
  return true;
}

/** Answers `stream` with one message, then an OK status in the trailers; false when it could not. */
export function respondMessage(stream: http2.ServerHttp2Stream, message: Uint8Array): boolean {
  if (!answerable(stream)) return false;
  stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
  stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
  stream.end(frame(message));
  return true;
}

/** `grpc-timeout` (`<digits><H|M|S|m|u|n>`) in milliseconds, or undefined when absent or unreadable. */
export function parseGrpcTimeout(value: string | string[] | undefined): number | undefined {
  const match = typeof value === "string" ? /^(\d{1,8})([HMSmun])$/.exec(value) : null;
  if (!match) return undefined;
  const perUnit = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 1e-3, n: 1e-6 } as const;
  return Number(match[1]) * perUnit[match[2] as keyof typeof perUnit];
}

/** Whether a content type is gRPC's with protobuf messages: `application/grpc` or `application/grpc+proto`, parameters allowed. */
export function isGrpcContentType(value: string | undefined): boolean {
  return /^application\/grpc(\+proto)?(;.*)?$/i.test((value ?? "").trim());
}

/** The encodings the plugin takes: none. */
const ACCEPT_ENCODING = { "grpc-accept-encoding": "identity" } as const;

/** Answers a request the plugin cannot serve from its headers alone, or returns false. */
function refusedByHeaders(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, method: UnaryMethod | undefined): boolean {
  const contentType = headers["content-type"];
  if (!isGrpcContentType(contentType)) {
    const failure = {
      code: GrpcStatus.INTERNAL,
      details: `The analytics provider serves gRPC: the content type ${JSON.stringify(contentType ?? "")} is not application/grpc.`,
    };
    if (answerable(stream)) stream.respond({ ":status": 415, "content-type": "application/grpc", ...statusHeaders(failure) }, { endStream: true });
  } else if (method === undefined) {
    respondFailure(stream, {
      code: GrpcStatus.UNIMPLEMENTED,
      details: `The analytics provider does not implement ${String(headers[":path"]).split("/").pop()}.`,
    });
  } else if (headers["grpc-encoding"] !== undefined && headers["grpc-encoding"] !== "identity") {
    const details = `The analytics provider does not accept the message encoding ${String(headers["grpc-encoding"])}: send messages uncompressed (identity).`;
    respondFailure(stream, { code: GrpcStatus.UNIMPLEMENTED, details }, ACCEPT_ENCODING);
  } else {
    return false;
  }
  stopReading(stream);
  return true;
}

/**
 * Stops taking a request body the plugin has answered: its stream is reset (NO_ERROR) once the
 * answer is out. The reset waits a turn of the event loop: on Node.js 26 a reset in the same turn
 * as `respond(…, { endStream: true })` drops the answer, and the caller sees only RST_STREAM (as the
 * engine's Handshake, which the plugin does not implement, then fails the plugin's start).
 */
function stopReading(stream: http2.ServerHttp2Stream): void {
  stream.resume();
  setImmediate(() => {
    if (!stream.readableEnded && !stream.closed) stream.close(http2Module().constants.NGHTTP2_NO_ERROR);
  });
}
/**
 * One call from its request to its answer: writes the answer once, answers DEADLINE_EXCEEDED when
 * its `grpc-timeout` passes first, and aborts {@link signal} when the answer cannot reach the caller.
 */
class UnaryCall {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout | undefined;
  private over = false;
  /** See {@link UnaryMethod.handle}. */
  readonly signal = this.controller.signal;

  constructor(
    private readonly stream: http2.ServerHttp2Stream,
    timeoutMs: number | undefined,
  ) {
    stream.once("close", () => this.end("The caller cancelled the call before its answer."));
    // setTimeout's longest delay is 2^31 - 1 ms (about 24 days); a longer deadline never passes here.
    if (timeoutMs !== undefined && timeoutMs < 2 ** 31) this.timer = setTimeout(() => this.expire(), timeoutMs);
  }

  /** Writes `answer` unless the call is over; aborts the signal when it cannot be written. */
  answer(answer: Uint8Array | GrpcFailure): void {
    if (this.over) return;
    const written = answer instanceof Uint8Array ? respondMessage(this.stream, answer) : respondFailure(this.stream, answer);
    this.end(written ? undefined : "The call's stream was gone when its answer was ready.");
  }

  private expire(): void {
    if (this.over) return;
    respondFailure(this.stream, {
      code: GrpcStatus.DEADLINE_EXCEEDED,
      details: "The call's deadline (grpc-timeout) passed before the analytics provider answered.",
    });
    this.end("The call's deadline passed before its answer.");
  }

  /** Ends the call; `unanswered` says why its answer will not reach the caller, if it will not. */
  private end(unanswered: string | undefined): void {
    if (this.over) return;
    this.over = true;
    clearTimeout(this.timer);
    if (unanswered !== undefined) this.controller.abort(new Error(unanswered));
  }
}

/** The request's one message, or a failure: refused as soon as its prefix shows one, cancelled when the stream closes first. */
function readMessage(stream: http2.ServerHttp2Stream): Promise<Uint8Array | GrpcFailure> {
  return new Promise((resolve) => {
    const reader = new MessageReader();
    const onData = (chunk: Buffer): void => {
      const refusal = reader.push(chunk);
      if (refusal === undefined) return;
      stream.off("data", onData);
      resolve(refusal);
    };
    stream.on("data", onData);
    stream.once("end", () => resolve(reader.end()));
    stream.once("close", () => resolve({ code: GrpcStatus.CANCELLED, details: "The request's stream closed before its message arrived." }));
  });
}

/**
 * Serves one request stream: refuses what it cannot serve from the headers (415 for another
 * content type; UNIMPLEMENTED for an unknown method or a message encoding), reads the message,
 * refusing it as soon as its prefix says compressed or over 400 MiB, and writes the handler's
 * answer. `track` gets each call once its message has arrived, as a promise that settles when its
 * handler is done.
 */
export async function serveUnary(
  stream: http2.ServerHttp2Stream,
  headers: http2.IncomingHttpHeaders,
  methods: ReadonlyMap<string, UnaryMethod>,
  track: (answered: Promise<void>) => void = () => undefined,
): Promise<void> {
  const method = methods.get(String(headers[":path"]));
  if (refusedByHeaders(stream, headers, method)) return;
  const call = new UnaryCall(stream, parseGrpcTimeout(headers["grpc-timeout"]));
  const message = await readMessage(stream);
  if (!(message instanceof Uint8Array)) {
    call.answer(message.code === GrpcStatus.UNIMPLEMENTED ? { ...message, metadata: ACCEPT_ENCODING } : message);
    return stopReading(stream);
  }
  const answered = method!.handle(method!.decode(message), call.signal).then((answer) => call.answer(answer));
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

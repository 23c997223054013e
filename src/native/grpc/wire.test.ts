/**
 * The plugin's unary gRPC over node:http2, against real clients on a port-0 server: @grpc/grpc-js's
 * (the engine's is grpc-go's, test/languages/grpc-interop.test.ts) and raw node:http2 streams for what a
 * gRPC client never sends: split prefixes, two messages, compression, other content types,
 * cancels and deadlines.
 */
import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { frame } from "./frames";
import { GRPC_MESSAGE_CAP, GrpcStatus, encodeGrpcMessage } from "./grpc-status";
import { isGrpcContentType, parseGrpcTimeout, serveUnary, unaryClient, type UnaryMethod } from "./wire";

const bytes = (text: string): Uint8Array => new Uint8Array(Buffer.from(text));
const text = (data: Uint8Array): string => Buffer.from(data).toString();
const MiB = 1024 * 1024;

/** What a raw stream got back. */
interface RawAnswer {
  status: number;
  grpcStatus: number | undefined;
  grpcMessage: string | undefined;
  headers: http2.IncomingHttpHeaders;
  body: Buffer;
  rstCode: number;
}

/** One raw HTTP/2 request: `send` writes its body (and may leave it open); resolves when the stream closes. */
function rawCall(
  session: http2.ClientHttp2Session,
  path: string,
  send: (stream: http2.ClientHttp2Stream) => void,
  headers: http2.OutgoingHttpHeaders = {},
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const stream = session.request({ ":method": "POST", ":path": path, "content-type": "application/grpc", te: "trailers", ...headers });
    const chunks: Buffer[] = [];
    let answer: http2.IncomingHttpHeaders = {};
    stream.on("response", (h) => (answer = { ...h }));
    stream.on("trailers", (t) => (answer = { ...answer, ...t }));
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("error", () => undefined);
    stream.on("close", () => {
      const grpcStatus = answer["grpc-status"] === undefined ? undefined : Number(answer["grpc-status"]);
      const grpcMessage = answer["grpc-message"] === undefined ? undefined : decodeURIComponent(String(answer["grpc-message"]));
      resolve({ status: Number(answer[":status"]), grpcStatus, grpcMessage, headers: answer, body: Buffer.concat(chunks), rstCode: stream.rstCode ?? -1 });
    });
    send(stream);
  });
}

/** A promise and its resolver. */
function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

describe("parsing request headers", () => {
  it.each([
    ["1m", 1],
    ["5S", 5000],
    ["2M", 120_000],
    ["1H", 3_600_000],
    ["1500u", 1.5],
    ["99999999n", 99.999999],
    ["123456789S", undefined],
    ["10", undefined],
    ["-1S", undefined],
    [undefined, undefined],
  ])("grpc-timeout %j is %j ms", (value, ms) => {
    expect(parseGrpcTimeout(value)).toBe(ms);
  });

  it.each([
    ["application/grpc", true],
    ["application/grpc+proto", true],
    ["application/grpc; charset=utf-8", true],
    ["application/grpc+json", false],
    ["text/plain", false],
    ["application/grpcx", false],
    [undefined, false],
  ])("content type %j is gRPC's with protobuf: %s", (value, ok) => {
    expect(isGrpcContentType(value)).toBe(ok);
  });
});

describe("a unary server and client over node:http2", () => {
  let server: http2.Http2Server;
  let address: string;
  let session: http2.ClientHttp2Session;
  const logged: string[] = [];
  const handled: string[] = [];
  let held: { arrived: ReturnType<typeof gate<AbortSignal>>; release: ReturnType<typeof gate> } | undefined;
  const LONG = `Organization "Acme": ${"x".repeat(99_900)} Set analytics:apiKey and run pulumi up again.`;
  const methods = new Map<string, UnaryMethod>([
    ["/test.Echo/Echo", { decode: text, handle: async (request) => (handled.push(String(request).slice(0, 20)), bytes(`echo ${String(request)}`)) }],
    [
      "/test.Echo/Fail",
      {
        decode: text,
        handle: async () => ({ code: GrpcStatus.UNKNOWN, details: "Nom « ü » refusé: 100%\nsecond line", metadata: { "analytics-error-code": "ANALYTICS_X" } }),
      },
    ],
    [
      "/test.Echo/FailLong",
      { decode: text, handle: async () => ({ code: GrpcStatus.UNKNOWN, details: LONG, metadata: { "analytics-error-code": "ANALYTICS_CONFIGURATION" } }) },
    ],
    ["/test.Echo/Hold", { decode: text, handle: async (_request, signal) => (held!.arrived.open(signal), await held!.release.promise, bytes("late")) }],
    ["/pulumirpc.Engine/Log", { decode: text, handle: async (request) => (logged.push(String(request)), new Uint8Array()) }],
  ]);
  let client: grpc.Client;
  const call = (path: string, request: string): Promise<string> =>
    new Promise((resolve, reject) =>
      client.makeUnaryRequest(
        path,
        (value: string) => Buffer.from(value),
        (data: Buffer) => data.toString(),
        request,
        (error, value) => (error ? reject(error) : resolve(value!)),
      ),
    );
  const hold = () => (held = { arrived: gate<AbortSignal>(), release: gate() });

  beforeAll(async () => {
    server = http2.createServer({ maxSessionMemory: 100 });
    server.on("stream", (stream, headers) => void serveUnary(stream, headers, methods));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    client = new grpc.Client(address, grpc.credentials.createInsecure(), {
      "grpc.max_receive_message_length": 400 * MiB,
      "grpc.max_send_message_length": 400 * MiB,
    });
    session = http2.connect(`http://${address}`);
    session.on("error", () => undefined);
  });
  afterAll(() => {
    client.close();
    session.destroy();
    server.close();
  });

  it("answers a call with the handler's message", async () => {
    expect(await call("/test.Echo/Echo", "hi")).toBe("echo hi");
  });

  it("carries messages over 4 MiB both ways (5 MiB here)", async () => {
    const big = "y".repeat(5 * MiB);
    const answer = await call("/test.Echo/Echo", big);
    expect([answer.length, answer.slice(0, 6), answer.endsWith("yyy")]).toEqual([5 * MiB + 5, "echo y", true]);
  });

  it("answers a failure with its status, its text exactly, and its metadata", async () => {
    const error = (await call("/test.Echo/Fail", "x").catch((e: grpc.ServiceError) => e)) as grpc.ServiceError;
    expect([error.code, error.details]).toEqual([grpc.status.UNKNOWN, "Nom « ü » refusé: 100%\nsecond line"]);
    expect(error.metadata.get("analytics-error-code")).toEqual(["ANALYTICS_X"]);
  });

  it("caps a 100,000-character error at 16 KiB, keeping its head, its tail and its error code", async () => {
    const error = (await call("/test.Echo/FailLong", "x").catch((e: grpc.ServiceError) => e)) as grpc.ServiceError;
    expect(error.code).toBe(grpc.status.UNKNOWN);
    expect(error.details).toMatch(
      /^Organization "Acme": x+ \[\.\.\. \d+ characters left out; the provider logged the whole message \.\.\.\] x+ Set analytics:apiKey and run pulumi up again\.$/,
    );
    expect(encodeGrpcMessage(error.details).length).toBeLessThanOrEqual(GRPC_MESSAGE_CAP);
    expect(error.metadata.get("analytics-error-code")).toEqual(["ANALYTICS_CONFIGURATION"]);
  });

  it("answers UNIMPLEMENTED for a method it does not serve, naming it", async () => {
    await expect(call("/test.Echo/Other", "x")).rejects.toMatchObject({
      code: grpc.status.UNIMPLEMENTED,
      details: "The analytics provider does not implement Other.",
    });
  });

  it("reads a message whose length prefix is split across DATA frames", async () => {
    const framed = frame(bytes("split"));
    const answer = await rawCall(session, "/test.Echo/Echo", (stream) => {
      stream.write(framed.subarray(0, 2));
      setImmediate(() => stream.end(framed.subarray(2)));
    });
    expect([answer.grpcStatus, answer.body.subarray(5).toString()]).toEqual([GrpcStatus.OK, "echo split"]);
  });

  it("refuses two messages in one call with INTERNAL, calling no handler", async () => {
    handled.length = 0;
    const answer = await rawCall(session, "/test.Echo/Echo", (stream) => stream.end(Buffer.concat([frame(bytes("one")), frame(bytes("two"))])));
    expect([answer.grpcStatus, answer.grpcMessage, handled]).toEqual([
      GrpcStatus.INTERNAL,
      "The request carries more than one message; a unary call carries exactly one.",
      [],
    ]);
  });

  it("refuses a message declared over 400 MiB with RESOURCE_EXHAUSTED as soon as its prefix arrives, and resets the stream", async () => {
    handled.length = 0;
    const prefix = Buffer.from([0, 0, 0, 0, 0]);
    prefix.writeUInt32BE(400 * MiB + 1, 1);
    // The request never ends: the answer can only come from the prefix.
    const answer = await rawCall(session, "/test.Echo/Echo", (stream) => stream.write(Buffer.concat([prefix, Buffer.alloc(64 * 1024)])));
    expect([answer.status, answer.grpcStatus, answer.rstCode, handled]).toEqual([200, GrpcStatus.RESOURCE_EXHAUSTED, http2.constants.NGHTTP2_NO_ERROR, []]);
    expect(answer.grpcMessage).toBe(
      `The request's message is ${400 * MiB + 1} bytes, more than the ${400 * MiB} the analytics provider accepts (the Pulumi engine's own limit).`,
    );
  });

  it("answers UNIMPLEMENTED with grpc-accept-encoding identity for a message encoding or a compressed message", async () => {
    const gzip = await rawCall(session, "/test.Echo/Echo", (stream) => stream.end(frame(bytes("x"))), { "grpc-encoding": "gzip" });
    expect([gzip.grpcStatus, gzip.headers["grpc-accept-encoding"], gzip.grpcMessage]).toEqual([
      GrpcStatus.UNIMPLEMENTED,
      "identity",
      "The analytics provider does not accept the message encoding gzip: send messages uncompressed (identity).",
    ]);
    const flagged = frame(bytes("x"));
    flagged[0] = 1;
    const compressed = await rawCall(session, "/test.Echo/Echo", (stream) => stream.end(flagged));
    expect([compressed.grpcStatus, compressed.headers["grpc-accept-encoding"], compressed.grpcMessage]).toEqual([
      GrpcStatus.UNIMPLEMENTED,
      "identity",
      expect.stringMatching(/compressed/),
    ]);
    const identity = await rawCall(session, "/test.Echo/Echo", (stream) => stream.end(frame(bytes("x"))), { "grpc-encoding": "identity" });
    expect(identity.grpcStatus).toBe(GrpcStatus.OK);
  });

  it("answers HTTP 415 to a content type other than application/grpc", async () => {
    handled.length = 0;
    const answer = await rawCall(session, "/test.Echo/Echo", (stream) => stream.end(frame(bytes("x"))), { "content-type": "text/plain" });
    expect([answer.status, answer.grpcStatus, answer.grpcMessage, handled]).toEqual([
      415,
      GrpcStatus.INTERNAL,
      'The analytics provider serves gRPC: the content type "text/plain" is not application/grpc.',
      [],
    ]);
    const proto = await rawCall(session, "/test.Echo/Echo", (stream) => stream.end(frame(bytes("x"))), { "content-type": "application/grpc+proto" });
    expect(proto.grpcStatus).toBe(GrpcStatus.OK);
  });

  it("aborts the handler's signal when the caller cancels the call (RST_STREAM) before the answer", async () => {
    hold();
    const answered = rawCall(session, "/test.Echo/Hold", (stream) => {
      stream.end(frame(bytes("x")));
      void held!.arrived.promise.then(() => stream.close(http2.constants.NGHTTP2_CANCEL));
    });
    const signal = await held!.arrived.promise;
    const answer = await answered;
    expect([answer.grpcStatus, answer.rstCode]).toEqual([undefined, http2.constants.NGHTTP2_CANCEL]);
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    expect((signal.reason as Error).message).toBe("The caller cancelled the call before its answer.");
    held!.release.open(undefined);
  });

  it("answers DEADLINE_EXCEEDED once grpc-timeout passes, and aborts the handler's signal", async () => {
    hold();
    const answer = await rawCall(session, "/test.Echo/Hold", (stream) => stream.end(frame(bytes("x"))), { "grpc-timeout": "1m" });
    const signal = await held!.arrived.promise;
    expect([answer.grpcStatus, answer.grpcMessage, signal.aborted]).toEqual([
      GrpcStatus.DEADLINE_EXCEEDED,
      "The call's deadline (grpc-timeout) passed before the analytics provider answered.",
      true,
    ]);
    held!.release.open(undefined);
  });

  it("leaves the signal alone once the answer is written, and within a deadline not yet passed", async () => {
    hold();
    const answered = rawCall(session, "/test.Echo/Hold", (stream) => stream.end(frame(bytes("x"))), { "grpc-timeout": "1H" });
    const signal = await held!.arrived.promise;
    held!.release.open(undefined);
    const answer = await answered;
    expect([answer.grpcStatus, answer.body.subarray(5).toString(), signal.aborted]).toEqual([GrpcStatus.OK, "late", false]);
  });

  it("calls a method as a client: true when it answered OK, false on a failure or no server", async () => {
    const ours = unaryClient(address);
    try {
      expect(await ours.call("/pulumirpc.Engine/Log", bytes("a notice"))).toBe(true);
      expect(logged).toEqual(["a notice"]);
      expect(await ours.call("/test.Echo/Fail", bytes("x"))).toBe(false);
      expect(await ours.call("/test.Echo/Other", bytes("x"))).toBe(false);
    } finally {
      ours.close();
    }
    const nowhere = unaryClient("127.0.0.1:1");
    expect(await nowhere.call("/pulumirpc.Engine/Log", bytes("lost"))).toBe(false);
    nowhere.close();
  });
});

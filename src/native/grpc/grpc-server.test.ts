/** The transport's server on its own: the methods it is given, the health check of the services it names, and its shutdown. */
import * as http2 from "node:http2";
import { afterEach, describe, expect, it } from "vitest";
import { frame } from "./frames";
import { HEALTH_CHECK_PATH, ServingStatus, encodeHealthCheckResponse } from "./health";
import { startGrpcServer, type GrpcServer } from "./grpc-server";
import { GrpcStatus } from "./grpc-status";
import type { UnaryMethod } from "./wire";

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

/** One unary call on `session`: the answer's message (prefix stripped) and its grpc-status. */
function call(session: http2.ClientHttp2Session, path: string, message: Uint8Array): Promise<{ status: number; message: Buffer }> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ":method": "POST", ":path": path, "content-type": "application/grpc", te: "trailers" });
    const chunks: Buffer[] = [];
    let status: number | undefined;
    const take = (headers: http2.IncomingHttpHeaders): void => {
      if (headers["grpc-status"] !== undefined) status ??= Number(headers["grpc-status"]);
    };
    stream.on("response", take);
    stream.on("trailers", take);
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("error", reject);
    stream.on("close", () => resolve({ status: status ?? -1, message: Buffer.concat(chunks).subarray(5) }));
    stream.end(frame(message));
  });
}

/** A health check request naming `service` (field 1, a string). */
const healthRequest = (service: string): Uint8Array => (service === "" ? new Uint8Array() : new Uint8Array([0x0a, service.length, ...bytes(service)]));

let server: GrpcServer | undefined;
let session: http2.ClientHttp2Session | undefined;
afterEach(async () => {
  session?.destroy();
  await server?.shutdown();
  server = session = undefined;
});

describe("startGrpcServer", () => {
  it("answers its methods, UNIMPLEMENTED elsewhere, and the health check of the services it names", async () => {
    const echo: UnaryMethod = { decode: (b) => b, handle: async (request) => request as Uint8Array };
    server = await startGrpcServer(new Map([["/test.Echo/Echo", echo]]), ["test.Echo"]);
    session = http2.connect(`http://127.0.0.1:${server.port}`);
    expect(await call(session, "/test.Echo/Echo", bytes("hi"))).toEqual({ status: GrpcStatus.OK, message: Buffer.from("hi") });
    expect((await call(session, "/test.Echo/Other", bytes("hi"))).status).toBe(GrpcStatus.UNIMPLEMENTED);
    const serving = Buffer.from(encodeHealthCheckResponse(ServingStatus.SERVING));
    for (const service of ["", "test.Echo", "grpc.health.v1.Health"])
      expect(await call(session, HEALTH_CHECK_PATH, healthRequest(service))).toEqual({ status: GrpcStatus.OK, message: serving });
    expect((await call(session, HEALTH_CHECK_PATH, healthRequest("test.Other"))).status).toBe(GrpcStatus.NOT_FOUND);
  });

  it("once shutting down, answers the call in flight, refuses new ones UNAVAILABLE, says NOT_SERVING, and closes after the answer", async () => {
    let release: () => void = () => undefined;
    let arrived: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holding = new Promise<void>((resolve) => (arrived = resolve));
    const hold: UnaryMethod = { decode: (b) => b, handle: async () => (arrived(), await held, bytes("done")) };
    const echo: UnaryMethod = { decode: (b) => b, handle: async (request) => request as Uint8Array };
    server = await startGrpcServer(
      new Map([
        ["/test.Echo/Hold", hold],
        ["/test.Echo/Echo", echo],
      ]),
      ["test.Echo"],
    );
    session = http2.connect(`http://127.0.0.1:${server.port}`);
    const inFlight = call(session, "/test.Echo/Hold", bytes("x"));
    await holding;
    let closed = false;
    const shutdown = server.shutdown().then(() => (closed = true));
    expect(await call(session, "/test.Echo/Echo", bytes("hi"))).toEqual({ status: GrpcStatus.UNAVAILABLE, message: Buffer.alloc(0) });
    expect(await call(session, HEALTH_CHECK_PATH, healthRequest(""))).toEqual({
      status: GrpcStatus.OK,
      message: Buffer.from(encodeHealthCheckResponse(ServingStatus.NOT_SERVING)),
    });
    expect(closed).toBe(false);
    release();
    expect(await inFlight).toEqual({ status: GrpcStatus.OK, message: Buffer.from("done") });
    await shutdown;
    expect(closed).toBe(true);
  });
});

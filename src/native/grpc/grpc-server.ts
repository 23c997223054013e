/**
 * A unary gRPC server on 127.0.0.1 at a free port, over node:http2: it answers the methods it is
 * given (wire.ts), the health check (health.ts) for the services it names, and shuts down once
 * the calls in flight are answered. What the methods do is the caller's (the Pulumi service,
 * ../pulumi-service.ts).
 */
import type * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { HEALTH_CHECK_PATH, decodeHealthCheckRequest, healthCheck } from "./health";
import { GrpcStatus } from "./grpc-status";
import { http2Module, respondFailure, serveUnary, type UnaryMethod } from "./wire";

/** A running gRPC server. */
export interface GrpcServer {
  /** The port on 127.0.0.1 its clients connect to. */
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

/**
 * Waits for the calls in flight, then closes `server` once their answers are written (its
 * connections closed), or {@link FLUSH_GRACE_MS} later, when it drops the connections still open.
 */
async function closeAfterCalls(server: http2.Http2Server, sessions: Set<http2.Http2Session>, calls: CallsInFlight): Promise<void> {
  await calls.close();
  await new Promise<void>((resolve) => {
    const flushed = (): void => {
      clearTimeout(timer);
      for (const session of sessions) session.destroy();
      resolve();
    };
    const timer = setTimeout(flushed, FLUSH_GRACE_MS);
    server.close(flushed);
    for (const session of sessions) session.close();
  });
}

/** `method`, answering UNAVAILABLE once `calls` is closed (the server shutting down). */
function refusedOnceClosed(method: UnaryMethod, calls: CallsInFlight): UnaryMethod {
  return {
    decode: (bytes) => method.decode(bytes),
    handle: (request, signal) =>
      calls.closed ? Promise.resolve({ code: GrpcStatus.UNAVAILABLE, details: "The analytics provider is shutting down." }) : method.handle(request, signal),
  };
}

/**
 * `grpc.health.v1.Health/Check`: SERVING for `services` and the health service itself while the
 * server serves, NOT_SERVING once it is shutting down.
 */
function healthMethod(services: readonly string[], calls: CallsInFlight): UnaryMethod {
  const served = [...services, "grpc.health.v1.Health"];
  return { decode: decodeHealthCheckRequest, handle: async (service) => healthCheck(service as string, served, calls.closed) };
}

/** An HTTP/2 server answering `methods`, each call counted in `calls`; keeps its open connections in `sessions`. */
function grpcServer(methods: ReadonlyMap<string, UnaryMethod>, calls: CallsInFlight, sessions: Set<http2.Http2Session>): http2.Http2Server {
  // A session may buffer up to 100 MB (the default, 10 MB, is less than a large program's requests in flight).
  const server = http2Module().createServer({ maxSessionMemory: 100 });
  server.on("session", (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
    session.on("error", () => undefined);
  });
  server.on("stream", (stream, headers) => {
    stream.on("error", () => undefined);
    serveUnary(stream, headers, methods, (answered) => calls.track(answered)).catch((error: unknown) =>
      respondFailure(stream, {
        code: GrpcStatus.INTERNAL,
        details: `The analytics provider could not read the request: ${error instanceof Error ? error.message : String(error)}`,
      }),
    );
  });
  return server;
}

/**
 * Serves `methods` (by request path, `/<package.Service>/<Method>`; any other path answers
 * UNIMPLEMENTED) and the health check of `services` on 127.0.0.1 at a free port. Every method
 * answers UNAVAILABLE once {@link GrpcServer.shutdown} is called; the health check, NOT_SERVING.
 */
export async function startGrpcServer(methods: ReadonlyMap<string, UnaryMethod>, services: readonly string[]): Promise<GrpcServer> {
  const calls = new CallsInFlight();
  const served = new Map([...methods].map(([path, method]) => [path, refusedOnceClosed(method, calls)]));
  served.set(HEALTH_CHECK_PATH, healthMethod(services, calls));
  const sessions = new Set<http2.Http2Session>();
  const server = grpcServer(served, calls, sessions);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  let closing: Promise<void> | undefined;
  return {
    port: (server.address() as AddressInfo).port,
    shutdown() {
      closing ??= closeAfterCalls(server, sessions, calls);
      return closing;
    },
  };
}

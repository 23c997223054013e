import * as http from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { performance } from "node:perf_hooks";
import { isAllowedHost, refusedHostDetail, type AllowedHosts } from "./allowed-hosts";
import { JSON_CONTENT_TYPE, internalError, isWireError, sendError, wireError, type WireError } from "./envelope";
import { ClientGoneError } from "./request-body";
import type { RouteMatch } from "./router";

/** Anything shaped like an API key, so a key pasted into a URL by mistake never reaches a log line. */
const KEY_LIKE = /[A-Za-z0-9_-]*_key_[A-Za-z0-9]+/g;
/** Control characters, which a log line must not carry. */
// eslint-disable-next-line no-control-regex -- matching the control characters is its point
const CONTROL = new RegExp("[\\u0000-\\u001f\\u007f]", "g");

/** A request path as a log line shows it: keys redacted, control characters replaced, at most 200 characters. */
export function displayPath(path: string): string {
  const clean = path.replace(KEY_LIKE, "[redacted]").replace(CONTROL, "?");
  return clean.length > 200 ? `${clean.slice(0, 200)}…` : clean;
}

/** A surface the adapter routes requests to. */
export interface RequestHandlers<Route extends string> {
  /** Whether `path` belongs to the inspection surface (which is then not counted as API traffic). */
  isInspection(path: string): boolean;
  /** Routes a public API request (matched once: the handler and the request log share it). */
  matchPublic(method: string, path: string): RouteMatch<Route>;
  /**
   * Answers a public API request; throws {@link WireError} to answer with the error envelope.
   * Pushes the injected faults that shaped it onto `faults`, which its journal entry records.
   */
  handlePublic(req: http.IncomingMessage, res: http.ServerResponse, match: RouteMatch<Route>, faults: string[]): Promise<void>;
  /** Answers an inspection request; throws {@link WireError} likewise. */
  handleInspection(req: http.IncomingMessage, res: http.ServerResponse, method: string, path: string): Promise<void>;
}

/**
 * Where the adapter counts and records public API requests (the inspection surface's request
 * log). Declared here, not imported, so the HTTP room depends on no other room.
 */
export interface RequestRecorder {
  /** Counts a request the moment it arrives. */
  received(): void;
  /** Records a request once it has been answered or abandoned; `receivedAt` is ISO 8601. */
  record(entry: { method: string; route: string | null; path: string; status: number | null; receivedAt: string; durationMs: number; faults: string[] }): void;
}

/** Where the adapter reports. */
export interface AdapterOptions {
  /** Counts and records public API requests. */
  requestLog: RequestRecorder;
  /** Receives one line per request and notices; undefined for silence (nothing is then built). */
  logger: ((line: string) => void) | undefined;
  /** Receives unexpected errors behind 500 answers. */
  onInternalError: ((error: unknown) => void) | undefined;
  /** Clock, as ISO 8601 text (the caller decides how timestamps are made and shared). */
  timestamp: () => string;
  /** Host names served besides localhost, `*.localhost` and IP addresses (see allowed-hosts.ts). */
  allowedHosts: AllowedHosts;
}

/**
 * Answers a request whose `Host` is none of the server's names with 403, before routing, faults,
 * body reading or counting: nothing changes and the request log does not record it. The log line
 * says which host was refused. The connection is closed, so an unread body is not parsed.
 */
function refuseHost(res: http.ServerResponse, method: string, path: string, host: string, logger: AdapterOptions["logger"]): void {
  sendError(res, wireError(403, "Forbidden", refusedHostDetail(host), { connection: "close" }));
  logger?.(`${method} ${displayPath(path)} 403 host ${displayPath(JSON.stringify(host))} refused`);
}

/** Answers a thrown failure with the error envelope; an unexpected one becomes a bare 500. */
function respondToFailure(req: http.IncomingMessage, res: http.ServerResponse, err: unknown, options: AdapterOptions): void {
  if (err instanceof ClientGoneError) return;
  let apiError: WireError;
  if (isWireError(err)) {
    apiError = err;
  } else {
    // Only the error's class is logged: messages may quote request data.
    options.logger?.(`internal error while handling ${req.method ?? "?"} request: ${err instanceof Error ? err.name : typeof err}`);
    options.onInternalError?.(err);
    apiError = internalError();
  }
  if (res.headersSent || res.destroyed) {
    req.socket.destroy();
    return;
  }
  sendError(res, apiError);
}

/** The `request` listener: routes, answers failures, logs and records each request. */
export function createRequestListener<Route extends string>(
  handlers: RequestHandlers<Route>,
  options: AdapterOptions,
): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  const { requestLog, logger } = options;
  return (req, res) => {
    const started = performance.now();
    const receivedAt = options.timestamp();
    const method = req.method ?? "GET";
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    const path = query === -1 ? url : url.slice(0, query);
    const host = req.headers.host;
    if (!isAllowedHost(host, options.allowedHosts)) return refuseHost(res, method, path, host ?? "", logger);
    const publicMatch = handlers.isInspection(path) ? undefined : handlers.matchPublic(method, path);
    if (publicMatch !== undefined) requestLog.received();
    const faults: string[] = [];
    const handling = publicMatch === undefined ? handlers.handleInspection(req, res, method, path) : handlers.handlePublic(req, res, publicMatch, faults);
    // Recorded in the microtask right after the answer is written, before any client can read
    // it, so in-process counts are exact by the time a caller sees the response.
    void handling
      .catch((err: unknown) => respondToFailure(req, res, err, options))
      .then(() => {
        const status = res.writableEnded ? res.statusCode : null;
        const durationMs = Math.round(performance.now() - started);
        if (logger) logger(`${method} ${displayPath(path)} ${status ?? "-"} ${durationMs}ms`);
        if (publicMatch === undefined) return;
        const route = publicMatch.kind === "not-found" ? null : publicMatch.route.pattern;
        requestLog.record({ method, route, path: displayPath(path), status, receivedAt, durationMs, faults: [...faults] });
      })
      .catch(() => req.socket.destroy());
  };
}

/** The `clientError` listener: unparseable HTTP still gets the JSON envelope when the socket can take it. */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  const [status, title, detail] =
    err.code === "HPE_HEADER_OVERFLOW"
      ? [431, "PayloadTooLarge", "The request headers are too large."]
      : [400, "ValidationError", "The request is not valid HTTP."];
  if (socket.writable && err.code !== "ECONNRESET") {
    const body = JSON.stringify({ error: { title, detail } });
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: ${JSON_CONTENT_TYPE}\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Listens on `host`:`port` (0 picks a free port); resolves with the port taken. */
export async function listen(server: http.Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** Base URL of a server on `host`:`port`, brackets around an IPv6 address. */
export function baseUrl(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** Stops listening and drops every open connection (keep-alive ones included). */
export async function stopListening(server: http.Server): Promise<void> {
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await stopped;
}

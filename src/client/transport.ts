import type * as Undici from "undici";

/** One HTTP request, body already serialized. */
export interface HttpRequest {
  /** HTTP method. */
  method: "POST" | "GET";
  /** Absolute URL. */
  url: string;
  /** Request headers. */
  headers: Record<string, string>;
  /** Serialized body. */
  body?: string;
}

/** One HTTP response, body fully read. */
export interface HttpResponse {
  /** HTTP status. */
  status: number;
  /** Lower-cased response headers. */
  headers: Record<string, string | undefined>;
  /** Body as text. */
  body: string;
}

/**
 * A request that failed below HTTP. `sent` is false only when the request provably never left
 * this process (refused or failed connection, DNS, TLS), which is what makes a retry safe.
 */
export class TransportFailure extends Error {
  override readonly name = "TransportFailure";
  constructor(
    /** Whether any byte of the request may have reached the server. */
    readonly sent: boolean,
    /** The underlying error code (ECONNREFUSED, UND_ERR_HEADERS_TIMEOUT, ...). */
    readonly failureCode: string,
    message: string,
  ) {
    super(message);
  }
}

/** The seam between the client and the network; {@link undiciTransport} in production. */
export interface HttpTransport {
  /** Sends one request; resolves with any HTTP response, rejects only with {@link TransportFailure}. */
  send(request: HttpRequest): Promise<HttpResponse>;
  /** Releases pooled connections. */
  close(): Promise<void>;
}

/** Timeouts and pooling for a transport. */
export interface TransportOptions {
  /** Max ms to establish a connection (nothing is sent before it succeeds). */
  connectTimeoutMs?: number;
  /** Max ms from sending to the end of the response. */
  requestTimeoutMs?: number;
  /** How long an idle keep-alive connection is kept. */
  keepAliveTimeoutMs?: number;
}

/** Defaults: 10 s to connect, 60 s per request, 4 s idle keep-alive (below Node servers' 5 s). */
export const DEFAULT_TRANSPORT_OPTIONS: Required<TransportOptions> = {
  connectTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 4_000,
};

/** Failure codes that occur before any request byte is written. */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
  "CERT_HAS_EXPIRED",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** Classifies a low-level error: was the request possibly sent? */
export function classifyFailure(error: unknown): TransportFailure {
  if (error instanceof TransportFailure) return error;
  const err = error as { code?: unknown; name?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } };
  const codeOf = (value: unknown): string | undefined => (typeof value === "string" || typeof value === "number" ? String(value) : undefined);
  const code = codeOf(err?.cause?.code) ?? codeOf(err?.code) ?? (err?.name === "TimeoutError" ? "ETIMEDOUT" : "UNKNOWN");
  const message = String(err?.cause?.message ?? err?.message ?? error);
  const sent = !(NOT_SENT_CODES.has(code) || code.startsWith("ERR_TLS_") || code.startsWith("ERR_SSL_"));
  return new TransportFailure(sent, code, message);
}

/**
 * undici's response headers as {@link HttpResponse} has them: undici already lower-cases every
 * name (documented for `Dispatcher.request`), so only repeated headers, which it gives as arrays,
 * are joined, in place in the object undici made for this response.
 */
function joinRepeatedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  for (const key in headers) {
    const value = headers[key];
    if (typeof value !== "string" && Array.isArray(value)) headers[key] = value.join(", ");
  }
  return headers as Record<string, string | undefined>;
}

/** The production transport: an undici Agent with keep-alive, connect and request timeouts. */
export function undiciTransport(options: TransportOptions = {}): HttpTransport {
  const settings = { ...DEFAULT_TRANSPORT_OPTIONS, ...options };
  // Loaded on first use, so check and diff (which never send) do not pay for it.
  const { Agent, request } = require("undici") as typeof Undici;
  const agent = new Agent({
    connect: { timeout: settings.connectTimeoutMs },
    headersTimeout: settings.requestTimeoutMs,
    bodyTimeout: settings.requestTimeoutMs,
    keepAliveTimeout: settings.keepAliveTimeoutMs,
    keepAliveMaxTimeout: settings.keepAliveTimeoutMs,
  });
  return {
    async send(req) {
      try {
        const res = await request(req.url, {
          method: req.method,
          headers: req.headers,
          body: req.body ?? null,
          dispatcher: agent,
        });
        const body = await res.body.text();
        return { status: res.statusCode, headers: joinRepeatedHeaders(res.headers), body };
      } catch (error) {
        const failure = classifyFailure(error);
        if (failure.failureCode === "UND_ERR_HEADERS_TIMEOUT" || failure.failureCode === "UND_ERR_BODY_TIMEOUT") {
          throw new TransportFailure(failure.sent, failure.failureCode, `timed out: no complete answer within ${settings.requestTimeoutMs} ms`);
        }
        throw failure;
      }
    },
    close: () => agent.close(),
  };
}

/**
 * A transport over the global `fetch`, for runtimes where requests must go through the global
 * fetch (interceptors, instrumented environments). Same contract as {@link undiciTransport}.
 */
export function fetchTransport(options: TransportOptions = {}): HttpTransport {
  const settings = { ...DEFAULT_TRANSPORT_OPTIONS, ...options };
  return {
    async send(req) {
      try {
        const res = await fetch(req.url, {
          method: req.method,
          headers: req.headers,
          body: req.body ?? null,
          // Never followed: the key and the body would go to the redirect's address (see errorFromResponse).
          redirect: "manual",
          signal: AbortSignal.timeout(settings.requestTimeoutMs),
        });
        const body = await res.text();
        const headers: Record<string, string | undefined> = {};
        res.headers.forEach((value, key) => {
          headers[key.toLowerCase()] = value;
        });
        return { status: res.status, headers, body };
      } catch (error) {
        throw classifyFailure(error);
      }
    },
    close: async () => {},
  };
}

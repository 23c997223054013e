import type { ServerResponse } from "node:http";
import type { ErrorTitle } from "../../contract/wire";
import type { RouteMatch } from "./router";

/** Content type of every response, success or failure. */
export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** Extra response headers, e.g. `Allow`, `Retry-After`, `WWW-Authenticate`. */
export type ResponseHeaders = Readonly<Record<string, string>>;

/** What the server answers a failure with: plain data, made by {@link wireError}, rendered by {@link sendError}. */
export interface WireError {
  /** HTTP status code. */
  readonly status: number;
  /** `error.title` of the body. */
  readonly title: ErrorTitle;
  /** `error.detail` of the body: what went wrong and what to do; never secrets. */
  readonly detail: string;
  /** Headers sent along, such as `Allow` or `Retry-After`. */
  readonly headers: ResponseHeaders;
}

/** Failures made by {@link wireError}: handlers throw them, and only these are answered as they are. */
const madeHere = new WeakSet<object>();

/** A {@link WireError}, to throw from a handler or to send. */
export function wireError(status: number, title: ErrorTitle, detail: string, headers: ResponseHeaders = {}): WireError {
  const error: WireError = Object.freeze({ status, title, detail, headers });
  madeHere.add(error);
  return error;
}

/** True for a failure made by {@link wireError} (anything else thrown is an internal error). */
export function isWireError(value: unknown): value is WireError {
  return typeof value === "object" && value !== null && madeHere.has(value);
}

/** Detail of every 500: the cause stays in the server, the client learns nothing internal. */
export const INTERNAL_ERROR_DETAIL = "The server failed to handle the request. Nothing about the failure is disclosed; retry later.";

function send(res: ServerResponse, status: number, body: unknown, headers: ResponseHeaders): void {
  // Encoded once, as bytes: a string would be measured, then joined to the headers and encoded again.
  const bytes = Buffer.from(JSON.stringify(body));
  const common = { "content-type": JSON_CONTENT_TYPE, "content-length": bytes.length, "cache-control": "no-store" };
  res.writeHead(status, { ...headers, ...common });
  res.end(bytes);
}

/** Sends `{ "data": data }`. */
export function sendData(res: ServerResponse, status: number, data: unknown, headers: ResponseHeaders = {}): void {
  send(res, status, { data }, headers);
}

/** Sends `{ "error": { "title", "detail" } }` (and no `data`). */
export function sendError(res: ServerResponse, error: WireError): void {
  send(res, error.status, { error: { title: error.title, detail: error.detail } }, error.headers);
}

/** The 500 answer for an unexpected failure: generic title and detail, no stack, no message. */
export function internalError(): WireError {
  return wireError(500, "InternalError", INTERNAL_ERROR_DETAIL);
}

/** The 404 or 405 (with `Allow`) for a request no route serves. */
export function unmatchedRoute(match: Exclude<RouteMatch<string>, { kind: "found" }>, notFoundDetail: string): WireError {
  if (match.kind === "not-found") return wireError(404, "NotFound", notFoundDetail);
  const allow = match.allow.join(", ");
  return wireError(405, "MethodNotAllowed", `This endpoint accepts ${allow} only.`, { allow });
}

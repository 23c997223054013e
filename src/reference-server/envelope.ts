import type { ServerResponse } from "node:http";
import type { ErrorTitle } from "../contract";
import type { RouteMatch } from "./router";

/** Content type of every response, success or failure. */
export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** Extra response headers, e.g. `Allow`, `Retry-After`, `WWW-Authenticate`. */
export type ResponseHeaders = Readonly<Record<string, string>>;

/** No extra header; answers with it skip merging header objects. */
const NO_HEADERS: ResponseHeaders = Object.freeze({});

/** A failure the server answers with the error envelope; thrown by handlers, caught once. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    /** HTTP status code. */
    readonly status: number,
    /** `error.title` of the body. */
    readonly title: ErrorTitle,
    /** `error.detail` of the body: what went wrong and what to do; never secrets. */
    readonly detail: string,
    /** Headers sent along, such as `Allow` or `Retry-After`. */
    readonly headers: ResponseHeaders = NO_HEADERS,
  ) {
    super(detail);
  }
}

/** Detail of every 500: the cause stays in the server, the client learns nothing internal. */
export const INTERNAL_ERROR_DETAIL = "The server failed to handle the request. Nothing about the failure is disclosed; retry later.";

function send(res: ServerResponse, status: number, body: unknown, headers: ResponseHeaders): void {
  const text = JSON.stringify(body);
  const common = { "content-type": JSON_CONTENT_TYPE, "content-length": Buffer.byteLength(text), "cache-control": "no-store" };
  // Most answers carry no extra header: no object spread for them.
  res.writeHead(status, headers === NO_HEADERS ? common : { ...headers, ...common });
  res.end(text);
}

/** Sends `{ "data": data }`. */
export function sendData(res: ServerResponse, status: number, data: unknown, headers: ResponseHeaders = NO_HEADERS): void {
  send(res, status, { data }, headers);
}

/** Sends `{ "error": { "title", "detail" } }` (and no `data`). */
export function sendError(res: ServerResponse, error: ApiError): void {
  send(res, error.status, { error: { title: error.title, detail: error.detail } }, error.headers);
}

/** The 500 answer for an unexpected failure: generic title and detail, no stack, no message. */
export function internalError(): ApiError {
  return new ApiError(500, "InternalError", INTERNAL_ERROR_DETAIL);
}

/** The 404 or 405 (with `Allow`) for a request no route serves. */
export function unmatchedRoute(match: Exclude<RouteMatch<string>, { kind: "found" }>, notFoundDetail: string): ApiError {
  if (match.kind === "not-found") return new ApiError(404, "NotFound", notFoundDetail);
  const allow = match.allow.join(", ");
  return new ApiError(405, "MethodNotAllowed", `This endpoint accepts ${allow} only.`, { allow });
}

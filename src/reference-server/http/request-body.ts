import { isUtf8 } from "node:buffer";
import type { IncomingMessage } from "node:http";
import { wireError, type WireError } from "./envelope";

/** Default request body limit: 1 MiB, far above any valid body of this API. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Deepest array/object nesting accepted; valid bodies of this API nest one level. */
export const MAX_JSON_DEPTH = 32;

/** Raised when the client went away mid-body: there is nobody left to answer. */
export class ClientGoneError extends Error {
  override readonly name = "ClientGoneError";
}

/** The 415 for a body not declared as JSON, or `undefined` when `Content-Type` is `application/json` (UTF-8). */
export function checkJsonContentType(header: string | undefined): WireError | undefined {
  const expected = "Send the body as JSON with `Content-Type: application/json`.";
  if (header === undefined || header.trim() === "") {
    return wireError(415, "UnsupportedMediaType", `The request has no Content-Type. ${expected}`);
  }
  const [mediaType = "", ...params] = header.split(";");
  if (mediaType.trim().toLowerCase() !== "application/json") {
    return wireError(415, "UnsupportedMediaType", `The body must be declared as application/json. ${expected}`);
  }
  for (const param of params) {
    const [name = "", value = ""] = param.split("=", 2).map((s) => s.trim().toLowerCase());
    if (name === "charset" && !["utf-8", "utf8", '"utf-8"'].includes(value)) {
      return wireError(415, "UnsupportedMediaType", "JSON bodies must be UTF-8: use `charset=utf-8` or no charset.");
    }
  }
  return undefined;
}

/**
 * Lingering close of a connection whose body is refused, as nginx's `lingering_close`: the 413 is
 * written as soon as the body is known to be too large, then the rest of the body is read and
 * thrown away, up to {@link LINGER_MAX_BYTES} more bytes and for at most {@link LINGER_MAX_MS}
 * milliseconds, before the socket is closed. Closing while the client is still sending would make
 * the kernel answer its data with a TCP reset, and a reset can erase the 413 from the client's
 * receive buffer before the client reads it (RFC 9112 §9.6); reading a while longer lets a client
 * that reads the answer as it uploads stop on its own. Both bounds keep a client that never stops
 * (or never sends again) from holding the connection: past them it may see a reset instead.
 */
export const LINGER_MAX_BYTES = 16 * 1024 * 1024;

/** Time bound of the lingering close, counted from the moment the 413 is decided: see {@link LINGER_MAX_BYTES}. */
export const LINGER_MAX_MS = 5_000;

function tooLarge(maxBytes: number): WireError {
  // Sent at once; the connection closes after the lingering close (see LINGER_MAX_BYTES).
  return wireError(413, "PayloadTooLarge", `The request body exceeds the limit of ${maxBytes} bytes.`, {
    connection: "close",
  });
}

/**
 * Reads and discards what remains of `req`'s body after its 413 was decided, then closes the
 * connection (see {@link LINGER_MAX_BYTES}). The 413 itself is written by the request's handler,
 * with `Connection: close`: Node then calls the socket's `destroySoon`, which ends the write side
 * (the client gets the answer and a FIN) and would destroy the socket at once; here `destroySoon`
 * only ends the write side until the lingering is over. Nothing read is kept.
 */
function lingerAfterRefusal(req: IncomingMessage, maxBytes: number, maxMs: number): void {
  const socket = req.socket;
  let discarded = 0;
  let answered = false;
  let finished = false;
  const finish = (): void => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    req.off("data", onData);
    req.off("end", finish);
    req.off("error", finish);
    socket.off("close", finish);
    // Back to the prototype's destroySoon: end the write side, destroy once it is flushed.
    delete (socket as { destroySoon?: () => void }).destroySoon;
    if (socket.destroyed) return;
    if (answered) socket.destroySoon();
    // Not answered yet (the 413 is still on its way): stop reading; with its `Connection: close`,
    // the answer closes the connection once it is written.
    else if (!req.complete) req.pause();
  };
  const onData = (chunk: Buffer): void => {
    discarded += chunk.length;
    if (discarded > maxBytes) finish();
  };
  const timer = setTimeout(finish, maxMs);
  timer.unref();
  socket.destroySoon = (): void => {
    answered = true;
    if (socket.writable) socket.end();
  };
  req.on("data", onData);
  req.on("end", finish);
  req.on("error", finish);
  socket.on("close", finish);
}

/**
 * Reads the whole body, keeping no more than `maxBytes`. An oversized body is refused as soon as
 * it is known: at once when its declared Content-Length is over the limit, when the stream
 * crosses the limit otherwise. The promise then rejects with the 413 and the connection lingers
 * (see {@link LINGER_MAX_BYTES}): the client reads the 413 while still uploading, or while
 * waiting to send more. Memory stays bounded: discarded chunks are never kept.
 */
export function readBody(
  req: IncomingMessage,
  maxBytes: number,
  linger: { maxBytes: number; maxMs: number } = { maxBytes: LINGER_MAX_BYTES, maxMs: LINGER_MAX_MS },
): Promise<Buffer> {
  const refuse = (): WireError => {
    lingerAfterRefusal(req, linger.maxBytes, linger.maxMs);
    return tooLarge(maxBytes);
  };
  if (Number(req.headers["content-length"]) > maxBytes) return Promise.reject(refuse());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      chunks.length = 0;
      cleanup();
      reject(refuse());
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (): void => {
      cleanup();
      reject(new ClientGoneError("request stream failed"));
    };
    const onClose = (): void => {
      if (req.complete) return;
      cleanup();
      reject(new ClientGoneError("client closed the connection mid-body"));
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}

/** True when `text` opens more than `maxDepth` arrays/objects at once (strings are skipped). */
export function exceedsNestingDepth(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (escaped) escaped = false;
      else if (c === 0x5c) escaped = true;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * Decodes and parses a JSON body. Failures are 400s whose detail explains the problem without
 * quoting the body (it may hold credentials). The result is plain parsed JSON: `__proto__`
 * stays an own data property, so nothing reaches Object.prototype.
 */
export function parseJsonBody(body: Buffer, maxDepth: number = MAX_JSON_DEPTH): unknown {
  if (!isUtf8(body)) throw wireError(400, "ValidationError", "The request body is not valid UTF-8 text.");
  // A leading byte order mark is dropped, as a UTF-8 decoder does.
  const text = body.toString("utf8", body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0);
  if (!/\S/.test(text)) throw wireError(400, "ValidationError", "The request body is empty: send a JSON object.");
  if (exceedsNestingDepth(text, maxDepth)) {
    throw wireError(400, "ValidationError", `The request body nests arrays or objects deeper than ${maxDepth} levels.`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    // V8's message can quote the body; keep only the position.
    const position = /at position (\d+)/.exec(err instanceof Error ? err.message : "")?.[1];
    const where = position === undefined ? "" : ` (syntax error at character ${position})`;
    throw wireError(400, "ValidationError", `The request body is not valid JSON${where}.`);
  }
}

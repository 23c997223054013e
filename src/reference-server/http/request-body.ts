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
 * Bytes of an oversized body read and thrown away before the 413 is sent: a client still sending
 * when the connection closes gets a TCP reset that can erase the answer (RFC 9112 §9.6), so the
 * rest of the body is drained first, up to this many bytes beyond the limit; past that the
 * connection is closed and such a client may see a reset instead of the 413.
 */
export const MAX_DRAIN_BYTES = 16 * 1024 * 1024;

function tooLarge(maxBytes: number): WireError {
  // Sent once the body is drained (or the drain cap is hit); the connection closes afterwards.
  return wireError(413, "PayloadTooLarge", `The request body exceeds the limit of ${maxBytes} bytes.`, {
    connection: "close",
  });
}

/**
 * Reads the whole body, keeping no more than `maxBytes`. An oversized body (by its declared
 * Content-Length or as it streams) is read to its end and discarded, so the client can read the
 * 413, unless it exceeds the limit by more than `maxDrainBytes`; then the 413 comes at once.
 * Memory stays bounded either way: discarded chunks are never kept.
 */
export function readBody(req: IncomingMessage, maxBytes: number, maxDrainBytes: number = MAX_DRAIN_BYTES): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (declared > maxBytes + maxDrainBytes) return Promise.reject(tooLarge(maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let oversized = declared > maxBytes;
    const cleanup = (): void => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) oversized = true;
      if (!oversized) {
        chunks.push(chunk);
        return;
      }
      chunks.length = 0;
      if (size > maxBytes + maxDrainBytes) {
        cleanup();
        req.pause();
        reject(tooLarge(maxBytes));
      }
    };
    const onEnd = (): void => {
      cleanup();
      if (oversized) reject(tooLarge(maxBytes));
      else resolve(Buffer.concat(chunks, size));
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

/**
 * A gRPC status as the plugin sends it: the codes it answers with, and the text of `grpc-message`,
 * percent-encoded and capped so the header block it travels in stays within what HTTP/2 carries.
 */

/** The gRPC status codes the plugin answers with. */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
} as const;

/** A failed call: its status code, its message, and metadata sent in the trailers (lower-case keys). */
export interface GrpcFailure {
  code: number;
  details: string;
  metadata?: Readonly<Record<string, string>> | undefined;
}

/**
 * The longest `grpc-message` the plugin sends, in bytes as encoded: 16 KiB. The trailers travel in
 * one HTTP/2 header block, and nghttp2 (Node.js's HTTP/2) resets a stream whose header block is
 * over 64 KiB (FRAME_SIZE_ERROR), which the engine reports instead of the error; 16 KiB leaves room
 * for the metadata beside it and for HPACK's per-field overhead, and holds any message the
 * provider writes itself (a few hundred characters) whole. A longer text keeps its head and its
 * tail, where the advice is, and says how much was left out.
 */
export const GRPC_MESSAGE_CAP = 16 * 1024;

/** One character's length in `grpc-message`'s encoding. */
function encodedLength(char: string): number {
  const code = char.codePointAt(0)!;
  if (code >= 0x20 && code <= 0x7e && code !== 0x25) return 1;
  return 3 * Buffer.byteLength(char, "utf8");
}

/** `grpc-message`'s encoding: printable ASCII as is, every other byte (and `%`) as `%XX`. */
export function encodeGrpcMessage(text: string): string {
  let out = "";
  for (const byte of Buffer.from(text, "utf8"))
    out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  return out;
}

/** How many of `chars` (taken from the start) fit in `budget` encoded bytes. */
function fitting(chars: readonly string[], budget: number): number {
  let used = 0;
  let count = 0;
  for (const char of chars) {
    used += encodedLength(char);
    if (used > budget) break;
    count += 1;
  }
  return count;
}

/** What stands where a capped message's middle was (ASCII: its length is its encoded length). */
export function omissionMark(omitted: number): string {
  return ` [... ${omitted} characters left out; the provider logged the whole message ...] `;
}

/**
 * `text` when its encoding fits in `cap` bytes; otherwise its head and its tail around
 * {@link omissionMark}, together within `cap` once encoded (characters are never split).
 */
export function capGrpcMessage(text: string, cap = GRPC_MESSAGE_CAP): string {
  const chars = Array.from(text);
  const total = chars.reduce((sum, char) => sum + encodedLength(char), 0);
  if (total <= cap) return text;
  const budget = cap - omissionMark(chars.length).length;
  const head = fitting(chars, Math.floor(budget / 2));
  const tail = fitting(chars.slice(head).reverse(), budget - chars.slice(0, head).reduce((sum, char) => sum + encodedLength(char), 0));
  return chars.slice(0, head).join("") + omissionMark(chars.length - head - tail) + chars.slice(chars.length - tail).join("");
}

/** Whether {@link capGrpcMessage} shortens `text`. */
export function exceedsGrpcMessageCap(text: string, cap = GRPC_MESSAGE_CAP): boolean {
  return capGrpcMessage(text, cap) !== text;
}

/**
 * gRPC's length-prefixed messages: one framed for sending, and the one message of a unary request
 * read as its DATA frames arrive, refused as soon as its 5-byte prefix shows it cannot be served.
 */
import { GrpcStatus, type GrpcFailure } from "./grpc-status";

/**
 * The largest request message the plugin reads: 400 MiB, the engine's own limit for what it
 * receives (`rpcutil`'s `maxRPCMessageSize` in Pulumi's Go SDK), as the grpc-js server the plugin
 * once ran also had.
 */
export const MAX_REQUEST_MESSAGE_BYTES = 400 * 1024 * 1024;

/** The length-prefixed frame of one uncompressed message. */
export function frame(message: Uint8Array): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(message.length, 1);
  return Buffer.concat([header, message]);
}

/** Why a prefix cannot be served: a compressed message, or one over the limit. */
function prefixRefusal(prefix: Buffer, maxBytes: number): GrpcFailure | undefined {
  if (prefix[0] !== 0)
    return {
      code: GrpcStatus.UNIMPLEMENTED,
      details: "The analytics provider does not accept compressed messages: send them uncompressed (grpc-encoding identity).",
    };
  const length = prefix.readUInt32BE(1);
  if (length > maxBytes) {
    return {
      code: GrpcStatus.RESOURCE_EXHAUSTED,
      details: `The request's message is ${length} bytes, more than the ${maxBytes} the analytics provider accepts (the Pulumi engine's own limit).`,
    };
  }
  return undefined;
}

/**
 * The one message of a unary request, read chunk by chunk: the body is kept only once its prefix
 * is accepted, and copied once at most (not at all when one chunk holds the whole message).
 */
export class MessageReader {
  private prefix = Buffer.alloc(0);
  private readonly chunks: Buffer[] = [];
  private received = 0;
  private length: number | undefined;

  constructor(private readonly maxBytes = MAX_REQUEST_MESSAGE_BYTES) {}

  /** Takes the next chunk of the body; a failure as soon as the body cannot be one acceptable message. */
  push(chunk: Buffer): GrpcFailure | undefined {
    let rest = chunk;
    if (this.length === undefined) {
      const needed = 5 - this.prefix.length;
      this.prefix = Buffer.concat([this.prefix, rest.subarray(0, needed)]);
      rest = rest.subarray(needed);
      if (this.prefix.length < 5) return undefined;
      const refusal = prefixRefusal(this.prefix, this.maxBytes);
      if (refusal) return refusal;
      this.length = this.prefix.readUInt32BE(1);
    }
    if (this.received + rest.length > this.length)
      return { code: GrpcStatus.INTERNAL, details: "The request carries more than one message; a unary call carries exactly one." };
    if (rest.length > 0) this.chunks.push(rest);
    this.received += rest.length;
    return undefined;
  }

  /** At the end of the body: its message, or why there is none. */
  end(): Uint8Array | GrpcFailure {
    if (this.length === undefined) return { code: GrpcStatus.INTERNAL, details: "The request carries no message; a unary call carries exactly one." };
    if (this.received < this.length)
      return { code: GrpcStatus.INTERNAL, details: `The request ended inside its message (${this.received} of ${this.length} bytes).` };
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.length);
  }
}

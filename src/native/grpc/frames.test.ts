/** The unary request's one message, read chunk by chunk and refused at its prefix when it must be. */
import { describe, expect, it } from "vitest";
import { MAX_REQUEST_MESSAGE_BYTES, MessageReader, frame } from "./frames";
import { GrpcStatus } from "./grpc-status";

const prefix = (flag: number, length: number): Buffer => {
  const header = Buffer.alloc(5);
  header[0] = flag;
  header.writeUInt32BE(length, 1);
  return header;
};

/** Feeds `chunks` in turn: the first refusal (with how many chunks it took), else the end's outcome. */
function read(chunks: Buffer[], maxBytes?: number): { refusedAt?: number; outcome: unknown } {
  const reader = new MessageReader(maxBytes);
  for (const [index, chunk] of chunks.entries()) {
    const refusal = reader.push(chunk);
    if (refusal) return { refusedAt: index + 1, outcome: refusal };
  }
  return { outcome: reader.end() };
}

describe("MessageReader", () => {
  const hello = frame(Buffer.from("hello"));
  it.each([
    ["one chunk", [hello]],
    ["the prefix split across chunks", [hello.subarray(0, 2), hello.subarray(2, 4), hello.subarray(4)]],
    ["one byte per chunk", [...hello].map((byte) => Buffer.from([byte]))],
    ["empty chunks between", [Buffer.alloc(0), hello.subarray(0, 5), Buffer.alloc(0), hello.subarray(5)]],
  ])("reads a message sent as %s", (_label, chunks) => {
    expect(Buffer.from(read(chunks).outcome as Uint8Array).toString()).toBe("hello");
  });

  it("reads a message of 0 bytes, and hands back the chunk itself when one chunk holds the whole message", () => {
    expect((read([frame(new Uint8Array())]).outcome as Uint8Array).length).toBe(0);
    const chunk = frame(Buffer.from("x".repeat(1000)));
    const message = read([chunk]).outcome as Buffer;
    expect([message.buffer === chunk.buffer, message.byteOffset - chunk.byteOffset, message.length]).toEqual([true, 5, 1000]);
  });

  it.each([
    ["a compressed message, at its prefix", [prefix(1, 3), Buffer.from("abc")], 1, GrpcStatus.UNIMPLEMENTED, /compressed/],
    ["a message over the limit, at its prefix, before any of its body", [prefix(0, 101)], 1, GrpcStatus.RESOURCE_EXHAUSTED, /101 bytes, more than the 100/],
    ["a second message, at its first byte", [frame(Buffer.from("a")), Buffer.from([0])], 2, GrpcStatus.INTERNAL, /more than one message/],
    ["two messages in one chunk", [Buffer.concat([frame(Buffer.from("a")), frame(Buffer.from("b"))])], 1, GrpcStatus.INTERNAL, /more than one message/],
  ])("refuses %s", (_label, chunks, refusedAt, code, details) => {
    const { refusedAt: at, outcome } = read(chunks, 100);
    expect(at).toBe(refusedAt);
    expect(outcome).toMatchObject({ code, details: expect.stringMatching(details) });
  });

  it.each([
    ["an empty body", [], /no message/],
    ["a body ending in the prefix", [Buffer.from([0, 0, 0])], /no message/],
    ["a body ending inside the message", [prefix(0, 10), Buffer.from("abc")], /ended inside its message \(3 of 10 bytes\)/],
  ])("ends with INTERNAL on %s", (_label, chunks, details) => {
    expect(read(chunks).outcome).toMatchObject({ code: GrpcStatus.INTERNAL, details: expect.stringMatching(details) });
  });

  it("takes 400 MiB, the engine's own receive limit, and refuses a byte more", () => {
    expect(MAX_REQUEST_MESSAGE_BYTES).toBe(400 * 1024 * 1024);
    expect(new MessageReader().push(prefix(0, MAX_REQUEST_MESSAGE_BYTES))).toBeUndefined();
    expect(new MessageReader().push(prefix(0, MAX_REQUEST_MESSAGE_BYTES + 1))).toMatchObject({ code: GrpcStatus.RESOURCE_EXHAUSTED });
  });
});

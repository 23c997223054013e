/** grpc-message's encoding and its cap: a long text keeps its head and tail within the cap. */
import { describe, expect, it } from "vitest";
import { GRPC_MESSAGE_CAP, capGrpcMessage, encodeGrpcMessage, exceedsGrpcMessageCap, omissionMark } from "./grpc-status";

describe("grpc-message", () => {
  it("percent-encodes every byte outside printable ASCII, and the percent sign", () => {
    expect(encodeGrpcMessage('Name "é" is 100%\nbad')).toBe('Name "%C3%A9" is 100%25%0Abad');
  });

  it("is capped at 16 KiB as encoded", () => {
    expect(GRPC_MESSAGE_CAP).toBe(16_384);
  });

  it.each([
    ["ASCII at the cap", "a".repeat(100), 100],
    ["non-ASCII at the cap (é is 6 bytes encoded)", "é".repeat(10), 60],
    ["short", 'The analytics provider has no resource type "x".', GRPC_MESSAGE_CAP],
  ])("leaves a message that fits unchanged: %s", (_label, text, cap) => {
    expect(capGrpcMessage(text, cap)).toBe(text);
    expect(exceedsGrpcMessageCap(text, cap)).toBe(false);
  });

  it.each([
    ["ASCII", "HEAD:" + "x".repeat(99_985) + ":TAIL, see the advice", GRPC_MESSAGE_CAP],
    ["non-ASCII, never split", "«" + "é😀%".repeat(20_000) + "»", GRPC_MESSAGE_CAP],
    ["one over a small cap", "a".repeat(201), 200],
  ])("keeps the head and the tail of a longer one, within the cap once encoded: %s", (_label, text, cap) => {
    const capped = capGrpcMessage(text, cap);
    expect(exceedsGrpcMessageCap(text, cap)).toBe(true);
    expect(encodeGrpcMessage(capped).length).toBeLessThanOrEqual(cap);
    const [head, tail] = capped.split(/ \[\.\.\. \d+ characters left out; the provider logged the whole message \.\.\.\] /) as [string, string];
    expect(text.startsWith(head) && text.endsWith(tail)).toBe(true);
    const omitted = Number(/\[\.\.\. (\d+) characters/.exec(capped)![1]);
    expect(Array.from(head).length + omitted + Array.from(tail).length).toBe(Array.from(text).length);
    expect(encodeGrpcMessage(head).length).toBeGreaterThan((cap - omissionMark(omitted).length) / 2 - 20);
  });
});

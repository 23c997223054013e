/** The health check's two messages, and its answers as grpc-go's health server gives them. */
import { BinaryReader, BinaryWriter } from "google-protobuf";
import { describe, expect, it } from "vitest";
import { ServingStatus, decodeHealthCheckRequest, encodeHealthCheckResponse, healthCheck } from "./health";
import { GrpcStatus } from "./grpc-status";

/** A HealthCheckRequest written by google-protobuf, with fields it does not know around `service`. */
function request(service: string | undefined, unknownFields = false): Uint8Array {
  const writer = new BinaryWriter();
  if (unknownFields) {
    writer.writeUint64(7, 300);
    writer.writeFixed32(8, 1);
    writer.writeFixed64(9, 2);
  }
  if (service !== undefined) writer.writeString(1, service);
  if (unknownFields) writer.writeBytes(10, new Uint8Array(200));
  return writer.getResultBuffer();
}

describe("grpc.health.v1.Health/Check", () => {
  it.each([
    ["no service", request(undefined), ""],
    ["the provider's service", request("pulumirpc.ResourceProvider"), "pulumirpc.ResourceProvider"],
    ["a long name among unknown fields", request("é".repeat(100), true), "é".repeat(100)],
  ])("reads a request with %s", (_label, bytes, service) => {
    expect(decodeHealthCheckRequest(bytes)).toBe(service);
  });

  it("refuses a request cut short", () => {
    expect(() => decodeHealthCheckRequest(request("abc").subarray(0, 3))).toThrow(/ends inside a field/);
    expect(() => decodeHealthCheckRequest(new Uint8Array([0x0a, 0x80]))).toThrow(/varint/);
  });

  it("writes the status as google-protobuf reads it", () => {
    const reader = new BinaryReader(encodeHealthCheckResponse(ServingStatus.NOT_SERVING));
    reader.nextField();
    expect([reader.getFieldNumber(), reader.readEnum()]).toEqual([1, 2]);
  });

  it.each([
    ["", false, ServingStatus.SERVING],
    ["pulumirpc.ResourceProvider", false, ServingStatus.SERVING],
    ["", true, ServingStatus.NOT_SERVING],
    ["pulumirpc.ResourceProvider", true, ServingStatus.NOT_SERVING],
  ])("answers %j (shutting down: %s) with status %i", (service, shuttingDown, status) => {
    expect(healthCheck(service, ["pulumirpc.ResourceProvider"], shuttingDown)).toEqual(encodeHealthCheckResponse(status));
  });

  it("answers NOT_FOUND for a service it does not serve", () => {
    expect(healthCheck("pulumirpc.Other", ["pulumirpc.ResourceProvider"], false)).toEqual({ code: GrpcStatus.NOT_FOUND, details: "unknown service" });
  });
});

/**
 * `grpc.health.v1.Health/Check`, served as Pulumi's Go plugins serve it (`rpcutil` registers
 * grpc-go's health server and marks the empty name and every service it registered SERVING; an
 * unknown name is NOT_FOUND), and NOT_SERVING once the plugin is shutting down. Its two messages
 * are one field each, read and written here rather than from generated bindings.
 */
import { GrpcStatus, type GrpcFailure } from "./grpc-status";

/** The request path of the health check. */
export const HEALTH_CHECK_PATH = "/grpc.health.v1.Health/Check";

/** `HealthCheckResponse.ServingStatus`'s values the plugin answers with. */
export const ServingStatus = { SERVING: 1, NOT_SERVING: 2 } as const;

/** A protobuf varint at `offset`: its value and the offset after it. */
function varint(bytes: Uint8Array, offset: number): [value: number, next: number] {
  let value = 0;
  let shift = 0;
  for (let at = offset; at < bytes.length; at += 1) {
    value += (bytes[at]! & 0x7f) * 2 ** shift;
    if ((bytes[at]! & 0x80) === 0) return [value, at + 1];
    shift += 7;
  }
  throw new Error("The health check request ends inside a varint.");
}

/** The bytes a field of `wireType` takes after its key at `offset`: the offset after it. */
function skipField(bytes: Uint8Array, wireType: number, offset: number): number {
  if (wireType === 0) return varint(bytes, offset)[1];
  if (wireType === 1) return offset + 8;
  if (wireType === 5) return offset + 4;
  if (wireType === 2) {
    const [length, start] = varint(bytes, offset);
    return start + length;
  }
  throw new Error(`The health check request has a field of wire type ${wireType}.`);
}

/** `HealthCheckRequest.service` (field 1, a string), "" when absent; other fields are skipped. */
export function decodeHealthCheckRequest(bytes: Uint8Array): string {
  let service = "";
  let offset = 0;
  while (offset < bytes.length) {
    const [key, next] = varint(bytes, offset);
    if (key === 0x0a) {
      const [length, start] = varint(bytes, next);
      service = Buffer.from(bytes.subarray(start, start + length)).toString("utf8");
      offset = start + length;
    } else {
      offset = skipField(bytes, key & 7, next);
    }
  }
  if (offset > bytes.length) throw new Error("The health check request ends inside a field.");
  return service;
}

/** `HealthCheckResponse` with `status` (field 1, an enum). */
export function encodeHealthCheckResponse(status: number): Uint8Array {
  return new Uint8Array([0x08, status]);
}

/**
 * The health check's answer for `service`: SERVING for the empty name and each of `services`
 * (NOT_SERVING once `shuttingDown`), NOT_FOUND for any other name, as grpc-go's health server.
 */
export function healthCheck(service: string, services: readonly string[], shuttingDown: boolean): Uint8Array | GrpcFailure {
  if (service !== "" && !services.includes(service)) return { code: GrpcStatus.NOT_FOUND, details: "unknown service" };
  return encodeHealthCheckResponse(shuttingDown ? ServingStatus.NOT_SERVING : ServingStatus.SERVING);
}

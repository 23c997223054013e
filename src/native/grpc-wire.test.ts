/**
 * The plugin's unary gRPC over node:http2 against @grpc/grpc-js's client (the engine's side is
 * grpc-go's, which speaks the same protocol): framing, statuses with any text, trailers metadata.
 */
import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GrpcStatus, encodeGrpcMessage, frame, serveUnary, unaryClient, unframe, type UnaryMethod } from "./grpc-wire";

const bytes = (text: string): Uint8Array => new Uint8Array(Buffer.from(text));
const text = (data: Uint8Array): string => Buffer.from(data).toString();

describe("framing", () => {
  it("prefixes one uncompressed message with its length and reads it back", () => {
    const framed = frame(bytes("hello"));
    expect([...framed.subarray(0, 5)]).toEqual([0, 0, 0, 0, 5]);
    expect(text(unframe(framed) as Uint8Array)).toBe("hello");
  });

  it("refuses a compressed message, a short body and a body of more than one message", () => {
    const compressed = frame(bytes("x"));
    compressed[0] = 1;
    expect(unframe(compressed)).toMatch(/compressed/);
    expect(unframe(Buffer.from([0, 0, 0]))).toMatch(/no message/);
    expect(unframe(Buffer.concat([frame(bytes("a")), frame(bytes("b"))]))).toMatch(/other than one message/);
  });

  it("percent-encodes grpc-message: every byte outside printable ASCII, and the percent sign", () => {
    expect(encodeGrpcMessage('Name "é" is 100%\nbad')).toBe('Name "%C3%A9" is 100%25%0Abad');
  });
});

describe("a unary server and client over node:http2", () => {
  let server: http2.Http2Server;
  let address: string;
  const logged: string[] = [];
  const methods = new Map<string, UnaryMethod>([
    ["/test.Echo/Echo", { decode: text, handle: async (request) => bytes(`echo ${String(request)}`) }],
    ["/test.Echo/Fail", { decode: text, handle: async () => ({ code: GrpcStatus.UNKNOWN, details: "Nom « ü » refusé: 100%\nsecond line", metadata: { "analytics-error-code": "ANALYTICS_X" } }) }],
    ["/pulumirpc.Engine/Log", { decode: text, handle: async (request) => (logged.push(String(request)), new Uint8Array()) }],
  ]);
  let client: grpc.Client;
  const call = (path: string, request: string): Promise<string> =>
    new Promise((resolve, reject) =>
      client.makeUnaryRequest(path, (value: string) => Buffer.from(value), (data: Buffer) => data.toString(), request, (error, value) => (error ? reject(error) : resolve(value!))),
    );

  beforeAll(async () => {
    server = http2.createServer();
    server.on("stream", (stream, headers) => void serveUnary(stream, headers, methods));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    client = new grpc.Client(address, grpc.credentials.createInsecure());
  });
  afterAll(() => {
    client.close();
    server.close();
  });

  it("answers a call with the handler's message", async () => {
    expect(await call("/test.Echo/Echo", "hi")).toBe("echo hi");
  });

  it("answers a failure with its status, its text exactly, and its metadata", async () => {
    const error = (await call("/test.Echo/Fail", "x").catch((e: grpc.ServiceError) => e)) as grpc.ServiceError;
    expect([error.code, error.details]).toEqual([grpc.status.UNKNOWN, "Nom « ü » refusé: 100%\nsecond line"]);
    expect(error.metadata.get("analytics-error-code")).toEqual(["ANALYTICS_X"]);
  });

  it("answers UNIMPLEMENTED for a method it does not serve, naming it", async () => {
    await expect(call("/test.Echo/Other", "x")).rejects.toMatchObject({ code: grpc.status.UNIMPLEMENTED, details: "The analytics provider does not implement Other." });
  });

  it("calls a method as a client: true when it answered OK, false on a failure or no server", async () => {
    const ours = unaryClient(address);
    try {
      expect(await ours.call("/pulumirpc.Engine/Log", bytes("a notice"))).toBe(true);
      expect(logged).toEqual(["a notice"]);
      expect(await ours.call("/test.Echo/Fail", bytes("x"))).toBe(false);
      expect(await ours.call("/test.Echo/Other", bytes("x"))).toBe(false);
    } finally {
      ours.close();
    }
    const nowhere = unaryClient("127.0.0.1:1");
    expect(await nowhere.call("/pulumirpc.Engine/Log", bytes("lost"))).toBe(false);
    nowhere.close();
  });
});

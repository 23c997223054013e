/**
 * The HTTP adapter over real HTTP on 127.0.0.1: bodies (size, type, JSON), hostile input, raw
 * sockets, failures behind 500s, and the request log and log lines.
 */
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { ORGANIZATIONS_PATH, dataSourcesPath } from "../../contract";
import { INTERNAL_ERROR_DETAIL } from "./envelope";
import { displayPath } from "./http-adapter";
import { DEFAULT_MAX_BODY_BYTES, LINGER_MAX_BYTES, LINGER_MAX_MS } from "./request-body";
import { startReferenceServer, type ReferenceServer } from "../server";
import {
  MARK,
  call,
  closeServersAfterEach,
  createDataSource,
  createOrg,
  expectError,
  running,
  start,
  tempDir,
} from "../../../test/support/reference-server-harness";

closeServersAfterEach();

describe("raw HTTP", () => {
  it("answers unparseable HTTP with the JSON error envelope", async () => {
    const { server } = await start();
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(server.port, "127.0.0.1", () => socket.write("THIS IS NOT HTTP\r\n\r\n"));
      let data = "";
      socket.on("data", (chunk) => (data += chunk.toString()));
      socket.on("close", () => resolve(data));
      socket.on("error", reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).toContain("content-type: application/json; charset=utf-8");
    expect(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4))).toEqual({ error: { title: "ValidationError", detail: expect.any(String) } });
  });

  it.each([
    ["/x/analytics_key_AAAA", "/x/[redacted]"],
    ["/a\u0000b\u001fc\u007f", "/a?b?c?"],
    ["/" + "y".repeat(300), "/" + "y".repeat(199) + "…"],
  ])("shows %j in log lines as %j", (raw, shown) => {
    expect(displayPath(raw)).toBe(shown);
  });
});

describe("status codes", () => {
  it("400 for malformed JSON, explaining without quoting the body", async () => {
    const { server } = await start();
    const reply = await call(server, "POST", ORGANIZATIONS_PATH, { key: server.apiKeys.alice!, raw: `{"name": "${MARK}" oops` });
    expectError(reply, 400, "ValidationError");
    expect(reply.json.error.detail).toMatch(/not valid JSON/);
    expect(reply.text).not.toContain(MARK);
  });

  it.each([
    ["an array", "[]"],
    ["a string", '"name"'],
    ["a number", "42"],
    ["null", "null"],
    ["true", "true"],
  ])("400 for a body that is %s, not an object", async (_, raw) => {
    const { server } = await start();
    const org = await createOrg(server, server.apiKeys.alice!);
    for (const pathname of [ORGANIZATIONS_PATH, dataSourcesPath(org.id)]) {
      const reply = await call(server, "POST", pathname, { key: server.apiKeys.alice!, raw });
      expectError(reply, 400, "ValidationError");
      expect(reply.json.error.detail).toMatch(/^\(body\): must be a JSON object/);
    }
  });

  it("400 for an empty body", async () => {
    const { server } = await start();
    const reply = await call(server, "POST", ORGANIZATIONS_PATH, { key: server.apiKeys.alice!, raw: "" });
    expectError(reply, 400, "ValidationError");
    expect(reply.json.error.detail).toMatch(/empty/);
  });

  it("401 with WWW-Authenticate: Bearer", async () => {
    const { server } = await start();
    const reply = await call(server, "POST", ORGANIZATIONS_PATH, { body: { name: "x" } });
    expectError(reply, 401, "Unauthorized");
    expect(reply.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
  });

  it("413 for a 2 MiB body (declared length), and the server goes on", async () => {
    const { server } = await start();
    const reply = await call(server, "POST", ORGANIZATIONS_PATH, {
      key: server.apiKeys.alice!,
      raw: JSON.stringify({ name: "x".repeat(2 * 1024 * 1024) }),
    });
    expectError(reply, 413, "PayloadTooLarge");
    expect(reply.json.error.detail).toContain(String(1024 * 1024));
    expect(server.inspect.organizations()).toHaveLength(0);
    await createOrg(server, server.apiKeys.alice!);
  });

  it("413 for a streamed body without Content-Length once it crosses the limit", async () => {
    const { server } = await start({ maxBodyBytes: 1000 });
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    const offered = 1024; // 64 MiB, far beyond what socket buffers absorb once the server stops reading
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < offered) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const res = await fetch(`${server.url}${ORGANIZATIONS_PATH}`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.apiKeys.alice!}`, "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    const json = await res.json();
    expect(res.status).toBe(413);
    expect(res.headers.get("connection")).toBe("close");
    expect(json).toEqual({ error: { title: "PayloadTooLarge", detail: expect.stringContaining("1000 bytes") } });
    // The 413 came as the body crossed the limit, and the server stops reading 16 MiB later at the
    // latest (LINGER_MAX_BYTES): most of the stream was never taken.
    expect(sent).toBeLessThan(offered / 2);
  });

  it("the body limit is configurable", async () => {
    const { server } = await start({ maxBodyBytes: 64 });
    expectError(await call(server, "POST", ORGANIZATIONS_PATH, { key: server.apiKeys.alice!, body: { name: "y".repeat(80) } }), 413, "PayloadTooLarge");
    expect((await call(server, "POST", ORGANIZATIONS_PATH, { key: server.apiKeys.alice!, body: { name: "short" } })).status).toBe(201);
  });

  it.each([
    ["no Content-Type", null],
    ["text/plain", "text/plain"],
    ["form encoding", "application/x-www-form-urlencoded"],
    ["a non-UTF-8 charset", "application/json; charset=iso-8859-1"],
  ])("415 for %s", async (_, contentType) => {
    const { server } = await start();
    const reply = await call(server, "POST", ORGANIZATIONS_PATH, { key: server.apiKeys.alice!, raw: '{"name":"x"}', contentType });
    expectError(reply, 415, "UnsupportedMediaType");
  });

  it("accepts application/json with a UTF-8 charset parameter", async () => {
    const { server } = await start();
    const reply = await call(server, "POST", ORGANIZATIONS_PATH, {
      key: server.apiKeys.alice!,
      raw: '{"name":"x"}',
      contentType: "application/json; charset=UTF-8",
    });
    expect(reply.status).toBe(201);
  });

  it("500 leaks nothing internal and the server keeps serving", async () => {
    const dir = tempDir();
    const stateDir = path.join(dir, "state");
    fs.mkdirSync(stateDir);
    const errors: unknown[] = [];
    const { server, logs } = await start({ statePath: path.join(stateDir, "state.json"), onInternalError: (err) => errors.push(err) });
    fs.rmSync(stateDir, { recursive: true });
    const reply = await call(server, "POST", ORGANIZATIONS_PATH, { key: server.apiKeys.alice!, body: { name: "Doomed" } });
    expect(reply.json).toEqual({ error: { title: "InternalError", detail: INTERNAL_ERROR_DETAIL } });
    expect(reply.status).toBe(500);
    expect(reply.text).not.toMatch(/ENOENT|state\.json|\bat\s|\.ts:|\.js:/);
    expect(errors).toHaveLength(1);
    expect(logs.some((line) => /internal error/.test(line) && !line.includes("state.json"))).toBe(true);
    fs.mkdirSync(stateDir);
    expect((await call(server, "POST", ORGANIZATIONS_PATH, { key: server.apiKeys.alice!, body: { name: "Fine" } })).status).toBe(201);
  });
});

/** An answer as a raw client reads it. */
interface RawAnswer {
  statusLine: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
}

/** A raw HTTP/1.1 client on one socket, half-open so it can go on sending after the server's FIN. */
interface RawClient {
  socket: net.Socket;
  /** Resolves with the first complete answer (head and Content-Length body); rejects if the socket closes first. */
  answer: Promise<RawAnswer>;
  /** Resolves once the server ended its side (FIN). */
  ended: Promise<void>;
  /** Resolves once the socket closed, with its error if any. */
  closed: Promise<Error | undefined>;
}

function rawClient(server: ReferenceServer, head: Record<string, string>): Promise<RawClient> {
  return new Promise((resolveClient, rejectClient) => {
    const socket = net.connect({ port: server.port, host: "127.0.0.1", allowHalfOpen: true });
    let received = Buffer.alloc(0);
    let error: Error | undefined;
    const closed = new Promise<Error | undefined>((resolve) => socket.on("close", () => resolve(error)));
    const ended = new Promise<void>((resolve) => socket.on("end", resolve));
    const answer = new Promise<RawAnswer>((resolve, reject) => {
      socket.on("data", (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        const cut = received.indexOf("\r\n\r\n");
        if (cut === -1) return;
        const [statusLine = "", ...lines] = received.subarray(0, cut).toString("latin1").split("\r\n");
        const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
        const length = Number(headers["content-length"]);
        if (received.length - cut - 4 >= length) resolve({ statusLine, headers, body: received.subarray(cut + 4, cut + 4 + length).toString("utf8") });
      });
      void closed.then(() => reject(new Error(`closed before a complete answer: ${received.toString("latin1").slice(0, 200)}`)));
    });
    answer.catch(() => undefined);
    socket.on("error", (err) => (error = err));
    socket.once("connect", () => {
      const lines = Object.entries({ host: `127.0.0.1:${server.port}`, ...head }).map(([name, value]) => `${name}: ${value}\r\n`);
      socket.write(`POST ${ORGANIZATIONS_PATH} HTTP/1.1\r\n${lines.join("")}\r\n`);
      resolveClient({ socket, answer, ended, closed });
    });
    socket.once("error", rejectClient);
  });
}

/** One chunk of a chunked body. */
const chunkFrame = (data: Buffer): Buffer => Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from("\r\n")]);

/** Writes `frame` until `total` bytes of body went out or the socket fails; resolves with the body bytes written. */
async function pump(client: RawClient, data: Buffer, total: number): Promise<number> {
  const frame = chunkFrame(data);
  let gone = false;
  void client.closed.then(() => (gone = true));
  let sent = 0;
  while (sent < total && !gone && !client.socket.destroyed) {
    sent += data.length;
    if (!client.socket.write(frame)) {
      await Promise.race([new Promise((resolve) => client.socket.once("drain", resolve)), client.closed]);
    }
  }
  return sent;
}

/** `promise`, or a failure after `ms`: a bound on a wait, never a measurement. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, bound]);
  } finally {
    clearTimeout(timer);
  }
}

function expect413(answer: RawAnswer): void {
  expect(answer.statusLine).toBe("HTTP/1.1 413 Payload Too Large");
  expect(answer.headers.connection).toBe("close");
  expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
  expect(JSON.parse(answer.body)).toEqual({
    error: { title: "PayloadTooLarge", detail: `The request body exceeds the limit of ${DEFAULT_MAX_BODY_BYTES} bytes.` },
  });
}

describe("an oversized body is answered at once, then the connection lingers", () => {
  const piece = Buffer.alloc(64 * 1024, 0x20);
  /** Just over the limit: 17 pieces of 64 KiB. */
  const overLimit = DEFAULT_MAX_BODY_BYTES + piece.length;
  const head = (server: ReferenceServer): Record<string, string> => ({
    authorization: `Bearer ${server.apiKeys.alice!}`,
    "content-type": "application/json",
  });

  it.each([
    ["a chunked body that crossed the limit", { "transfer-encoding": "chunked" }, overLimit],
    ["a declared Content-Length over the limit, before any body", { "content-length": String(5 * DEFAULT_MAX_BODY_BYTES) }, 0],
  ])("answers %s while the client waits, and records the request once", async (_, framing, bodyBytes) => {
    const started = await start();
    const { server } = started;
    const client = await rawClient(server, { ...head(server), ...framing });
    try {
      if (bodyBytes > 0) await pump(client, piece, bodyBytes);
      // The body is unfinished (no last chunk, or 5 MiB short) and the client sends nothing more.
      expect413(await within(10_000, "413", client.answer));
      await within(10_000, "FIN after the 413", client.ended);
      expect(server.inspect.requestCount()).toBe(1);
      expect(server.inspect.requests().recent.map((e) => e.status)).toEqual([413]);
      expect(started.logs).toEqual([expect.stringMatching(/^POST \/api\/public\/organizations 413 \d+ms$/)]);
      expect(server.inspect.organizations()).toHaveLength(0);
    } finally {
      client.socket.destroy();
    }
  });

  it("reads and discards the rest of the body after the 413, so a client that finishes its upload sees no reset", async () => {
    const { server } = await start();
    const client = await rawClient(server, { ...head(server), "transfer-encoding": "chunked" });
    try {
      await pump(client, piece, overLimit);
      expect413(await within(10_000, "413", client.answer));
      // 4 MiB more, far beyond what socket buffers absorb unless the server reads, then the last chunk.
      expect(await pump(client, piece, 4 * 1024 * 1024)).toBe(4 * 1024 * 1024);
      client.socket.end("0\r\n\r\n");
      expect(await within(10_000, "close", client.closed)).toBeUndefined();
      expect(server.inspect.requestCount()).toBe(1);
    } finally {
      client.socket.destroy();
    }
  });

  it(
    "closes the connection of a client that stalls after the 413 within the linger time",
    async () => {
      const { server } = await start();
      const client = await rawClient(server, { ...head(server), "transfer-encoding": "chunked" });
      try {
        await pump(client, piece, overLimit);
        expect413(await within(10_000, "413", client.answer));
        // The client stalls. Once the server has closed, a probe (one valid 1-byte chunk) meets a
        // reset; probes go out every 250 ms, until the wait's bound.
        const probe = chunkFrame(Buffer.from(" "));
        const probing = setInterval(() => client.socket.writable && client.socket.write(probe), 250);
        try {
          const error = await within(LINGER_MAX_MS + 10_000, "close", client.closed);
          expect(error).toMatchObject({ code: expect.stringMatching(/^(ECONNRESET|EPIPE)$/) });
        } finally {
          clearInterval(probing);
        }
        expect(server.inspect.requestCount()).toBe(1);
      } finally {
        client.socket.destroy();
      }
    },
    LINGER_MAX_MS + 20_000,
  );

  it(
    "stops reading a client that keeps sending past the linger cap",
    async () => {
      const { server } = await start();
      const client = await rawClient(server, { ...head(server), "transfer-encoding": "chunked" });
      try {
        const offered = DEFAULT_MAX_BODY_BYTES + LINGER_MAX_BYTES + 64 * 1024 * 1024;
        const sent = await within(LINGER_MAX_MS + 20_000, "end of the upload", pump(client, Buffer.alloc(256 * 1024, 0x20), offered));
        expect413(await client.answer);
        expect(await within(10_000, "close", client.closed)).toMatchObject({ code: expect.stringMatching(/^(ECONNRESET|EPIPE)$/) });
        expect(sent).toBeLessThan(offered);
        expect(server.inspect.requestCount()).toBe(1);
      } finally {
        client.socket.destroy();
      }
    },
    LINGER_MAX_MS + 40_000,
  );
});

describe("hostile bodies", () => {
  const pollutions = [
    '{"__proto__": {"polluted": "yes"}, "name": "p"}',
    '{"constructor": {"prototype": {"polluted": "yes"}}, "name": "p"}',
    '{"name": "p", "prototype": {"polluted": "yes"}}',
  ];

  it.each(pollutions)("rejects %s and leaves Object.prototype untouched", async (raw) => {
    const { server } = await start();
    const key = server.apiKeys.alice!;
    const protoKeys = Object.getOwnPropertyNames(Object.prototype).sort();
    const org = await createOrg(server, key);
    const orgReply = await call(server, "POST", ORGANIZATIONS_PATH, { key, raw });
    expectError(orgReply, 400, "ValidationError");
    expect(orgReply.json.error.detail).toMatch(/(__proto__|constructor|prototype): is not a field of this request/);
    const dsRaw = raw.replace('"name": "p"', '"type": "direct", "dialect": "POSTGRES", "displayName": "p"');
    expectError(await call(server, "POST", dataSourcesPath(org.id), { key, raw: dsRaw }), 400, "ValidationError");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(protoKeys);
    expect(server.inspect.organizations()).toHaveLength(1);
    expect(server.inspect.dataSources()).toHaveLength(0);
  });

  it("answers 1000-deep nested JSON with 400 and keeps serving", async () => {
    const { server } = await start();
    const key = server.apiKeys.alice!;
    for (const raw of [`${"[".repeat(1000)}${"]".repeat(1000)}`, `{"name": ${'{"a":'.repeat(1000)}1${"}".repeat(1000)}}`]) {
      const reply = await call(server, "POST", ORGANIZATIONS_PATH, { key, raw });
      expectError(reply, 400, "ValidationError");
      expect(reply.json.error.detail).toMatch(/deeper than/);
    }
    expect(server.inspect.organizations()).toHaveLength(0);
    await createOrg(server, key);
  });

  it("answers a body of invalid UTF-8 with 400", async () => {
    const { server } = await start();
    const reply = await call(server, "POST", ORGANIZATIONS_PATH, { key: server.apiKeys.alice!, raw: Uint8Array.from([0x7b, 0xc3, 0x28, 0x7d]) });
    expectError(reply, 400, "ValidationError");
  });
});

describe("request log and logging", () => {
  it("counts every API request by route and status", async () => {
    const { server } = await start();
    expect(server.inspect.requestCount()).toBe(0);
    const key = server.apiKeys.alice!;
    const org = await createOrg(server, key);
    await createDataSource(server, key, org.id);
    await call(server, "POST", ORGANIZATIONS_PATH, { body: { name: "x" } });
    await call(server, "GET", "/nope");
    expect(server.inspect.requestCount()).toBe(4);
    expect(server.inspect.requests().byRoute).toEqual({
      "GET (unmatched)": { "404": 1 },
      [`POST ${ORGANIZATIONS_PATH}`]: { "201": 1, "401": 1 },
      [`POST ${ORGANIZATIONS_PATH}/{orgId}/data-sources`]: { "201": 1 },
    });
    expect(server.inspect.requests().recent.map((e) => e.status)).toEqual([201, 201, 401, 404]);
  });

  it("logs one line per request: method, path, status, duration; nothing else", async () => {
    const started = await start();
    const { server } = started;
    const org = await createOrg(server, server.apiKeys.alice!);
    await createDataSource(server, server.apiKeys.alice!, org.id);
    await call(server, "POST", `/x/analytics_key_${"A".repeat(32)}`);
    expect(started.logs).toEqual([
      expect.stringMatching(/^POST \/api\/public\/organizations 201 \d+ms$/),
      expect.stringMatching(/^POST \/api\/public\/organizations\/org_\w+\/data-sources 201 \d+ms$/),
      expect.stringMatching(/^POST \/x\/\[redacted\] 404 \d+ms$/),
    ]);
  });

  it("is silent without a logger", async () => {
    const writes: string[] = [];
    const original = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => {
      writes.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    try {
      const server = await startReferenceServer({ bootstrapUsers: ["alice"] });
      running.push({ server, logs: [], syncTargets: [] });
      await createOrg(server, server.apiKeys.alice!);
    } finally {
      process.stdout.write = original;
    }
    expect(writes).toEqual([]);
  });
});

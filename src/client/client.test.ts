import * as http from "node:http";
import type { AddressInfo } from "node:net";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AnalyticsClient } from "./client";
import { AmbiguousCreateError, ApiError, ConfigurationError, ConnectionError, UnauthorizedError } from "./errors";
import { fetchTransport, undiciTransport } from "./transport";
import { dataSourceSpec } from "../kinds";

const KEY = "analytics_key_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345";
const org = { id: "org_1", name: "Acme", slug: "acme", customAiContext: null, onboardingStatus: "STARTED" };
const dataSourceBody = { type: "direct" as const, dialect: "POSTGRES" as const, displayName: "WH", password: "hunter2-secret" };

/** A stub server whose behaviour each test scripts; counts every request it receives. */
function stubServer() {
  let handler: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void = (_q, res) => res.end();
  const received: Array<{ url: string; headers: http.IncomingHttpHeaders; body: string }> = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push({ url: req.url ?? "", headers: req.headers, body });
      handler(req, res, body);
    });
  });
  return {
    received,
    set(next: typeof handler) {
      handler = next;
    },
    async start() {
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

describe("AnalyticsClient over undici, against a server on port 0", () => {
  const stub = stubServer();
  let baseUrl = "";
  const sleeps: number[] = [];
  const client = () =>
    new AnalyticsClient({ baseUrl, apiKey: KEY, transport: undiciTransport({ requestTimeoutMs: 2000 }), sleep: async (ms) => void sleeps.push(ms) });

  beforeAll(async () => {
    baseUrl = await stub.start();
  });
  afterAll(() => stub.close());
  afterEach(() => {
    stub.received.length = 0;
    sleeps.length = 0;
  });

  it("posts JSON with the bearer key and returns the contract-checked object", async () => {
    stub.set((_req, res) => res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ data: org })));
    await expect(client().createOrganization({ name: "Acme" })).resolves.toEqual(org);
    expect(stub.received).toHaveLength(1);
    expect(stub.received[0]?.url).toBe("/api/public/organizations");
    expect(stub.received[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(stub.received[0]?.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(stub.received[0]?.body ?? "")).toEqual({ name: "Acme" });
  });

  it("creates once and tells each difference of an answer off the spec, whatever its listener does, never quoting the key or a credential", async () => {
    stub.set((_req, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: { id: 9, displayName: "WH", port: `${KEY} hunter2-secret` } })),
    );
    const heard: unknown[] = [];
    const created = await client().createObject(
      dataSourceSpec,
      dataSourceBody,
      { orgId: "org_1" },
      {
        onDifference: (event) => {
          heard.push(event);
          throw new Error("a listener's own failure");
        },
      },
    );
    expect(created).toMatchObject({ id: "9", displayName: "WH", port: null, sshHost: null });
    expect(stub.received).toHaveLength(1);
    expect(heard).toContainEqual({
      field: "port",
      received: 'a string ("[redacted] [redacted]")',
      recorded: null,
      lossless: false,
      object: 'data source "WH" in organization org_1',
      id: "9",
    });
    expect(heard).toContainEqual(expect.objectContaining({ field: "id", received: "a number", lossless: true }));
    expect(JSON.stringify(heard)).not.toMatch(/hunter2|analytics_key_/);
  });

  it("retries 503 after a Retry-After of decimal seconds, waiting that long", async () => {
    let calls = 0;
    stub.set((_req, res) => {
      calls++;
      if (calls < 2)
        res.writeHead(503, { "retry-after": "1.5", "content-type": "application/json" }).end('{"error":{"title":"ServiceUnavailable","detail":"later"}}');
      else res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ data: org }));
    });
    await expect(client().createOrganization({ name: "Acme" })).resolves.toEqual(org);
    expect(sleeps).toEqual([1500]);
  });

  it("retries 429 after Retry-After and creates exactly once", async () => {
    let calls = 0;
    stub.set((_req, res) => {
      calls++;
      if (calls < 3)
        res.writeHead(429, { "retry-after": "2", "content-type": "application/json" }).end('{"error":{"title":"RateLimited","detail":"slow down"}}');
      else res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ data: org }));
    });
    await expect(client().createOrganization({ name: "Acme" })).resolves.toEqual(org);
    expect(stub.received).toHaveLength(3);
    expect(sleeps).toEqual([2000, 2000]);
  });

  it("does not retry a reset after the request was read; the error says the object may exist", async () => {
    stub.set((req) => req.socket.destroy());
    const error = await client()
      .createDataSource("org_1", dataSourceBody)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AmbiguousCreateError);
    expect((error as Error).message).toMatch(/data source "WH" in organization org_1 may or may not have been created/);
    expect(stub.received).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it.each([500, 502, 504])("does not retry HTTP %i", async (status) => {
    stub.set((_req, res) => res.writeHead(status, { "content-type": "application/json" }).end('{"error":{"title":"X","detail":"y"}}'));
    await expect(client().createOrganization({ name: "Acme" })).rejects.toThrow(AmbiguousCreateError);
    expect(stub.received).toHaveLength(1);
  });

  it("times out a server that never answers, as an ambiguous create", async () => {
    stub.set(() => {});
    const slow = new AnalyticsClient({ baseUrl, apiKey: KEY, transport: undiciTransport({ requestTimeoutMs: 200 }) });
    await expect(slow.createOrganization({ name: "Acme" })).rejects.toThrow(
      /UND_ERR_HEADERS_TIMEOUT: timed out: no complete answer within 200 ms\).*may or may not have been created/,
    );
    await slow.close();
  });

  it("never puts the key or a credential into an error message", async () => {
    stub.set((_req, res, body) =>
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { title: "ValidationError", detail: `echo ${body} ${KEY}` } })),
    );
    const error = (await client()
      .createDataSource("org_1", dataSourceBody)
      .catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toContain("[redacted]");
    expect(error.message).not.toContain(KEY);
    expect(error.message).not.toContain("hunter2-secret");
  });

  it("posts each create to its own owner's path, one owner after another", async () => {
    stub.set((_req, res) => res.writeHead(400, { "content-type": "application/json" }).end('{"error":{"title":"X","detail":"y"}}'));
    const one = client();
    for (const orgId of ["org_1", "org_2", "org_2", "org/3", "org_1"]) await one.createDataSource(orgId, dataSourceBody).catch(() => {});
    expect(stub.received.map((r) => r.url)).toEqual([
      "/api/public/organizations/org_1/data-sources",
      "/api/public/organizations/org_2/data-sources",
      "/api/public/organizations/org_2/data-sources",
      "/api/public/organizations/org%2F3/data-sources",
      "/api/public/organizations/org_1/data-sources",
    ]);
  });

  it("redacts the credentials that were sent, even if the caller changes the body while the create is under way", async () => {
    stub.set((_req, res, body) =>
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { title: "ValidationError", detail: `echo ${body}` } })),
    );
    const body = { ...dataSourceBody };
    const pending = client()
      .createDataSource("org_1", body)
      .catch((e: unknown) => e);
    body.password = "another-secret";
    const error = (await pending) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toContain("[redacted]");
    expect(error.message).not.toContain("hunter2-secret");
  });

  it("gives the client lower-cased response headers, repeated ones joined", async () => {
    stub.set((_req, res) => {
      res.setHeader("X-Repeated", ["a", "b"]);
      res.writeHead(429, { "Retry-After": "3", "content-type": "application/json" }).end("{}");
    });
    const transport = undiciTransport();
    const response = await transport.send({ method: "POST", url: `${baseUrl}/x`, headers: {}, body: "{}" });
    expect(response.headers["retry-after"]).toBe("3");
    expect(response.headers["x-repeated"]).toBe("a, b");
    await transport.close();
  });

  it("names the object in a retry notice and in the error, from the body as it was sent", async () => {
    stub.set((_req, res) => res.writeHead(503, { "retry-after": "1", "content-type": "application/json" }).end('{"error":{"title":"Busy","detail":"later"}}'));
    const notices: string[] = [];
    const body = { ...dataSourceBody };
    const retrying = new AnalyticsClient({
      baseUrl,
      apiKey: KEY,
      transport: undiciTransport({ requestTimeoutMs: 2000 }),
      retry: { maxAttempts: 2 },
      sleep: async () => {},
      onRetry: (event) => void notices.push(`${event.object} ${event.reason}`),
    });
    const pending = retrying.createDataSource("org_1", body).catch((e: unknown) => e);
    body.displayName = "changed after the call";
    body.password = "changed-secret";
    const error = (await pending) as ApiError;
    expect(notices).toEqual(['data source "WH" in organization org_1 HTTP 503']);
    expect(error).toBeInstanceOf(ApiError);
    expect(stub.received.map((r) => JSON.parse(r.body).displayName)).toEqual(["WH", "WH"]);
    await retrying.close();
  });

  it("retries a refused connection and reports that nothing was created", async () => {
    const closed = stubServer();
    const url = await closed.start();
    await closed.close();
    const refused = new AnalyticsClient({ baseUrl: url, apiKey: KEY, sleep: async (ms) => void sleeps.push(ms) });
    const error = await refused.createOrganization({ name: "Acme" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(/ECONNREFUSED.*after 4 attempts; the organization "Acme" was not created/);
    expect(sleeps).toHaveLength(3);
    await refused.close();
  });
});

describe("AnalyticsClient over fetch, with nock for faults", () => {
  const baseUrl = "http://analytics.test";
  const sleeps: number[] = [];
  const client = () => new AnalyticsClient({ baseUrl, apiKey: KEY, transport: fetchTransport(), sleep: async (ms) => void sleeps.push(ms) });

  beforeAll(() => nock.disableNetConnect());
  afterEach(() => {
    nock.cleanAll();
    sleeps.length = 0;
  });
  afterAll(() => nock.enableNetConnect());

  it("retries a connection refused before sending, then creates exactly once", async () => {
    const scope = nock(baseUrl)
      .post("/api/public/organizations")
      .replyWithError({ code: "ECONNREFUSED", message: "connect ECONNREFUSED" })
      .post("/api/public/organizations", { name: "Acme" })
      .matchHeader("authorization", `Bearer ${KEY}`)
      .reply(201, { data: org });
    await expect(client().createOrganization({ name: "Acme" })).resolves.toEqual(org);
    expect(scope.isDone()).toBe(true);
    expect(sleeps).toHaveLength(1);
  });

  it("retries 503 honouring an HTTP-date Retry-After, within bounded attempts", async () => {
    const scope = nock(baseUrl)
      .post("/api/public/organizations")
      .times(4)
      .reply(503, { error: { title: "ServiceUnavailable", detail: "maintenance" } }, { "Retry-After": "1" });
    const error = await client()
      .createOrganization({ name: "Acme" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(503);
    expect((error as Error).message).toMatch(/Nothing was created/);
    expect(scope.isDone()).toBe(true);
    expect(sleeps).toEqual([1000, 1000, 1000]);
  });

  it("handles a proxy's HTML error page", async () => {
    nock(baseUrl).post("/api/public/organizations").reply(502, "<html><title>Bad Gateway</title></html>", { "Content-Type": "text/html" });
    await expect(client().createOrganization({ name: "Acme" })).rejects.toThrow(
      /HTTP 502: the response was not the API's JSON error envelope \(text\/html\): "Bad Gateway"/,
    );
  });

  it("reports an unauthorized key saying how to pass one, never the key", async () => {
    nock(baseUrl)
      .post("/api/public/organizations")
      .reply(401, { error: { title: "Unauthorized", detail: "The API key is invalid." } });
    const error = (await client()
      .createOrganization({ name: "Acme" })
      .catch((e: unknown) => e)) as UnauthorizedError;
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error.code).toBe("ANALYTICS_UNAUTHORIZED");
    expect(error.message).toMatch(/not accepted\. Pass the key as the client's `apiKey` option/);
    expect(error.message).not.toMatch(/pulumi/i);
    expect(error.message).not.toContain(KEY);
  });

  it("refuses to start without a key", () => {
    expect(() => new AnalyticsClient({ baseUrl, apiKey: "" })).toThrow(ConfigurationError);
  });
});

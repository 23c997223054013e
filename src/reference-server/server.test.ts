/**
 * Conformance suite: the public API of shared/spec/public-api.md and the reference server's own
 * rules (docs/reference-server.md), over real HTTP on 127.0.0.1.
 */
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  DATA_SOURCE_RESPONSE_FIELDS,
  ORGANIZATIONS_PATH,
  SECRET_DATA_SOURCE_FIELDS,
  SSO_JWT_PATH,
  dataSourcesPath,
  organization,
  successEnvelope,
} from "../contract";
import { digestApiKey } from "./auth";
import { INTERNAL_ERROR_DETAIL } from "./envelope";
import type { SyncOutcome, SyncTarget } from "./schema-sync";
import { startReferenceServer, type ReferenceServer, type ReferenceServerOptions } from "./server";
import { dataSourceFieldsSchema } from "./store";

/** Every credential value used in these tests contains this marker, so logs can be searched for it. */
const MARK = "S3CRET";

const secretValues = Object.fromEntries(SECRET_DATA_SOURCE_FIELDS.map((field) => [field, `${MARK}-${field}-value`])) as Record<
  (typeof SECRET_DATA_SOURCE_FIELDS)[number],
  string
>;

const validDataSource = {
  type: "direct",
  dialect: "POSTGRES",
  displayName: "Warehouse",
  host: "db.example.com",
  port: 5432,
  databaseName: "analytics",
  username: "reader",
  password: secretValues.password,
};

const syncedTables = [{ schema: "public", name: "orders", columns: [{ name: "id", type: "integer", nullable: false }] }];

interface Started {
  server: ReferenceServer;
  logs: string[];
  syncTargets: SyncTarget[];
}

const running: Started[] = [];
const temps: string[] = [];

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reference-server-"));
  temps.push(dir);
  return dir;
}

/** Starts a server with a fake sync that succeeds, capturing log lines and sync targets. */
async function start(options: ReferenceServerOptions = {}): Promise<Started> {
  const logs: string[] = [];
  const syncTargets: SyncTarget[] = [];
  const server = await startReferenceServer({
    bootstrapUsers: ["alice", "bob"],
    logger: (line) => logs.push(line),
    syncSchema: async (target): Promise<SyncOutcome> => {
      syncTargets.push(target);
      return { ok: true, tables: syncedTables };
    },
    ...options,
  });
  const started = { server, logs, syncTargets };
  running.push(started);
  return started;
}

/** Every log line is `METHOD path status ms` (or a notice) and holds no credential and no key. */
function auditLogs(started: Started, extraKeys: readonly string[] = []): void {
  const keys = [...Object.values(started.server.apiKeys), ...extraKeys];
  for (const line of started.logs) {
    expect(line).not.toContain(MARK);
    for (const key of keys) expect(line).not.toContain(key);
    expect(line).not.toMatch(/authorization|bearer/i);
  }
}

afterEach(async () => {
  for (const started of running.splice(0)) {
    auditLogs(started);
    await started.server.close();
  }
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

interface CallOptions {
  /** API key sent as `Authorization: Bearer <key>`. */
  key?: string;
  /** Body, JSON-encoded. */
  body?: unknown;
  /** Body sent as is. */
  raw?: string | Uint8Array;
  /** Content-Type for a body; null sends none. Default application/json. */
  contentType?: string | null;
  /** Further headers. */
  headers?: Record<string, string>;
}

interface Reply {
  status: number;
  headers: Headers;
  // Parsed body; tests read fields freely.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  text: string;
}

/**
 * One request; checks the rules that hold for every answer: JSON content type, and either
 * exactly `{ data }` (success) or exactly `{ error: { title, detail } }` (failure).
 */
async function call(server: ReferenceServer, method: string, pathname: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  let body: Uint8Array | undefined;
  if (options.raw !== undefined) body = typeof options.raw === "string" ? Buffer.from(options.raw) : options.raw;
  else if (options.body !== undefined) body = Buffer.from(JSON.stringify(options.body));
  if (body !== undefined && options.contentType !== null) headers["content-type"] = options.contentType ?? "application/json";
  const res = await fetch(`${server.url}${pathname}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await res.text();
  expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
  if (method === "HEAD") return { status: res.status, headers: res.headers, json: undefined, text };
  const json = JSON.parse(text);
  if (res.status < 400) {
    expect(Object.keys(json)).toEqual(["data"]);
  } else {
    expect(Object.keys(json)).toEqual(["error"]);
    expect(Object.keys(json.error)).toEqual(["title", "detail"]);
    expect(typeof json.error.title).toBe("string");
    expect(json.error.detail).toEqual(expect.any(String));
    expect(json.error.detail.length).toBeGreaterThan(0);
  }
  return { status: res.status, headers: res.headers, json, text };
}

async function createOrg(server: ReferenceServer, key: string, name = "Acme"): Promise<{ id: string; slug: string }> {
  const reply = await call(server, "POST", ORGANIZATIONS_PATH, { key, body: { name } });
  expect(reply.status).toBe(201);
  return reply.json.data;
}

async function createDataSource(server: ReferenceServer, key: string, orgId: string, body: object = validDataSource): Promise<Reply> {
  return call(server, "POST", dataSourcesPath(orgId), { key, body });
}

function expectError(reply: Reply, status: number, title: string): void {
  expect({ status: reply.status, title: reply.json?.error?.title }).toEqual({ status, title });
}

describe("routes", () => {
  it("creates an organization: 201 with exactly the spec's fields", async () => {
    const { server } = await start();
    const reply = await call(server, "POST", ORGANIZATIONS_PATH, { key: server.apiKeys.alice!, body: { name: "Acme Analytics" } });
    expect(reply.status).toBe(201);
    const data = successEnvelope(z.strictObject(organization.shape)).parse(reply.json).data;
    expect(data).toEqual({ id: expect.stringMatching(/^org_[0-9A-Za-z]{20}$/), name: "Acme Analytics", slug: "acme-analytics", customAiContext: null, onboardingStatus: "STARTED" });
  });

  it("creates a data source: 201 with every contract field and nothing else", async () => {
    const { server } = await start();
    const org = await createOrg(server, server.apiKeys.alice!);
    const reply = await createDataSource(server, server.apiKeys.alice!, org.id);
    expect(reply.status).toBe(201);
    const data = successEnvelope(dataSourceFieldsSchema).parse(reply.json).data;
    expect(Object.keys(data).sort()).toEqual([...DATA_SOURCE_RESPONSE_FIELDS].sort());
    expect(data).toMatchObject({ id: expect.stringMatching(/^ds_/), displayName: "Warehouse", dialect: "POSTGRES", host: "db.example.com", port: 5432 });
  });

  it.each(["GET", "POST", "PUT", "DELETE", "PATCH"])("answers %s %s with 501 NotImplemented, key or not", async (method) => {
    const { server } = await start();
    for (const key of [undefined, server.apiKeys.alice!]) {
      const reply = await call(server, method, SSO_JWT_PATH, key === undefined ? {} : { key });
      expectError(reply, 501, "NotImplemented");
      expect(reply.json.error.detail).toMatch(/specification does not show its method, payload/);
    }
  });

  it.each([
    "/",
    "/api",
    "/api/public",
    "/api/public/organizations/",
    "/api/public/organizations/x",
    "/api/public/organizations/x/data-sources/y",
    "/api/public/Organizations",
    "/api/sso/jwt/x",
    "/_reference/organizations",
  ])("answers an unknown path (%s) with 404 NotFound, inspection off", async (pathname) => {
    const { server } = await start();
    const reply = await call(server, "POST", pathname, { key: server.apiKeys.alice!, body: { name: "x" } });
    expectError(reply, 404, "NotFound");
  });

  it.each([
    ["GET", ORGANIZATIONS_PATH],
    ["PUT", ORGANIZATIONS_PATH],
    ["DELETE", ORGANIZATIONS_PATH],
    ["PATCH", dataSourcesPath("org_x")],
    ["GET", dataSourcesPath("org_x")],
  ])("answers %s %s with 405 and Allow: POST", async (method, pathname) => {
    const { server } = await start();
    const reply = await call(server, method, pathname, { key: server.apiKeys.alice! });
    expectError(reply, 405, "MethodNotAllowed");
    expect(reply.headers.get("allow")).toBe("POST");
  });

  it("answers HEAD on a known path with 405 and no body", async () => {
    const { server } = await start();
    const reply = await call(server, "HEAD", ORGANIZATIONS_PATH);
    expect(reply.status).toBe(405);
    expect(reply.headers.get("allow")).toBe("POST");
    expect(reply.text).toBe("");
  });

  it("ignores the query string when routing", async () => {
    const { server } = await start();
    const reply = await call(server, "POST", `${ORGANIZATIONS_PATH}?x=1`, { key: server.apiKeys.alice!, body: { name: "Q" } });
    expect(reply.status).toBe(201);
  });

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
});

describe("order of checks: route/method → auth → content type → size → JSON → validation → ownership", () => {
  const big = "x".repeat(2 * 1024 * 1024);

  it("route and method come before auth", async () => {
    const { server } = await start();
    expectError(await call(server, "GET", ORGANIZATIONS_PATH), 405, "MethodNotAllowed");
    expectError(await call(server, "POST", "/api/public/nothing"), 404, "NotFound");
  });

  it("auth comes before content type and size", async () => {
    const { server } = await start();
    expectError(await call(server, "POST", ORGANIZATIONS_PATH, { raw: big, contentType: "text/plain" }), 401, "Unauthorized");
  });

  it("content type comes before size", async () => {
    const { server } = await start();
    expectError(await call(server, "POST", ORGANIZATIONS_PATH, { key: server.apiKeys.alice!, raw: big, contentType: "text/plain" }), 415, "UnsupportedMediaType");
  });

  it("size comes before JSON parsing", async () => {
    const { server } = await start();
    expectError(await call(server, "POST", ORGANIZATIONS_PATH, { key: server.apiKeys.alice!, raw: `{${big}` }), 413, "PayloadTooLarge");
  });

  it("JSON parsing comes before validation, and validation before ownership", async () => {
    const { server } = await start();
    const key = server.apiKeys.alice!;
    expectError(await call(server, "POST", dataSourcesPath("org_missing"), { key, raw: "{" }), 400, "ValidationError");
    const invalid = await createDataSource(server, key, "org_missing", { ...validDataSource, port: -1 });
    expectError(invalid, 400, "ValidationError");
    expect(invalid.json.error.detail).toContain("port");
    expectError(await createDataSource(server, key, "org_missing"), 404, "NotFound");
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
    // The server stopped reading at the limit: most of the stream was never taken.
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

describe("validation", () => {
  async function dsReply(body: object): Promise<Reply> {
    const { server } = await start();
    const org = await createOrg(server, server.apiKeys.alice!);
    const reply = await createDataSource(server, server.apiKeys.alice!, org.id, body);
    if (reply.status !== 201) expect(server.inspect.dataSources()).toHaveLength(0);
    return reply;
  }

  it.each([
    ["port", 0, 201],
    ["port", 65535, 201],
    ["port", -1, 400],
    ["port", 65536, 400],
    ["port", 1.5, 400],
    ["port", "80", 400],
    ["port", null, 400],
    ["sshPort", 0, 201],
    ["sshPort", 65535, 201],
    ["sshPort", -1, 400],
    ["sshPort", 65536, 400],
    ["sshPort", 1.5, 400],
    ["sshPort", "80", 400],
  ])("%s = %j → %i", async (field, value, status) => {
    const reply = await dsReply({ ...validDataSource, [field]: value });
    expect(reply.status).toBe(status);
    if (status === 201) expect(reply.json.data[field]).toBe(value);
    else {
      expect(reply.json.error.title).toBe("ValidationError");
      expect(reply.json.error.detail).toMatch(new RegExp(`^${field}: must be an integer from 0 to 65535`));
    }
  });

  it.each([
    ["type", "indirect", /type: must be "direct"/],
    ["dialect", "MYSQL", /dialect: must be "POSTGRES"/],
    ["dialect", "postgres", /dialect: must be "POSTGRES"/],
    ["displayName", "", /displayName: must be at least 1 character/],
    ["displayName", 5, /displayName: must be a string/],
    ["databaseName", 5, /databaseName: must be a string or null/],
    ["sslEnabled", "true", /sslEnabled: must be a boolean/],
    ["sshEnabled", 1, /sshEnabled: must be a boolean/],
    ["host", 1, /host: must be a string/],
    ["password", 123, /password: must be a string/],
    ["bigQueryJsonKey", {}, /bigQueryJsonKey: must be a string/],
    ["unknownField", "x", /unknownField: is not a field of this request/],
  ])("rejects %s = %j", async (field, value, detail) => {
    const reply = await dsReply({ ...validDataSource, [field]: value });
    expectError(reply, 400, "ValidationError");
    expect(reply.json.error.detail).toMatch(detail);
  });

  it.each(["type", "dialect", "displayName"])("requires %s", async (field) => {
    const body: Record<string, unknown> = { ...validDataSource };
    delete body[field];
    const reply = await dsReply(body);
    expectError(reply, 400, "ValidationError");
    expect(reply.json.error.detail).toContain(`${field}: is required`);
  });

  it("accepts databaseName null and the bare minimum body", async () => {
    expect((await dsReply({ ...validDataSource, databaseName: null })).json.data.databaseName).toBeNull();
    const minimal = await dsReply({ type: "direct", dialect: "POSTGRES", displayName: "d" });
    expect(minimal.status).toBe(201);
  });

  it("names every offending field in one detail, and never echoes a secret value", async () => {
    const reply = await dsReply({
      type: "x",
      dialect: "y",
      displayName: "",
      port: 70000,
      sshPort: -5,
      sslEnabled: "no",
      password: 42,
      sshPassword: { value: `${MARK}-nested` },
      extra: `${MARK}-extra`,
    });
    expectError(reply, 400, "ValidationError");
    for (const field of ["type", "dialect", "displayName", "port", "sshPort", "sslEnabled", "password", "sshPassword", "extra"]) {
      expect(reply.json.error.detail).toMatch(new RegExp(`(^|; )${field}: `));
    }
    expect(reply.text).not.toContain(MARK);
  });

  it("validates organizations strictly: name required, a non-empty string up to 255 characters, nothing else", async () => {
    const { server } = await start();
    const key = server.apiKeys.alice!;
    const cases: Array<[unknown, RegExp]> = [
      [{}, /name: is required/],
      [{ name: "" }, /name: must be at least 1 character/],
      [{ name: 7 }, /name: must be a string/],
      [{ name: "n".repeat(256) }, /name: must be at most 255 characters/],
      [{ name: "ok", slug: "mine" }, /slug: is not a field of this request/],
    ];
    for (const [body, detail] of cases) {
      const reply = await call(server, "POST", ORGANIZATIONS_PATH, { key, body });
      expectError(reply, 400, "ValidationError");
      expect(reply.json.error.detail).toMatch(detail);
    }
    expect((await call(server, "POST", ORGANIZATIONS_PATH, { key, body: { name: "n".repeat(255) } })).status).toBe(201);
    expect(server.inspect.organizations()).toHaveLength(1);
  });
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
    for (const raw of [`${"[".repeat(1000)}${"]".repeat(1000)}`, `{"name": ${"{\"a\":".repeat(1000)}1${"}".repeat(1000)}}`]) {
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

describe("authentication", () => {
  it("accepts the bootstrapped keys, which have the documented format", async () => {
    const { server } = await start();
    expect(Object.keys(server.apiKeys).sort()).toEqual(["alice", "bob"]);
    for (const key of Object.values(server.apiKeys)) expect(key).toMatch(/^analytics_key_[0-9A-Za-z]{32}$/);
    await createOrg(server, server.apiKeys.bob!);
  });

  it("rejects every bad header with the same 401 shape and never echoes the key", async () => {
    const { server } = await start();
    const key = server.apiKeys.alice!;
    const secret = key.slice("analytics_key_".length);
    const headers: Array<Record<string, string>> = [
      {},
      { authorization: "" },
      { authorization: `Basic ${Buffer.from(`alice:${key}`).toString("base64")}` },
      { authorization: key },
      { authorization: `Bearer other_key_${secret}` },
      { authorization: `Bearer analytics_key_${secret.slice(1)}` },
      { authorization: `Bearer analytics_key_${secret}x` },
      { authorization: `Bearer analytics_key_${secret.slice(0, -1)}${secret.endsWith("A") ? "B" : "A"}` },
      { authorization: "Bearer analytics_key_" + "A".repeat(32) },
    ];
    for (const h of headers) {
      const reply = await call(server, "POST", ORGANIZATIONS_PATH, { headers: h, body: { name: "x" } });
      expectError(reply, 401, "Unauthorized");
      expect(reply.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(reply.text).not.toContain(secret.slice(0, 10));
      expect(reply.text).not.toContain(secret.slice(-10));
    }
    expect(server.inspect.organizations()).toHaveLength(0);
  });

  it("uses the configured key prefix", async () => {
    const { server } = await start({ keyPrefix: "acme" });
    const key = server.apiKeys.alice!;
    expect(key).toMatch(/^acme_key_[0-9A-Za-z]{32}$/);
    await createOrg(server, key);
    const foreign = `analytics_key_${key.slice("acme_key_".length)}`;
    expectError(await call(server, "POST", ORGANIZATIONS_PATH, { key: foreign, body: { name: "x" } }), 401, "Unauthorized");
  });

  it("mints keys in-process for new users; the server keeps only digests", async () => {
    const { server } = await start({ inspection: true });
    const key = await server.mintApiKey("carol");
    expect(key).toMatch(/^analytics_key_[0-9A-Za-z]{32}$/);
    await createOrg(server, key);
    expect(server.inspect.users()).toEqual(["alice", "bob", "carol"]);
    await expect(server.mintApiKey("not a name")).rejects.toThrow(RangeError);
    const inspected = JSON.stringify([server.inspect.users(), server.inspect.organizations()]);
    expect(inspected).not.toContain(key);
    expect(inspected).not.toContain(digestApiKey(key));
  });

  it("lets a user add data sources only to their own organizations: others get the nonexistent-org 404", async () => {
    const { server } = await start();
    const aliceOrg = await createOrg(server, server.apiKeys.alice!);
    const foreign = await createDataSource(server, server.apiKeys.bob!, aliceOrg.id);
    const missing = await createDataSource(server, server.apiKeys.bob!, "org_AAAAAAAAAAAAAAAAAAAA");
    expectError(foreign, 404, "NotFound");
    expect(foreign.text).toBe(missing.text);
    expect([...foreign.headers.keys()].sort()).toEqual([...missing.headers.keys()].sort());
    expect(server.inspect.dataSources()).toHaveLength(0);
    expect((await createDataSource(server, server.apiKeys.alice!, aliceOrg.id)).status).toBe(201);
  });
});

describe("resources", () => {
  it("applies the defaults sslEnabled true and sshEnabled false, and keeps explicit values", async () => {
    const { server } = await start();
    const key = server.apiKeys.alice!;
    const org = await createOrg(server, key);
    const defaulted = await createDataSource(server, key, org.id, { type: "direct", dialect: "POSTGRES", displayName: "d" });
    expect(defaulted.json.data).toMatchObject({ sslEnabled: true, sshEnabled: false });
    const explicit = await createDataSource(server, key, org.id, { ...validDataSource, sslEnabled: false, sshEnabled: true, sshHost: "bastion" });
    expect(explicit.json.data).toMatchObject({ sslEnabled: false, sshEnabled: true, sshHost: "bastion" });
  });

  it("returns unset optional fields as null and the stated initial state", async () => {
    const { server } = await start();
    const key = server.apiKeys.alice!;
    const org = await createOrg(server, key);
    const { json } = await createDataSource(server, key, org.id, { type: "direct", dialect: "POSTGRES", displayName: "d" });
    const data = json.data;
    for (const field of [
      "description",
      "databaseName",
      "username",
      "host",
      "port",
      "sshHost",
      "sshPort",
      "sshUsername",
      "bigQueryProjectId",
      "spannerInstanceId",
      "snowflakeAccountId",
      "snowflakeWarehouse",
      "snowflakeRole",
      "lastSuccessfulSyncAt",
      "lastSyncAttemptAt",
      "syncErrorMessage",
      "lastHealthyAt",
      "lastHealthCheckAttemptAt",
    ]) {
      expect(data[field], field).toBeNull();
    }
    expect(data).toMatchObject({
      sslCustomCertificatesEnabled: false,
      isDemo: false,
      isServiceWarehouse: false,
      hasCompletedFirstSync: false,
      lastSyncStatus: "PENDING",
      lastHealthStatus: "HEALTHY",
    });
    expect(new Date(data.createdAt).toISOString()).toBe(data.createdAt);
    expect(data.updatedAt).toBe(data.createdAt);
  });

  it("echoes the non-secret fields it was sent", async () => {
    const { server } = await start();
    const key = server.apiKeys.alice!;
    const org = await createOrg(server, key);
    const sent = {
      ...validDataSource,
      sshHost: "bastion",
      sshPort: 22,
      sshUsername: "tunnel",
      bigQueryProjectId: "bq",
      spannerInstanceId: "sp",
      snowflakeAccountId: "sf",
      snowflakeWarehouse: "wh",
      snowflakeRole: "role",
    };
    const { json } = await createDataSource(server, key, org.id, sent);
    const { type: _type, password: _password, ...echoed } = sent;
    expect(json.data).toMatchObject(echoed);
  });

  it("never returns, shows, logs or saves a secret field", async () => {
    const dir = tempDir();
    const statePath = path.join(dir, "state.json");
    const started = await start({ inspection: true, statePath });
    const { server } = started;
    const key = server.apiKeys.alice!;
    const org = await createOrg(server, key);
    const reply = await createDataSource(server, key, org.id, { ...validDataSource, ...secretValues });
    expect(reply.status).toBe(201);
    for (const field of SECRET_DATA_SOURCE_FIELDS) expect(reply.json.data).not.toHaveProperty(field);
    const synced = await server.waitForSync(reply.json.data.id);
    expect(synced.providedSecretFields).toEqual([...SECRET_DATA_SOURCE_FIELDS]);
    expect(started.syncTargets[0]?.password).toBe(secretValues.password);

    const surfaces = [
      reply.text,
      JSON.stringify(synced),
      JSON.stringify(server.inspect.organization(org.id)),
      JSON.stringify(server.inspect.dataSources()),
      JSON.stringify(server.inspect.requests()),
      (await call(server, "GET", `/_reference/data-sources/${reply.json.data.id}`)).text,
      (await call(server, "GET", `/_reference/organizations/${org.id}`)).text,
      (await call(server, "GET", "/_reference/organizations")).text,
      (await call(server, "GET", "/_reference/data-sources")).text,
      (await call(server, "GET", "/_reference/requests")).text,
      started.logs.join("\n"),
    ];
    await server.close();
    surfaces.push(fs.readFileSync(statePath, "utf8"));
    for (const text of surfaces) {
      expect(text).not.toContain(MARK);
      for (const field of SECRET_DATA_SOURCE_FIELDS) expect(text).not.toMatch(new RegExp(`"${field}"\\s*:`));
    }
  });

  it("derives unique slugs, across users too", async () => {
    const { server } = await start();
    const slugs = [];
    for (const [user, name] of [
      ["alice", "Acme"],
      ["bob", "ACME"],
      ["alice", "acme!"],
      ["bob", "  Ünïcödé  Org "],
      ["bob", "💥"],
    ] as const) {
      slugs.push((await createOrg(server, server.apiKeys[user]!, name)).slug);
    }
    expect(slugs).toEqual(["acme", "acme-2", "acme-3", "unicode-org", "organization"]);
  });

  it("starts the trial at the first data source, once", async () => {
    const { server } = await start({ trialDays: 30 });
    const key = server.apiKeys.alice!;
    const org = await createOrg(server, key);
    expect(server.inspect.organization(org.id)?.trial).toBeNull();
    await createDataSource(server, key, org.id);
    const trial = server.inspect.organization(org.id)?.trial;
    expect(trial).not.toBeNull();
    expect(Date.parse(trial!.endsAt) - Date.parse(trial!.startedAt)).toBe(30 * 86_400_000);
    await createDataSource(server, key, org.id);
    expect(server.inspect.organization(org.id)?.trial).toEqual(trial);
    expect(server.inspect.organization(org.id)?.dataSources).toHaveLength(2);
    // A failed create does not start a trial either.
    const other = await createOrg(server, key, "Other");
    await createDataSource(server, key, other.id, { ...validDataSource, port: -1 });
    expect(server.inspect.organization(other.id)?.trial).toBeNull();
  });

  it("answers PENDING, then runs the sync in the background to SUCCEEDED with tables", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const targets: SyncTarget[] = [];
    const { server } = await start({
      syncSchema: async (target) => {
        targets.push(target);
        await gate;
        return { ok: true, tables: syncedTables };
      },
    });
    const key = server.apiKeys.alice!;
    const org = await createOrg(server, key);
    const reply = await createDataSource(server, key, org.id, { ...validDataSource, sslEnabled: false });
    expect(reply.json.data.lastSyncStatus).toBe("PENDING");
    const id = reply.json.data.id as string;
    while (targets.length === 0) await new Promise((r) => setImmediate(r));
    expect(targets[0]).toEqual({ host: "db.example.com", port: 5432, databaseName: "analytics", username: "reader", password: validDataSource.password, sslEnabled: false });
    expect(server.inspect.dataSource(id)).toMatchObject({ lastSyncStatus: "SYNCING", lastSyncAttemptAt: expect.any(String) });
    release();
    const done = await server.waitForSync(id);
    expect(done).toMatchObject({
      lastSyncStatus: "SUCCEEDED",
      hasCompletedFirstSync: true,
      lastHealthStatus: "HEALTHY",
      lastSuccessfulSyncAt: expect.any(String),
      lastHealthyAt: expect.any(String),
      lastHealthCheckAttemptAt: expect.any(String),
      tables: syncedTables,
      credentialsAvailable: true,
    });
  });

  it("records a failed sync as FAILED and UNHEALTHY", async () => {
    const { server } = await start({ syncSchema: async () => ({ ok: false, message: "could not connect to db.example.com:5432: connection refused" }) });
    const key = server.apiKeys.alice!;
    const org = await createOrg(server, key);
    const reply = await createDataSource(server, key, org.id);
    expect(await server.waitForSync(reply.json.data.id)).toMatchObject({
      lastSyncStatus: "FAILED",
      lastHealthStatus: "UNHEALTHY",
      syncErrorMessage: "could not connect to db.example.com:5432: connection refused",
      hasCompletedFirstSync: false,
      tables: null,
    });
  });
});

describe("fault injection", () => {
  it("is off by default", async () => {
    const { server } = await start();
    expect(server.faults.settings()).toEqual({});
    await createOrg(server, server.apiKeys.alice!);
    expect(server.faults.injected()).toEqual({ latency: 0, error: 0, rateLimited: 0, resetBeforeCommit: 0, resetAfterCommit: 0 });
  });

  it("delays requests by the configured latency (counted, not timed)", async () => {
    const { server } = await start({ faults: { routes: { createOrganization: { latencyMs: 30 } } } });
    const org = await createOrg(server, server.apiKeys.alice!);
    await createDataSource(server, server.apiKeys.alice!, org.id);
    expect(server.faults.injected().latency).toBe(1);
  });

  it("answers the next n requests with 429 and Retry-After, before auth", async () => {
    const { server } = await start({ faults: { rateLimitNext: 2, retryAfterSeconds: 3 } });
    for (const key of [server.apiKeys.alice!, undefined]) {
      const reply = await call(server, "POST", ORGANIZATIONS_PATH, { ...(key ? { key } : {}), body: { name: "x" } });
      expectError(reply, 429, "RateLimited");
      expect(reply.headers.get("retry-after")).toBe("3");
    }
    await createOrg(server, server.apiKeys.alice!);
    expect(server.faults.injected().rateLimited).toBe(2);
    expect(server.inspect.organizations()).toHaveLength(1);
  });

  it("answers 503 with Retry-After for failNext, on the configured route only", async () => {
    const { server } = await start();
    const key = server.apiKeys.alice!;
    server.faults.set({ routes: { createOrganization: { failNext: 1, retryAfterSeconds: 9 } } });
    const reply = await call(server, "POST", ORGANIZATIONS_PATH, { key, body: { name: "x" } });
    expectError(reply, 503, "ServiceUnavailable");
    expect(reply.headers.get("retry-after")).toBe("9");
    const org = await createOrg(server, key);
    expect((await createDataSource(server, key, org.id)).status).toBe(201);
    expect(server.faults.injected().error).toBe(1);
  });

  it.each([
    [500, "InternalError"],
    [502, "ServiceUnavailable"],
    [504, "ServiceUnavailable"],
  ])("answers %i when configured, storing nothing", async (status, title) => {
    const { server } = await start({ faults: { errorRate: 1, errorStatus: status as 500 | 502 | 504 } });
    const reply = await call(server, "POST", ORGANIZATIONS_PATH, { key: server.apiKeys.alice!, body: { name: "x" } });
    expectError(reply, status, title);
    if (status === 500) expect(reply.json.error.detail).toBe(INTERNAL_ERROR_DETAIL);
    expect(server.inspect.organizations()).toHaveLength(0);
  });

  it("resets the connection before commit: the client sees a network error and nothing is stored", async () => {
    const { server } = await start({ faults: { resetBeforeCommitNext: 1 } });
    const key = server.apiKeys.alice!;
    await expect(call(server, "POST", ORGANIZATIONS_PATH, { key, body: { name: "Lost" } })).rejects.toThrow();
    expect(server.inspect.organizations()).toHaveLength(0);
    const org = await createOrg(server, key);
    server.faults.set({ routes: { createDataSource: { resetBeforeCommitNext: 1 } } });
    await expect(createDataSource(server, key, org.id)).rejects.toThrow();
    expect(server.inspect.dataSources()).toHaveLength(0);
    expect(server.inspect.organization(org.id)?.trial).toBeNull();
    expect(server.faults.injected().resetBeforeCommit).toBe(2);
    expect(server.inspect.requests().byRoute[`POST ${ORGANIZATIONS_PATH}`]).toEqual({ "201": 1, none: 1 });
  });

  it("resets the connection after commit: the client sees a network error but the object exists and syncs", async () => {
    const { server } = await start();
    const key = server.apiKeys.alice!;
    server.faults.set({ resetAfterCommitNext: 2 });
    await expect(call(server, "POST", ORGANIZATIONS_PATH, { key, body: { name: "Kept" } })).rejects.toThrow();
    const [org] = server.inspect.organizations();
    expect(org).toMatchObject({ name: "Kept", slug: "kept" });
    await expect(createDataSource(server, key, org!.id)).rejects.toThrow();
    const [ds] = server.inspect.dataSources();
    expect(ds).toBeDefined();
    expect((await server.waitForSync(ds!.id)).lastSyncStatus).toBe("SUCCEEDED");
    expect(server.faults.injected().resetAfterCommit).toBe(2);
    // A retry creates a second organization: the emulator is as non-idempotent as a real create.
    await createOrg(server, key, "Kept");
    expect(server.inspect.organizations().map((o) => o.slug)).toEqual(["kept", "kept-2"]);
  });

  it("rejects invalid settings in-process", async () => {
    const { server } = await start();
    expect(() => server.faults.set({ errorRate: 5 })).toThrow(/errorRate/);
    await expect(startReferenceServer({ faults: { failNext: -1 } })).rejects.toThrow(/failNext/);
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

describe("lifecycle", () => {
  it("listens on 127.0.0.1 with a free port by default", async () => {
    const server = await startReferenceServer();
    try {
      expect(server.host).toBe("127.0.0.1");
      expect(server.port).toBeGreaterThan(0);
      expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    } finally {
      await server.close();
    }
  });

  it("close() drops keep-alive connections, stops background syncs and is idempotent", async () => {
    const server = await startReferenceServer({ bootstrapUsers: ["alice"], syncSchema: () => new Promise<SyncOutcome>(() => undefined) });
    const org = await createOrg(server, server.apiKeys.alice!);
    const reply = await createDataSource(server, server.apiKeys.alice!, org.id);
    const waiting = server.waitForSync(reply.json.data.id);
    await server.close();
    await server.close();
    await expect(waiting).rejects.toThrow(/closed/);
    await expect(fetch(`${server.url}${ORGANIZATIONS_PATH}`, { method: "POST" })).rejects.toThrow();
  });

  it("close() does not wait out an injected latency", async () => {
    const server = await startReferenceServer({ bootstrapUsers: ["alice"], faults: { latencyMs: 600_000 } });
    const pending = call(server, "POST", ORGANIZATIONS_PATH, { key: server.apiKeys.alice!, body: { name: "x" } });
    while (server.faults.injected().latency === 0) await new Promise((r) => setImmediate(r));
    await server.close();
    await expect(pending).rejects.toThrow();
    expect(server.inspect.organizations()).toHaveLength(0);
  });

  it("refuses invalid options", async () => {
    await expect(startReferenceServer({ keyPrefix: "bad prefix" })).rejects.toThrow(RangeError);
    await expect(startReferenceServer({ bootstrapUsers: ["__proto__"] })).rejects.toThrow(RangeError);
    await expect(startReferenceServer({ maxBodyBytes: 0 })).rejects.toThrow(RangeError);
    await expect(startReferenceServer({ port: 70000 })).rejects.toThrow(RangeError);
  });
});

describe("persistence", () => {
  it("survives a restart with the same state file; the file holds key digests, never keys or credentials", async () => {
    const statePath = path.join(tempDir(), "state.json");
    const first = await start({ statePath, bootstrapUsers: ["alice", "bob"] });
    const aliceKey = first.server.apiKeys.alice!;
    const bobKey = first.server.apiKeys.bob!;
    const carolKey = await first.server.mintApiKey("carol");
    const org = await createOrg(first.server, aliceKey, "Acme");
    const ds = await createDataSource(first.server, aliceKey, org.id, { ...validDataSource, ...secretValues });
    await first.server.waitForSync(ds.json.data.id);
    await first.server.close();

    const text = fs.readFileSync(statePath, "utf8");
    for (const key of [aliceKey, bobKey, carolKey]) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(key.slice("analytics_key_".length));
      expect(text).toContain(digestApiKey(key));
    }
    expect(text).not.toContain(MARK);
    expect(fs.readdirSync(path.dirname(statePath))).toEqual(["state.json"]);

    const second = await start({ statePath, bootstrapUsers: [], inspection: true });
    const { server } = second;
    expect(server.apiKeys).toEqual({});
    expect(server.inspect.users()).toEqual(["alice", "bob", "carol"]);
    const restored = server.inspect.dataSource(ds.json.data.id);
    expect(restored).toMatchObject({ lastSyncStatus: "SUCCEEDED", tables: syncedTables, credentialsAvailable: false, providedSecretFields: [...SECRET_DATA_SOURCE_FIELDS] });
    expect(server.inspect.organization(org.id)?.trial).not.toBeNull();
    // Old keys work; ownership and slugs carry over.
    expect((await createDataSource(server, aliceKey, org.id)).status).toBe(201);
    expectError(await createDataSource(server, bobKey, org.id), 404, "NotFound");
    expect((await createOrg(server, carolKey, "Acme")).slug).toBe("acme-2");
    auditLogs(second, [aliceKey, bobKey, carolKey]);
  });

  it("marks a sync cut short by a restart as FAILED", async () => {
    const statePath = path.join(tempDir(), "state.json");
    const first = await start({ statePath, syncSchema: () => new Promise<SyncOutcome>(() => undefined) });
    const key = first.server.apiKeys.alice!;
    const org = await createOrg(first.server, key);
    const ds = await createDataSource(first.server, key, org.id);
    await first.server.close();
    const second = await start({ statePath, bootstrapUsers: [] });
    expect(second.server.inspect.dataSource(ds.json.data.id)).toMatchObject({ lastSyncStatus: "FAILED", syncErrorMessage: expect.stringMatching(/interrupted/) });
    expect((await second.server.waitForSync(ds.json.data.id)).lastSyncStatus).toBe("FAILED");
  });

  it("refuses to start on a corrupt state file rather than overwrite it", async () => {
    const statePath = path.join(tempDir(), "state.json");
    fs.writeFileSync(statePath, "{ not json");
    await expect(startReferenceServer({ statePath })).rejects.toThrow(/not valid JSON/);
    expect(fs.readFileSync(statePath, "utf8")).toBe("{ not json");
  });
});

describe("load", () => {
  it("handles 500 concurrent creates across users correctly", async () => {
    const users = Array.from({ length: 10 }, (_, i) => `user${i}`);
    const { server } = await start({ bootstrapUsers: users, syncConcurrency: 8 });
    const orgReplies = await Promise.all(
      Array.from({ length: 500 }, (_, i) => call(server, "POST", ORGANIZATIONS_PATH, { key: server.apiKeys[users[i % 10]!]!, body: { name: "Load Org" } })),
    );
    expect(orgReplies.map((r) => r.status)).toEqual(Array(500).fill(201));
    const orgs = orgReplies.map((r, i) => ({ id: r.json.data.id as string, slug: r.json.data.slug as string, user: users[i % 10]! }));
    expect(new Set(orgs.map((o) => o.id)).size).toBe(500);
    expect(new Set(orgs.map((o) => o.slug)).size).toBe(500);

    const dsReplies = await Promise.all(orgs.map((org) => createDataSource(server, server.apiKeys[org.user]!, org.id)));
    expect(dsReplies.map((r) => r.status)).toEqual(Array(500).fill(201));
    const ids = dsReplies.map((r) => r.json.data.id as string);
    expect(new Set(ids).size).toBe(500);
    const synced = await Promise.all(ids.map((id) => server.waitForSync(id)));
    expect(synced.every((ds) => ds.lastSyncStatus === "SUCCEEDED")).toBe(true);
    expect(server.inspect.organizations()).toHaveLength(500);
    expect(server.inspect.organizations().every((o) => o.dataSourceIds.length === 1 && o.trial !== null)).toBe(true);
    for (const org of orgs) expect(server.inspect.organization(org.id)?.ownerUserName).toBe(org.user);
    expect(server.inspect.requestCount()).toBe(1000);
    expect(Object.keys(server.inspect.requests().byRoute).every((route) => route.startsWith("POST /api/public/"))).toBe(true);
    for (const counts of Object.values(server.inspect.requests().byRoute)) expect(Object.keys(counts)).toEqual(["201"]);
  });
});

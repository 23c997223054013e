/**
 * The public API's routes over real HTTP on 127.0.0.1: what each answers, the order of checks,
 * validation of bodies against the contract, and authentication and ownership.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DATA_SOURCE_RESPONSE_FIELDS, ORGANIZATIONS_PATH, SSO_JWT_PATH, dataSource, dataSourcesPath, organization, successEnvelope } from "../contract";
import { ORGANIZATION_NAME_MAX } from "./public-routes";
import { digestApiKey } from "./state/auth";
import {
  MARK,
  call,
  closeServersAfterEach,
  createDataSource,
  createOrg,
  expectError,
  start,
  validDataSource,
  type Reply,
} from "../../test/support/reference-server-harness";

closeServersAfterEach();

describe("routes", () => {
  it("creates an organization: 201 with exactly the spec's fields", async () => {
    const { server } = await start();
    const reply = await call(server, "POST", ORGANIZATIONS_PATH, { key: server.apiKeys.alice!, body: { name: "Acme Analytics" } });
    expect(reply.status).toBe(201);
    const data = successEnvelope(z.strictObject(organization.shape)).parse(reply.json).data;
    expect(data).toEqual({
      id: expect.stringMatching(/^org_[0-9A-Za-z]{20}$/),
      name: "Acme Analytics",
      slug: "acme-analytics",
      customAiContext: null,
      onboardingStatus: "STARTED",
    });
  });

  it("creates a data source: 201 with every contract field and nothing else", async () => {
    const { server } = await start();
    const org = await createOrg(server, server.apiKeys.alice!);
    const reply = await createDataSource(server, server.apiKeys.alice!, org.id);
    expect(reply.status).toBe(201);
    const data = successEnvelope(z.strictObject(dataSource.shape)).parse(reply.json).data;
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
    expectError(
      await call(server, "POST", ORGANIZATIONS_PATH, { key: server.apiKeys.alice!, raw: big, contentType: "text/plain" }),
      415,
      "UnsupportedMediaType",
    );
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
    ["displayName", "", /displayName: must be at least 1 character long, got an empty string/],
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

  it("answers a 300-character organization name, which the contract lets through, with its own ValidationError", async () => {
    const { server } = await start();
    const reply = await call(server, "POST", ORGANIZATIONS_PATH, { key: server.apiKeys.alice!, body: { name: "n".repeat(300) } });
    expectError(reply, 400, "ValidationError");
    expect(reply.json.error.detail).toBe(`name: must be at most ${ORGANIZATION_NAME_MAX} characters long, got 300 characters`);
    expect(server.inspect.organizations()).toHaveLength(0);
  });

  it("validates organizations strictly: name required, a non-empty string up to 255 characters, nothing else", async () => {
    const { server } = await start();
    const key = server.apiKeys.alice!;
    const cases: Array<[unknown, RegExp]> = [
      [{}, /name: is required/],
      [{ name: "" }, /name: must be at least 1 character long, got an empty string/],
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

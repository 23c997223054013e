import * as http from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { ORGANIZATIONS_PATH, dataSourcesPath } from "../../contract";
import { startReferenceServer, type ReferenceServer } from "../server";

const servers: ReferenceServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(inspection = true): Promise<ReferenceServer> {
  const server = await startReferenceServer({
    bootstrapUsers: ["alice"],
    inspection,
    syncSchema: async () => ({ ok: true, tables: [{ schema: "public", name: "t", columns: [{ name: "c", type: "text", nullable: true }] }] }),
  });
  servers.push(server);
  return server;
}

// Parsed bodies; tests read fields freely.
async function call(
  server: ReferenceServer,
  method: string,
  path: string,
  body?: unknown,
  key?: string,
): Promise<{ status: number; json: any; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (key !== undefined) headers.authorization = `Bearer ${key}`;
  const res = await fetch(`${server.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
  return { status: res.status, json: await res.json(), headers: res.headers };
}

async function seed(server: ReferenceServer): Promise<{ orgId: string; dsId: string }> {
  const key = server.apiKeys.alice!;
  const org = await call(server, "POST", ORGANIZATIONS_PATH, { name: "Acme" }, key);
  const ds = await call(
    server,
    "POST",
    dataSourcesPath(org.json.data.id),
    { type: "direct", dialect: "POSTGRES", displayName: "db", password: "S3CRET-pw" },
    key,
  );
  await server.waitForSync(ds.json.data.id);
  return { orgId: org.json.data.id, dsId: ds.json.data.id };
}

describe("inspection surface", () => {
  it("is off unless asked for", async () => {
    const server = await start(false);
    for (const path of ["/_reference/organizations", "/_reference/requests", "/_reference/faults"]) {
      const reply = await call(server, "GET", path);
      expect(reply).toMatchObject({ status: 404, json: { error: { title: "NotFound" } } });
    }
    // Probing it counts as API traffic, since it is not there.
    expect(server.inspect.requestCount()).toBe(3);
  });

  it("shows organizations with owner, trial and data sources, and data sources with sync state and tables", async () => {
    const server = await start();
    const { orgId, dsId } = await seed(server);
    const list = await call(server, "GET", "/_reference/organizations");
    expect(list.status).toBe(200);
    expect(list.json.data).toEqual([
      expect.objectContaining({
        id: orgId,
        slug: "acme",
        ownerUserName: "alice",
        dataSourceIds: [dsId],
        trial: expect.objectContaining({ startedAt: expect.any(String) }),
      }),
    ]);
    const org = await call(server, "GET", `/_reference/organizations/${orgId}`);
    expect(org.json.data.dataSources).toEqual([expect.objectContaining({ id: dsId, lastSyncStatus: "SUCCEEDED" })]);
    const ds = await call(server, "GET", `/_reference/data-sources/${dsId}`);
    expect(ds.json.data).toMatchObject({
      id: dsId,
      organizationId: orgId,
      lastSyncStatus: "SUCCEEDED",
      tables: [{ schema: "public", name: "t", columns: [{ name: "c", type: "text", nullable: true }] }],
      providedSecretFields: ["password"],
      credentialsAvailable: true,
    });
    expect(ds.json.data).not.toHaveProperty("password");
    expect((await call(server, "GET", "/_reference/data-sources")).json.data).toHaveLength(1);
    expect((await call(server, "GET", "/_reference/users")).json.data).toEqual(["alice"]);
    expect(JSON.stringify([list, org, ds])).not.toContain("S3CRET");
  });

  it("answers 404 for unknown ids and paths, 405 for wrong methods", async () => {
    const server = await start();
    expect((await call(server, "GET", "/_reference/organizations/org_nope")).status).toBe(404);
    expect((await call(server, "GET", "/_reference/data-sources/ds_nope")).status).toBe(404);
    expect((await call(server, "GET", "/_reference/nothing")).status).toBe(404);
    const wrong = await call(server, "DELETE", "/_reference/organizations");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET");
  });

  it("counts API requests by route and status, not its own", async () => {
    const server = await start();
    await seed(server);
    await call(server, "POST", ORGANIZATIONS_PATH, { name: "no key" });
    await call(server, "GET", "/_reference/organizations");
    const requests = await call(server, "GET", "/_reference/requests");
    expect(requests.json.data.total).toBe(3);
    expect(requests.json.data.byRoute).toEqual({
      "POST /api/public/organizations": { "201": 1, "401": 1 },
      "POST /api/public/organizations/{orgId}/data-sources": { "201": 1 },
    });
    expect(requests.json.data.recent).toHaveLength(3);
    expect(server.inspect.requestCount()).toBe(3);
  });

  it("reads and replaces fault settings at runtime, validating them", async () => {
    const server = await start();
    const set = await call(server, "POST", "/_reference/faults", { routes: { createOrganization: { failNext: 1, errorStatus: 502 } } });
    expect(set.status).toBe(200);
    expect(set.json.data.settings).toEqual({ routes: { createOrganization: { failNext: 1, errorStatus: 502 } } });
    const failed = await call(server, "POST", ORGANIZATIONS_PATH, { name: "x" }, server.apiKeys.alice!);
    expect(failed.status).toBe(502);
    const after = await call(server, "GET", "/_reference/faults");
    expect(after.json.data).toEqual({
      settings: { routes: { createOrganization: { failNext: 0, errorStatus: 502 } } },
      injected: { latency: 0, error: 1, rateLimited: 0, resetBeforeCommit: 0, resetAfterCommit: 0, unrecordableAnswer: 0 },
    });
    const invalid = await call(server, "POST", "/_reference/faults", { errorRate: 2, bogus: true });
    expect(invalid.status).toBe(400);
    expect(invalid.json.error.detail).toMatch(/errorRate.*bogus/);
    expect(server.faults.settings()).toEqual({ routes: { createOrganization: { failNext: 0, errorStatus: 502 } } });
    const notJson = await fetch(`${server.url}/_reference/faults`, { method: "POST", body: "x" });
    expect(notJson.status).toBe(415);
    await notJson.text();
  });

  it("resets organizations, data sources, request log and faults, keeping keys", async () => {
    const server = await start();
    await seed(server);
    server.faults.set({ latencyMs: 1 });
    await call(server, "POST", ORGANIZATIONS_PATH, { name: "Slow" }, server.apiKeys.alice!);
    expect(server.inspect.requests().byFault).toEqual({ latencyMs: 1 });
    const reset = await call(server, "POST", "/_reference/reset");
    expect(reset.status).toBe(200);
    expect(server.inspect.organizations()).toEqual([]);
    expect(server.inspect.dataSources()).toEqual([]);
    expect(server.inspect.requests()).toEqual({ total: 0, byRoute: {}, byFault: {}, recent: [] });
    expect(server.faults.settings()).toEqual({});
    const again = await call(server, "POST", ORGANIZATIONS_PATH, { name: "Acme" }, server.apiKeys.alice!);
    expect(again.json.data.slug).toBe("acme");
  });
});

describe("inspection routes and other origins", () => {
  /** A raw request, so the test sets the headers a browser sets (fetch may not send Origin as given). */
  function raw(server: ReferenceServer, method: string, path: string, headers: Record<string, string>): Promise<{ status: number; json: any }> {
    return new Promise((resolve, reject) => {
      const req = http.request(`${server.url}${path}`, { method, headers }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
      });
      req.on("error", reject);
      req.end();
    });
  }

  it("refuses a reset sent by a page of another origin, and keeps every object", async () => {
    const server = await start();
    const { orgId } = await seed(server);
    const refused = await raw(server, "POST", "/_reference/reset", { origin: "http://evil.example" });
    expect(refused.status).toBe(403);
    expect(refused.json.error.title).toBe("Forbidden");
    expect(refused.json.error.detail).toContain("(http://evil.example) may not POST");
    expect((await call(server, "GET", `/_reference/organizations/${orgId}`)).status).toBe(200);
  });

  it("refuses a fault switch sent cross-site, and switches nothing", async () => {
    const server = await start();
    const refused = await raw(server, "POST", "/_reference/faults", { "sec-fetch-site": "cross-site", "content-type": "application/json" });
    expect(refused.status).toBe(403);
    expect((await call(server, "GET", "/_reference/faults")).json.data.settings).toEqual({});
  });

  it("serves the console's own posts and requests that name no origin", async () => {
    const server = await start();
    const host = new URL(server.url).host;
    expect((await raw(server, "POST", "/_reference/reset", { origin: `http://${host}`, "sec-fetch-site": "same-origin" })).status).toBe(200);
    expect((await raw(server, "POST", "/_reference/reset", {})).status).toBe(200);
  });
});

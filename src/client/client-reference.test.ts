/** The client over its production transport against the real reference server on port 0. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../reference-server";
import { AnalyticsClient } from "./client";
import { AmbiguousCreateError, ApiError, UnauthorizedError } from "./errors";
import { undiciTransport } from "./transport";

let server: ReferenceServer;
const sleeps: number[] = [];
const clients: AnalyticsClient[] = [];

function clientFor(user: string, apiKey = server.apiKeys[user] ?? ""): AnalyticsClient {
  const client = new AnalyticsClient({ baseUrl: server.url, apiKey, transport: undiciTransport(), sleep: async (ms) => void sleeps.push(ms) });
  clients.push(client);
  return client;
}

const body = { type: "direct" as const, dialect: "POSTGRES" as const, displayName: "Warehouse", host: "127.0.0.1", port: 1, password: "client-ref-pw-77" };

beforeAll(async () => {
  server = await startReferenceServer({ port: 0, bootstrapUsers: ["alice", "bob"], syncSchema: async () => ({ ok: true, tables: [] }) });
});
afterEach(async () => {
  server.faults.clear();
  sleeps.length = 0;
  for (const client of clients.splice(0)) await client.close();
});
afterAll(() => server.close());

describe("AnalyticsClient against the reference server", () => {
  it("creates an organization and a data source whose responses satisfy the contract", async () => {
    const alice = clientFor("alice");
    const org = await alice.createOrganization({ name: "Client Org" });
    expect(org).toMatchObject({ name: "Client Org", slug: "client-org", customAiContext: null, onboardingStatus: "STARTED" });
    const ds = await alice.createDataSource(org.id, body);
    expect(ds).toMatchObject({ displayName: "Warehouse", sslEnabled: true, sshEnabled: false, lastSyncStatus: "PENDING", lastHealthStatus: "HEALTHY" });
    expect(ds).not.toHaveProperty("password");
    expect(server.inspect.dataSource(ds.id)?.organizationId).toBe(org.id);
  });

  it("surfaces the server's validation detail as title: detail with the status", async () => {
    const org = await clientFor("alice").createOrganization({ name: "Validation Org" });
    const error = (await clientFor("alice")
      .createDataSource(org.id, { ...body, port: 70000 })
      .catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^ValidationError: port: must be an integer from 0 to 65535, got 70000 \(HTTP 400\)$/);
  });

  it("maps a wrong key to UnauthorizedError without echoing it", async () => {
    const wrong = "analytics_key_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef";
    const error = (await clientFor("alice", wrong)
      .createOrganization({ name: "Nope" })
      .catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error.message).not.toContain(wrong);
    expect(server.inspect.organizations().some((o) => o.name === "Nope")).toBe(false);
  });

  it("gets a 404 for another user's organization, and creates nothing there", async () => {
    const org = await clientFor("alice").createOrganization({ name: "Alice Only" });
    const before = server.inspect.dataSources().length;
    await expect(clientFor("bob").createDataSource(org.id, body)).rejects.toThrow(/NotFound: .*\(HTTP 404\)/);
    expect(server.inspect.dataSources()).toHaveLength(before);
  });

  it("waits out injected 429s and creates exactly one object", async () => {
    const injectedBefore = server.faults.injected().rateLimited;
    server.faults.set({ routes: { createOrganization: { rateLimitNext: 2, retryAfterSeconds: 3 } } });
    const org = await clientFor("alice").createOrganization({ name: "Rate Limited Org" });
    expect(sleeps).toEqual([3000, 3000]);
    expect(
      server.inspect
        .organizations()
        .filter((o) => o.name === "Rate Limited Org")
        .map((o) => o.id),
    ).toEqual([org.id]);
    expect(server.faults.injected().rateLimited - injectedBefore).toBe(2);
  });

  it("does not retry a reset after the create was committed, and says the object may exist", async () => {
    const org = await clientFor("alice").createOrganization({ name: "Reset Org" });
    server.faults.set({ routes: { createDataSource: { resetAfterCommitNext: 1 } } });
    const error = await clientFor("alice")
      .createDataSource(org.id, { ...body, displayName: "Maybe" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AmbiguousCreateError);
    expect((error as Error).message).toMatch(/data source "Maybe" in organization org_\w+ may or may not have been created/);
    expect((error as Error).message).not.toContain(body.password);
    expect(server.inspect.dataSources().filter((d) => d.displayName === "Maybe")).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it.each([500, 502, 504] as const)("does not retry an injected %i", async (status) => {
    const injectedBefore = server.faults.injected().error;
    server.faults.set({ routes: { createOrganization: { failNext: 1, errorStatus: status } } });
    const name = `Fail ${status}`;
    await expect(clientFor("alice").createOrganization({ name })).rejects.toThrow(AmbiguousCreateError);
    expect(server.faults.injected().error - injectedBefore).toBe(1);
    expect(sleeps).toEqual([]);
    expect(server.inspect.organizations().filter((o) => o.name === name)).toHaveLength(0);
  });
});

import { describe, expect, it } from "vitest";
import { ORGANIZATIONS_PATH } from "../contract";
import { INTERNAL_ERROR_DETAIL } from "./envelope";
import { FaultInjector, parseFaultSettings } from "./faults";
import { startReferenceServer } from "./server";
import { call, closeServersAfterEach, createDataSource, createOrg, expectError, start } from "../../test/support/reference-server-harness";

closeServersAfterEach();

describe("FaultInjector", () => {
  it("injects nothing by default", () => {
    const faults = new FaultInjector();
    expect(faults.latencyFor("createOrganization")).toBe(0);
    expect(faults.errorFor("createOrganization")).toBeUndefined();
    expect(faults.takeResetBeforeCommit("createDataSource")).toBe(false);
    expect(faults.takeResetAfterCommit("createDataSource")).toBe(false);
    expect(faults.injected()).toEqual({ latency: 0, error: 0, rateLimited: 0, resetBeforeCommit: 0, resetAfterCommit: 0 });
  });

  it("answers the next n requests with 429 and Retry-After, then stops", () => {
    const faults = new FaultInjector({ rateLimitNext: 2, retryAfterSeconds: 7 });
    for (let i = 0; i < 2; i++) {
      expect(faults.errorFor("createOrganization")).toMatchObject({ status: 429, title: "RateLimited", headers: { "retry-after": "7" } });
    }
    expect(faults.errorFor("createOrganization")).toBeUndefined();
    expect(faults.injected().rateLimited).toBe(2);
    expect(faults.settings()).toMatchObject({ rateLimitNext: 0 });
  });

  it.each([
    [500, "InternalError", undefined],
    [502, "ServiceUnavailable", undefined],
    [503, "ServiceUnavailable", "1"],
    [504, "ServiceUnavailable", undefined],
  ] as const)("failNext with errorStatus %i gives %s", (status, title, retryAfter) => {
    const faults = new FaultInjector({ failNext: 1, errorStatus: status });
    const error = faults.errorFor("createDataSource");
    expect(error).toMatchObject({ status, title });
    expect(error?.headers["retry-after"]).toBe(retryAfter);
    if (status === 500) expect(error?.detail).toBe(INTERNAL_ERROR_DETAIL);
    expect(faults.errorFor("createDataSource")).toBeUndefined();
  });

  it("uses the error rate with the given randomness", () => {
    const draws = [0.1, 0.9, 0.4, 0.6];
    const faults = new FaultInjector({ errorRate: 0.5 }, () => draws.shift()!);
    const outcomes = [1, 2, 3, 4].map(() => faults.errorFor("createOrganization")?.status);
    expect(outcomes).toEqual([503, undefined, 503, undefined]);
    expect(faults.injected().error).toBe(2);
  });

  it("per-route settings win over the top level, and counters are consumed route first", () => {
    const faults = new FaultInjector({
      latencyMs: 5,
      failNext: 1,
      routes: { createDataSource: { latencyMs: 50, failNext: 1, errorStatus: 504 } },
    });
    expect(faults.latencyFor("createOrganization")).toBe(5);
    expect(faults.latencyFor("createDataSource")).toBe(50);
    expect(faults.errorFor("createDataSource")?.status).toBe(504);
    // The route counter is spent; the shared one still applies, with the route's status.
    expect(faults.errorFor("createDataSource")?.status).toBe(504);
    expect(faults.errorFor("createOrganization")).toBeUndefined();
    expect(faults.injected()).toMatchObject({ latency: 2, error: 2 });
  });

  it("counts connection resets before and after commit separately", () => {
    const faults = new FaultInjector({ resetBeforeCommitNext: 1, routes: { createOrganization: { resetAfterCommitNext: 2 } } });
    expect(faults.takeResetBeforeCommit("createDataSource")).toBe(true);
    expect(faults.takeResetBeforeCommit("createOrganization")).toBe(false);
    expect(faults.takeResetAfterCommit("createDataSource")).toBe(false);
    expect(faults.takeResetAfterCommit("createOrganization")).toBe(true);
    expect(faults.takeResetAfterCommit("createOrganization")).toBe(true);
    expect(faults.takeResetAfterCommit("createOrganization")).toBe(false);
    expect(faults.injected()).toMatchObject({ resetBeforeCommit: 1, resetAfterCommit: 2 });
  });

  it("set replaces everything and clear turns all off; counts survive until reset", () => {
    const faults = new FaultInjector({ failNext: 5 });
    faults.errorFor("createOrganization");
    faults.set({ latencyMs: 1 });
    expect(faults.errorFor("createOrganization")).toBeUndefined();
    faults.clear();
    expect(faults.settings()).toEqual({});
    expect(faults.injected().error).toBe(1);
    faults.resetCounts();
    expect(faults.injected().error).toBe(0);
  });

  it("rejects invalid settings, naming every offending field", () => {
    const faults = new FaultInjector();
    expect(() => faults.set({ errorRate: 2, errorStatus: 404 as 500, failNext: -1 })).toThrow(/errorRate.*errorStatus.*failNext/);
    const parsed = parseFaultSettings({ latencyMs: "slow", routes: { deleteEverything: {} }, typo: 1 });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.detail).toContain("latencyMs");
      expect(parsed.detail).toContain("routes.deleteEverything");
      expect(parsed.detail).toContain("typo");
    }
  });
});

describe("fault injection over HTTP", () => {
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

import { describe, expect, it } from "vitest";
import { ORGANIZATIONS_PATH } from "../../contract";
import { INTERNAL_ERROR_DETAIL } from "../http/envelope";
import { startReferenceServer, type ReferenceServer } from "../server";
import { FAULT_HEADER, FaultInjector, parseFaultSettings } from "./faults";
import type { RequestLogEntry } from "./request-log";
import { call, closeServersAfterEach, createDataSource, createOrg, expectError, start } from "../../../test/support/reference-server-harness";

closeServersAfterEach();

describe("FaultInjector", () => {
  it("injects nothing by default", () => {
    const faults = new FaultInjector();
    expect(faults.latencyFor("createOrganization")).toBeUndefined();
    expect(faults.errorFor("createOrganization")).toBeUndefined();
    expect(faults.takeResetBeforeCommit("createDataSource")).toBeUndefined();
    expect(faults.takeResetAfterCommit("createDataSource")).toBeUndefined();
    expect(faults.injected()).toEqual({ latency: 0, error: 0, rateLimited: 0, resetBeforeCommit: 0, resetAfterCommit: 0, unrecordableAnswer: 0 });
  });

  it("answers the next n requests with 429 and Retry-After, then stops", () => {
    const faults = new FaultInjector({ rateLimitNext: 2, retryAfterSeconds: 7 });
    for (let i = 0; i < 2; i++) {
      expect(faults.errorFor("createOrganization")).toMatchObject({
        error: { status: 429, title: "RateLimited", headers: { "retry-after": "7" } },
        rule: "rateLimitNext",
      });
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
    const injected = faults.errorFor("createDataSource");
    expect(injected).toMatchObject({ error: { status, title }, rule: "failNext" });
    expect(injected?.error.headers["retry-after"]).toBe(retryAfter);
    if (status === 500) expect(injected?.error.detail).toBe(INTERNAL_ERROR_DETAIL);
    expect(faults.errorFor("createDataSource")).toBeUndefined();
  });

  it("uses the error rate with the given randomness", () => {
    const draws = [0.1, 0.9, 0.4, 0.6];
    const faults = new FaultInjector({ errorRate: 0.5 }, () => draws.shift()!);
    const outcomes = [1, 2, 3, 4].map(() => faults.errorFor("createOrganization"));
    expect(outcomes.map((o) => o?.error.status)).toEqual([503, undefined, 503, undefined]);
    expect(outcomes.map((o) => o?.rule)).toEqual(["errorRate", undefined, "errorRate", undefined]);
    expect(faults.injected().error).toBe(2);
  });

  it("per-route settings win over the top level, and counters are consumed route first", () => {
    const faults = new FaultInjector({
      latencyMs: 5,
      failNext: 1,
      routes: { createDataSource: { latencyMs: 50, failNext: 1, errorStatus: 504 } },
    });
    expect(faults.latencyFor("createOrganization")).toEqual({ ms: 5, rule: "latencyMs" });
    expect(faults.latencyFor("createDataSource")).toEqual({ ms: 50, rule: "routes.createDataSource.latencyMs" });
    expect(faults.errorFor("createDataSource")).toMatchObject({ error: { status: 504 }, rule: "routes.createDataSource.failNext" });
    // The route counter is spent; the shared one still applies, with the route's status.
    expect(faults.errorFor("createDataSource")).toMatchObject({ error: { status: 504 }, rule: "failNext" });
    expect(faults.errorFor("createOrganization")).toBeUndefined();
    expect(faults.injected()).toMatchObject({ latency: 2, error: 2 });
  });

  it("counts connection resets before and after commit separately", () => {
    const faults = new FaultInjector({ resetBeforeCommitNext: 1, routes: { createOrganization: { resetAfterCommitNext: 2 } } });
    expect(faults.takeResetBeforeCommit("createDataSource")).toBe("resetBeforeCommitNext");
    expect(faults.takeResetBeforeCommit("createOrganization")).toBeUndefined();
    expect(faults.takeResetAfterCommit("createDataSource")).toBeUndefined();
    expect(faults.takeResetAfterCommit("createOrganization")).toBe("routes.createOrganization.resetAfterCommitNext");
    expect(faults.takeResetAfterCommit("createOrganization")).toBe("routes.createOrganization.resetAfterCommitNext");
    expect(faults.takeResetAfterCommit("createOrganization")).toBeUndefined();
    expect(faults.injected()).toMatchObject({ resetBeforeCommit: 1, resetAfterCommit: 2 });
  });

  it("names the scope that supplied a value: a route's 0 or rate wins over the top level's", () => {
    const faults = new FaultInjector({ latencyMs: 100, errorRate: 0.5, routes: { createOrganization: { latencyMs: 0, errorRate: 0.2 } } }, () => 0.1);
    expect(faults.latencyFor("createOrganization")).toBeUndefined();
    expect(faults.latencyFor("createDataSource")).toEqual({ ms: 100, rule: "latencyMs" });
    expect(faults.errorFor("createOrganization")?.rule).toBe("routes.createOrganization.errorRate");
    expect(faults.errorFor("createDataSource")?.rule).toBe("errorRate");
    expect(faults.injected()).toMatchObject({ latency: 1, error: 2 });
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
    expect(server.faults.injected()).toEqual({ latency: 0, error: 0, rateLimited: 0, resetBeforeCommit: 0, resetAfterCommit: 0, unrecordableAnswer: 0 });
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

describe("visible faults: X-Reference-Fault and the request journal", () => {
  const journal = (server: ReferenceServer) => server.inspect.requests().recent.map((e) => ({ status: e.status, faults: e.faults }));

  it("names the top-level or per-route failNext that fired, and nothing on clean answers", async () => {
    const { server } = await start({ inspection: true });
    const key = server.apiKeys.alice!;
    const org = await createOrg(server, key);
    server.faults.set({ failNext: 1, routes: { createDataSource: { failNext: 1, errorStatus: 500 } } });
    const routeFault = await createDataSource(server, key, org.id);
    const topFault = await createDataSource(server, key, org.id);
    const clean = await createDataSource(server, key, org.id);
    expect([routeFault, topFault, clean].map((r) => [r.status, r.headers.get(FAULT_HEADER)])).toEqual([
      [500, "routes.createDataSource.failNext"],
      [500, "failNext"],
      [201, null],
    ]);
    expect(journal(server)).toEqual([
      { status: 201, faults: [] },
      { status: 500, faults: ["routes.createDataSource.failNext"] },
      { status: 500, faults: ["failNext"] },
      { status: 201, faults: [] },
    ]);
    const overHttp = await call(server, "GET", "/_reference/requests");
    expect(overHttp.json.data.recent.map((e: RequestLogEntry) => e.faults)).toEqual([[], ["routes.createDataSource.failNext"], ["failNext"], []]);
    expect(overHttp.json.data.byFault).toEqual({ failNext: 1, "routes.createDataSource.failNext": 1 });
  });

  it("names errorRate and rateLimitNext, with the scope they came from", async () => {
    const { server } = await start({ faults: { rateLimitNext: 1, routes: { createOrganization: { errorRate: 1, errorStatus: 502 } } } });
    const key = server.apiKeys.alice!;
    const limited = await call(server, "POST", ORGANIZATIONS_PATH, { key, body: { name: "x" } });
    expectError(limited, 429, "RateLimited");
    expect(limited.headers.get(FAULT_HEADER)).toBe("rateLimitNext");
    const failed = await call(server, "POST", ORGANIZATIONS_PATH, { key, body: { name: "x" } });
    expectError(failed, 502, "ServiceUnavailable");
    expect(failed.headers.get(FAULT_HEADER)).toBe("routes.createOrganization.errorRate");
    expect(journal(server)).toEqual([
      { status: 429, faults: ["rateLimitNext"] },
      { status: 502, faults: ["routes.createOrganization.errorRate"] },
    ]);
    expect(server.faults.injected()).toMatchObject({ rateLimited: 1, error: 1 });
  });

  it("counts latency as shaping the answer: a delayed 201 or 401 carries latencyMs, listed before a later fault", async () => {
    const { server } = await start({ faults: { latencyMs: 1, routes: { createDataSource: { latencyMs: 2, failNext: 1 } } } });
    const key = server.apiKeys.alice!;
    const created = await call(server, "POST", ORGANIZATIONS_PATH, { key, body: { name: "Slow" } });
    expect([created.status, created.headers.get(FAULT_HEADER)]).toEqual([201, "latencyMs"]);
    const unauthorized = await call(server, "POST", ORGANIZATIONS_PATH, { body: { name: "Slow" } });
    expect([unauthorized.status, unauthorized.headers.get(FAULT_HEADER)]).toEqual([401, "latencyMs"]);
    const failed = await createDataSource(server, key, created.json.data.id);
    expect([failed.status, failed.headers.get(FAULT_HEADER)]).toEqual([503, "routes.createDataSource.latencyMs, routes.createDataSource.failNext"]);
    expect(journal(server).map((e) => e.faults)).toEqual([
      ["latencyMs"],
      ["latencyMs"],
      ["routes.createDataSource.latencyMs", "routes.createDataSource.failNext"],
    ]);
  });

  it("records connection resets, which have no answer, with status null and the rule", async () => {
    const { server } = await start({ faults: { resetBeforeCommitNext: 1, routes: { createOrganization: { resetAfterCommitNext: 1, latencyMs: 1 } } } });
    const key = server.apiKeys.alice!;
    await expect(call(server, "POST", ORGANIZATIONS_PATH, { key, body: { name: "Lost" } })).rejects.toThrow();
    await expect(call(server, "POST", ORGANIZATIONS_PATH, { key, body: { name: "Kept" } })).rejects.toThrow();
    expect(journal(server)).toEqual([
      { status: null, faults: ["routes.createOrganization.latencyMs", "resetBeforeCommitNext"] },
      { status: null, faults: ["routes.createOrganization.latencyMs", "routes.createOrganization.resetAfterCommitNext"] },
    ]);
    expect(server.inspect.requests().byFault).toEqual({
      resetBeforeCommitNext: 1,
      "routes.createOrganization.latencyMs": 2,
      "routes.createOrganization.resetAfterCommitNext": 1,
    });
    expect(server.inspect.organizations().map((o) => o.name)).toEqual(["Kept"]);
  });

  it("sends no header and records no fault when none fired, whatever the answer", async () => {
    const { server } = await start({ faults: { routes: { createDataSource: { failNext: 1 } } } });
    const key = server.apiKeys.alice!;
    const replies = [
      await call(server, "POST", ORGANIZATIONS_PATH, { key, body: { name: "Fine" } }),
      await call(server, "POST", ORGANIZATIONS_PATH, { key, body: { nope: 1 } }),
      await call(server, "POST", ORGANIZATIONS_PATH, { body: { name: "x" } }),
      await call(server, "GET", ORGANIZATIONS_PATH, { key }),
      await call(server, "POST", "/api/public/unknown", { key, body: {} }),
    ];
    expect(replies.map((r) => [r.status, r.headers.get(FAULT_HEADER)])).toEqual([
      [201, null],
      [400, null],
      [401, null],
      [405, null],
      [404, null],
    ]);
    expect(journal(server).every((e) => e.faults.length === 0)).toBe(true);
    expect(server.inspect.requests().byFault).toEqual({});
    expect(server.faults.settings()).toEqual({ routes: { createDataSource: { failNext: 1 } } });
  });
});

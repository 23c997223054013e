import { describe, expect, it } from "vitest";
import { INTERNAL_ERROR_DETAIL } from "./envelope";
import { FaultInjector, parseFaultSettings } from "./faults";

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

import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_POLICY, decideRetry, parseRetryAfter, provablyNotApplied, type AttemptOutcome } from "./retry";

const now = Date.parse("2026-01-01T00:00:00Z");

describe("parseRetryAfter", () => {
  it.each([
    [undefined, undefined],
    ["3", 3000],
    [" 0 ", 0],
    ["Thu, 01 Jan 2026 00:00:05 GMT", 5000],
    ["Wed, 31 Dec 2025 23:59:00 GMT", 0],
    ["soon", undefined],
  ])("%j is %j ms", (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});

describe("provablyNotApplied", () => {
  it.each<[AttemptOutcome, boolean]>([
    [{ kind: "transport", sent: false, code: "ECONNREFUSED" }, true],
    [{ kind: "transport", sent: true, code: "ECONNRESET" }, false],
    [{ kind: "transport", sent: true, code: "UND_ERR_HEADERS_TIMEOUT" }, false],
    [{ kind: "response", status: 429 }, true],
    [{ kind: "response", status: 503 }, true],
    [{ kind: "response", status: 500 }, false],
    [{ kind: "response", status: 502 }, false],
    [{ kind: "response", status: 504 }, false],
    [{ kind: "response", status: 400 }, false],
  ])("%j -> %s", (outcome, expected) => {
    expect(provablyNotApplied(outcome)).toBe(expected);
  });
});

describe("decideRetry", () => {
  const refused: AttemptOutcome = { kind: "transport", sent: false, code: "ECONNREFUSED" };

  it("never retries what may have been applied", () => {
    for (const outcome of [{ kind: "response", status: 502 }, { kind: "transport", sent: true, code: "ECONNRESET" }] as AttemptOutcome[]) {
      expect(decideRetry(outcome, 1, 0)).toEqual({ action: "stop", why: "not-retryable" });
    }
  });

  it("waits exactly Retry-After before the next attempt", () => {
    expect(decideRetry({ kind: "response", status: 429, retryAfter: "2" }, 1, 0, DEFAULT_RETRY_POLICY, 0.5, now)).toEqual({ action: "retry", delayMs: 2000 });
  });

  it("backs off exponentially with jitter between half and all of the step", () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(decideRetry(refused, 1, 0, policy, 0)).toEqual({ action: "retry", delayMs: 50 });
    expect(decideRetry(refused, 1, 0, policy, 0.999)).toEqual({ action: "retry", delayMs: 100 });
    expect(decideRetry(refused, 3, 0, policy, 0)).toEqual({ action: "retry", delayMs: 200 });
    expect(decideRetry(refused, 3, 0, { ...policy, maxAttempts: 10 }, 0.999)).toEqual({ action: "retry", delayMs: 400 });
    expect(decideRetry(refused, 8, 0, { ...policy, maxAttempts: 10 }, 0.999)).toEqual({ action: "retry", delayMs: 1000 });
  });

  it("stops after maxAttempts", () => {
    expect(decideRetry(refused, DEFAULT_RETRY_POLICY.maxAttempts, 0)).toEqual({ action: "stop", why: "attempts-exhausted" });
  });

  it("stops rather than wait past the time budget", () => {
    expect(decideRetry({ kind: "response", status: 503, retryAfter: "120" }, 1, 0, DEFAULT_RETRY_POLICY, 0, now)).toEqual({ action: "stop", why: "time-exhausted" });
    expect(decideRetry(refused, 1, DEFAULT_RETRY_POLICY.maxTotalMs, DEFAULT_RETRY_POLICY, 0)).toEqual({ action: "stop", why: "time-exhausted" });
  });
});

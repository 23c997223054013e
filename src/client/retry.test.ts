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
    // Decimal seconds wait that long; V8's Date.parse reads "1.5" as a date in 2001, which gave 0.
    ["1.5", 1500],
    ["0.5", 500],
    // Neither seconds nor an IMF-fixdate: the backoff applies, never an immediate retry.
    ["-1", undefined],
    ["1.", undefined],
    ["2026-01-01T00:00:05Z", undefined],
    ["Thursday, 01-Jan-26 00:00:05 GMT", undefined],
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
    for (const outcome of [
      { kind: "response", status: 502 },
      { kind: "transport", sent: true, code: "ECONNRESET" },
    ] as AttemptOutcome[]) {
      expect(decideRetry(outcome, 1, 0)).toEqual({ action: "stop", why: "not-retryable" });
    }
  });

  it("waits exactly Retry-After before the next attempt", () => {
    expect(decideRetry({ kind: "response", status: 429, retryAfter: "2" }, 1, 0, DEFAULT_RETRY_POLICY, 0.5, now)).toEqual({ action: "retry", delayMs: 2000 });
  });

  it.each(["1.5", "-1", "0.5", "soon"])("never retries at once on Retry-After %j: only 0 asks for that", (value) => {
    const decision = decideRetry({ kind: "response", status: 503, retryAfter: value }, 1, 0, DEFAULT_RETRY_POLICY, 0, now);
    expect(decision.action === "retry" && decision.delayMs).toBeGreaterThanOrEqual(DEFAULT_RETRY_POLICY.baseDelayMs / 2);
    expect(decideRetry({ kind: "response", status: 503, retryAfter: "0" }, 1, 0, DEFAULT_RETRY_POLICY, 0, now)).toEqual({ action: "retry", delayMs: 0 });
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
    expect(decideRetry({ kind: "response", status: 503, retryAfter: "120" }, 1, 0, DEFAULT_RETRY_POLICY, 0, now)).toEqual({
      action: "stop",
      why: "time-exhausted",
    });
    expect(decideRetry(refused, 1, DEFAULT_RETRY_POLICY.maxTotalMs, DEFAULT_RETRY_POLICY, 0)).toEqual({ action: "stop", why: "time-exhausted" });
  });
});

/**
 * When to retry a create. The API has no idempotency key, so a create is retried only when the
 * request provably was not applied: it never left this process, or the server refused it with
 * 429 or 503 before doing anything.
 */

/** Bounds on retrying one request. */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Give up rather than wait past this many ms since the first attempt. */
  maxTotalMs: number;
  /** First backoff delay when the server gives no Retry-After. */
  baseDelayMs: number;
  /** Cap on a single backoff delay (a Retry-After beyond the budget ends the retries instead). */
  maxDelayMs: number;
}

/** Defaults: 4 attempts within 60 s, backoff from 250 ms doubling to at most 8 s. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 4, maxTotalMs: 60_000, baseDelayMs: 250, maxDelayMs: 8_000 };

/** What one attempt produced, as far as retrying cares. */
export type AttemptOutcome = { kind: "response"; status: number; retryAfter?: string | undefined } | { kind: "transport"; sent: boolean; code: string };

/** Retry after `delayMs`, or stop. */
export type RetryDecision = { action: "retry"; delayMs: number } | { action: "stop"; why: "not-retryable" | "attempts-exhausted" | "time-exhausted" };

/** Statuses that mean "not applied, come back later". */
const RETRYABLE_STATUSES = new Set([429, 503]);

/** An HTTP-date as RFC 9110 section 5.6.7 prefers it (IMF-fixdate), e.g. `Sun, 06 Nov 1994 08:49:37 GMT`. */
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * Retry-After in ms from `nowMs`: seconds (whole, or decimal as some services send them), or an
 * IMF-fixdate (a date already past is 0). Undefined when absent or neither, so the backoff applies:
 * only `0` (or a past date) asks for a retry at once.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  if (!IMF_FIXDATE.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** True when the outcome proves the request was not applied, so sending it again cannot duplicate anything. */
export function provablyNotApplied(outcome: AttemptOutcome): boolean {
  return outcome.kind === "transport" ? !outcome.sent : RETRYABLE_STATUSES.has(outcome.status);
}

/**
 * Decides what to do after attempt number `attempt` (1-based) produced `outcome`, `elapsedMs`
 * after the first attempt started. `random` in [0, 1) jitters the backoff.
 */
export function decideRetry(
  outcome: AttemptOutcome,
  attempt: number,
  elapsedMs: number,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  random: number = Math.random(),
  nowMs: number = Date.now(),
): RetryDecision {
  if (!provablyNotApplied(outcome)) return { action: "stop", why: "not-retryable" };
  if (attempt >= policy.maxAttempts) return { action: "stop", why: "attempts-exhausted" };
  const retryAfter = outcome.kind === "response" ? parseRetryAfter(outcome.retryAfter, nowMs) : undefined;
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  // Half fixed, half jitter: spreads concurrent retries without ever retrying immediately.
  const delayMs = retryAfter ?? Math.round(backoff / 2 + (backoff / 2) * random);
  if (elapsedMs + delayMs > policy.maxTotalMs) return { action: "stop", why: "time-exhausted" };
  return { action: "retry", delayMs };
}

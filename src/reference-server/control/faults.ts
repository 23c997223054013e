import type { z } from "zod";
import { formatFieldErrors, validate } from "../../contract/validation";
import { createOperationIds, type CreateOperationId } from "../../kinds";
import { lazySchema } from "../../lazy-zod";
import { INTERNAL_ERROR_DETAIL, wireError, type WireError } from "../http/envelope";
import { ANSWER_PROFILE_NAMES, DEFAULT_ANSWER_PROFILE, type AnswerProfile } from "./answer-profiles";

/** Routes faults can target: each kind's create endpoint, named by its operation id. */
export const FAULT_ROUTES: readonly CreateOperationId[] = createOperationIds();

/** One of {@link FAULT_ROUTES}. */
export type FaultRoute = CreateOperationId;

/** Statuses an injected error may have. */
export const INJECTABLE_ERROR_STATUSES = [500, 502, 503, 504] as const;

/** One of {@link INJECTABLE_ERROR_STATUSES}. */
export type InjectableErrorStatus = (typeof INJECTABLE_ERROR_STATUSES)[number];

/** Response header naming the fault rules that shaped an answer, e.g. `routes.createDataSource.failNext`. */
export const FAULT_HEADER = "X-Reference-Fault";

/** Settings that inject a fault when they fire (the others only shape it: status, Retry-After). */
export type FaultRuleKey =
  | "latencyMs"
  | "errorRate"
  | "failNext"
  | "rateLimitNext"
  | "resetBeforeCommitNext"
  | "resetAfterCommitNext"
  | "unrecordableAnswerNext";

/** A setting as its path in {@link FaultSettings}: `key` at the top level, `routes.<route>.key` per route. */
export type ScopedSetting<K extends string> = K | `routes.${FaultRoute}.${K}`;

/** A rule as its path in {@link FaultSettings}: `failNext` at the top level, `routes.createOrganization.failNext` per route. */
export type FaultRule = ScopedSetting<FaultRuleKey>;

/** An injected delay and the rule that asked for it. */
export interface InjectedDelay {
  /** Milliseconds to wait. */
  ms: number;
  /** Where the value came from. */
  rule: FaultRule;
}

/** An injected 429 or 5xx answer and the rule that fired. */
export interface InjectedError {
  /** The answer to throw. */
  error: WireError;
  /** The rule that fired: a counter or the error rate, at route or top level. */
  rule: FaultRule;
}

/** Retry-After sent with injected 429 and 503 answers when none is configured. */
export const DEFAULT_RETRY_AFTER_SECONDS = 1;

/** Faults for one route, or (at the top of {@link FaultSettings}) for every route. */
export interface RouteFaults {
  /** Delay before the request is handled, in milliseconds. */
  latencyMs?: number;
  /** Share (0 to 1) of requests answered with an injected error. */
  errorRate?: number;
  /** Status of injected errors: 500, 502, 503 (default) or 504. */
  errorStatus?: InjectableErrorStatus;
  /** Answer the next n requests with an injected error (deterministic). */
  failNext?: number;
  /** Answer the next n requests with 429 RateLimited. */
  rateLimitNext?: number;
  /** Retry-After of injected 429 and 503 answers, in seconds (default 1). */
  retryAfterSeconds?: number;
  /** For the next n valid creates: destroy the connection before anything is stored. */
  resetBeforeCommitNext?: number;
  /** For the next n valid creates: store the object, then destroy the connection without answering. */
  resetAfterCommitNext?: number;
  /**
   * For the next n valid creates: store the object and answer it with an extra field, `nested`,
   * objects {@link UNRECORDABLE_DEPTH} levels deep: more than a Pulumi property value can carry.
   */
  unrecordableAnswerNext?: number;
}

/**
 * How deep the extra field of an `unrecordableAnswerNext` answer nests: the engine's protobuf reader
 * stops at 10,000 levels, and each JSON object is three of them (a Value, a Struct, a field entry).
 */
export const UNRECORDABLE_DEPTH = 3400;

/** All fault settings: defaults for every route, overridden per route. All off when empty. */
export interface FaultSettings extends RouteFaults {
  /** How every create's success answer looks (control/answer-profiles.ts); `spec` when unset. */
  answerProfile?: AnswerProfile;
  /** Per-route settings; a value here wins over the top-level one, counters are separate. */
  routes?: Partial<Record<FaultRoute, RouteFaults>>;
}

/** How many faults of each kind were injected. */
export interface InjectedFaultCounts {
  /** Requests delayed. */
  latency: number;
  /** Requests answered with an injected 5xx. */
  error: number;
  /** Requests answered with an injected 429. */
  rateLimited: number;
  /** Connections destroyed before a create was stored. */
  resetBeforeCommit: number;
  /** Connections destroyed after a create was stored. */
  resetAfterCommit: number;
  /** Creates answered with a field nested too deep to record. */
  unrecordableAnswer: number;
}

/** Validates {@link FaultSettings} (unknown fields rejected, so typos do not silently disable a fault). */
const faultSettingsSchema = lazySchema((z) => {
  const count = z.number().int().min(0);
  const routeFaultsShape = {
    latencyMs: z.number().int().min(0).max(600_000).optional(),
    errorRate: z.number().min(0).max(1).optional(),
    errorStatus: z.union(INJECTABLE_ERROR_STATUSES.map((s) => z.literal(s))).optional(),
    failNext: count.optional(),
    rateLimitNext: count.optional(),
    retryAfterSeconds: count.optional(),
    resetBeforeCommitNext: count.optional(),
    resetAfterCommitNext: count.optional(),
    unrecordableAnswerNext: count.optional(),
  };
  const routeFaultsSchema = z.strictObject(routeFaultsShape);
  return z.strictObject({
    ...routeFaultsShape,
    answerProfile: z.enum(ANSWER_PROFILE_NAMES).optional(),
    routes: z.strictObject(Object.fromEntries(FAULT_ROUTES.map((route) => [route, routeFaultsSchema.optional()]))).optional(),
  });
});

type Settings = z.output<ReturnType<typeof faultSettingsSchema>>;
type Counter = "failNext" | "rateLimitNext" | "resetBeforeCommitNext" | "resetAfterCommitNext" | "unrecordableAnswerNext";
type ValueKey = "latencyMs" | "errorRate" | "errorStatus" | "retryAfterSeconds";

/** The path of `key` in the settings: under `routes.<route>.` when the route's scope supplied it. */
function rulePath<K extends string>(route: FaultRoute, key: K, routeScope: boolean): ScopedSetting<K> {
  return routeScope ? `routes.${route}.${key}` : key;
}

function zeroCounts(): InjectedFaultCounts {
  return { latency: 0, error: 0, rateLimited: 0, resetBeforeCommit: 0, resetAfterCommit: 0, unrecordableAnswer: 0 };
}

/** Checks fault settings; the error message names every offending field. */
export function parseFaultSettings(input: unknown): { ok: true; value: FaultSettings } | { ok: false; detail: string } {
  const result = validate(faultSettingsSchema(), input);
  return result.ok ? { ok: true, value: stripUndefined(result.value) } : { ok: false, detail: formatFieldErrors(result.errors) };
}

/** A deep copy without `undefined` members, which is what {@link FaultSettings} allows. */
function stripUndefined(value: Settings): FaultSettings {
  return JSON.parse(JSON.stringify(value)) as FaultSettings;
}

/**
 * Decides, request by request, which configured faults to inject, says which rule fired (its
 * path in the settings), and counts them. Values are looked up route-first; counters
 * (`failNext`, …) are consumed route-first, then from the top level.
 */
export class FaultInjector {
  private current: Settings = {};
  private counts = zeroCounts();

  constructor(
    settings: FaultSettings = {},
    /** Source of randomness for `errorRate` (replaceable for deterministic tests). */
    private readonly random: () => number = Math.random,
  ) {
    // No settings need no check (and so no zod at start-up).
    if (Object.keys(settings).length > 0) this.set(settings);
  }

  /** Replaces all settings; throws a RangeError naming every invalid field. */
  set(settings: FaultSettings): void {
    const parsed = parseFaultSettings(settings);
    if (!parsed.ok) throw new RangeError(`invalid fault settings: ${parsed.detail}`);
    this.current = parsed.value as Settings;
  }

  /** Turns every fault off. */
  clear(): void {
    this.current = {};
  }

  /** Current settings, with counters as they stand now. */
  settings(): FaultSettings {
    return stripUndefined(this.current);
  }

  /** The answer profile in force. */
  answerProfile(): AnswerProfile {
    return this.current.answerProfile ?? DEFAULT_ANSWER_PROFILE;
  }

  /** Faults injected so far. */
  injected(): InjectedFaultCounts {
    return { ...this.counts };
  }

  /** Sets the injected-fault counts back to zero. */
  resetCounts(): void {
    this.counts = zeroCounts();
  }

  /** The delay to inject into a request on `route`, if any (counted). */
  latencyFor(route: FaultRoute): InjectedDelay | undefined {
    const latency = this.value(route, "latencyMs");
    if (latency === undefined || latency.value <= 0) return undefined;
    this.counts.latency++;
    return { ms: latency.value, rule: latency.rule };
  }

  /** An injected 429 or 5xx for this request on `route`, if one is due (counted). */
  errorFor(route: FaultRoute): InjectedError | undefined {
    const retryAfter = String(this.value(route, "retryAfterSeconds")?.value ?? DEFAULT_RETRY_AFTER_SECONDS);
    const rateLimit = this.take(route, "rateLimitNext");
    if (rateLimit) {
      this.counts.rateLimited++;
      const error = wireError(429, "RateLimited", `Too many requests; retry after ${retryAfter} seconds.`, { "retry-after": retryAfter });
      return { error, rule: rateLimit };
    }
    const rate = this.value(route, "errorRate");
    const rule = this.take(route, "failNext") ?? (rate && rate.value > 0 && this.random() < rate.value ? rate.rule : undefined);
    if (rule === undefined) return undefined;
    this.counts.error++;
    return { error: injectedError(this.value(route, "errorStatus")?.value ?? 503, retryAfter), rule };
  }

  /** The rule, when this valid create's connection is to be destroyed before storing (counted). */
  takeResetBeforeCommit(route: FaultRoute): FaultRule | undefined {
    const rule = this.take(route, "resetBeforeCommitNext");
    if (rule) this.counts.resetBeforeCommit++;
    return rule;
  }

  /** The rule, when this create is to be stored, then its connection destroyed unanswered (counted). */
  takeResetAfterCommit(route: FaultRoute): FaultRule | undefined {
    const rule = this.take(route, "resetAfterCommitNext");
    if (rule) this.counts.resetAfterCommit++;
    return rule;
  }

  /** The rule, when this create's answer is to carry a field nested too deep to record (counted). */
  takeUnrecordableAnswer(route: FaultRoute): FaultRule | undefined {
    const rule = this.take(route, "unrecordableAnswerNext");
    if (rule) this.counts.unrecordableAnswer++;
    return rule;
  }

  /** The value of `key` for `route`, from the route's scope if set there, else from the top level. */
  private value<K extends ValueKey>(route: FaultRoute, key: K): { value: NonNullable<Settings[K]>; rule: ScopedSetting<K> } | undefined {
    const own = this.current.routes?.[route]?.[key];
    if (own !== undefined) return { value: own as NonNullable<Settings[K]>, rule: rulePath(route, key, true) };
    const shared = this.current[key];
    return shared === undefined ? undefined : { value: shared as NonNullable<Settings[K]>, rule: rulePath(route, key, false) };
  }

  /** Consumes one unit of `counter`, route scope first; the rule it came from, or undefined when none is left. */
  private take<K extends Counter>(route: FaultRoute, counter: K): ScopedSetting<K> | undefined {
    const scopes = [
      { scope: this.current.routes?.[route], routeScope: true },
      { scope: this.current, routeScope: false },
    ];
    for (const { scope, routeScope } of scopes) {
      const remaining = scope?.[counter];
      if (scope && remaining !== undefined && remaining > 0) {
        scope[counter] = remaining - 1;
        return rulePath(route, counter, routeScope);
      }
    }
    return undefined;
  }
}

/** The injected 5xx answer of `status`. */
function injectedError(status: InjectableErrorStatus, retryAfter: string): WireError {
  if (status === 500) return wireError(500, "InternalError", INTERNAL_ERROR_DETAIL);
  if (status === 503) {
    return wireError(503, "ServiceUnavailable", `The service is temporarily unavailable; retry after ${retryAfter} seconds.`, {
      "retry-after": retryAfter,
    });
  }
  const what = status === 502 ? "an upstream failure (bad gateway)" : "an upstream timeout (gateway timeout)";
  return wireError(status, "ServiceUnavailable", `The service is temporarily unavailable because of ${what}; retry later.`);
}

/** Injected delays, which closing the server cuts short: a cancelled delay never ends. */
export class FaultDelays {
  private readonly timers = new Set<NodeJS.Timeout>();

  /** Resolves after `ms` milliseconds, unless {@link FaultDelays.cancelAll} comes first. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }

  /** Cancels every running delay; their requests end with the closing connections. */
  cancelAll(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}

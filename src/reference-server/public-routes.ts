import type { IncomingMessage, ServerResponse } from "node:http";
import type { CreateDataSourceRequest, CreateOrganizationRequest } from "../contract";
import { requestSchema } from "../contract/schemas";
import { formatFieldErrors, validate, type FieldError } from "../contract/validation";
import { SSO_JWT_PATH } from "../contract/wire";
import { KINDS, createOperationId, dataSourceSpec, kindOfOperation, organizationSpec, type KindSpec, type ResourceKind } from "../kinds";
import { DEFAULT_ANSWER_PROFILE, PROFILE_HEADER, shapeAnswer, type NumericIds } from "./control/answer-profiles";
import { FAULT_HEADER, UNRECORDABLE_DEPTH, type FaultDelays, type FaultInjector, type FaultRoute, type FaultRule } from "./control/faults";
import { sendData, unmatchedRoute, wireError } from "./http/envelope";
import { checkJsonContentType, parseJsonBody, readBody } from "./http/request-body";
import { Router, type RouteMatch } from "./http/router";
import { authenticate } from "./state/auth";
import type { ServerState } from "./state/server-state";
import { dataSourceResponse, organizationResponse } from "./state/views";
import type { SyncJobs } from "./sync/sync-jobs";

/** A route of the public API: each kind's create, and the single-sign-on path the spec leaves open. */
export type PublicRoute = FaultRoute | "ssoJwt";

/** Routes of the public API, the creates read from the kind specs. */
export const publicRouter = new Router<PublicRoute>([
  ...Object.values(KINDS).map((spec) => ({ id: createOperationId(spec), pattern: spec.endpoint.pattern, methods: ["POST"] })),
  { id: "ssoJwt", pattern: SSO_JWT_PATH, methods: ["*"] },
]);

/**
 * Longest organization name this server accepts. The API specification states no limit; this
 * bound is the reference server's own choice (documented in docs/reference-server-api.md), so the
 * contract, and with it the provider's preview, does not enforce it.
 */
export const ORGANIZATION_NAME_MAX = 255;

/** The contract's field errors of an organization body, plus this server's own name limit. */
function organizationErrors(body: unknown, contractErrors: readonly FieldError[]): FieldError[] {
  const name = typeof body === "object" && body !== null ? (body as { name?: unknown }).name : undefined;
  if (typeof name !== "string" || name.length <= ORGANIZATION_NAME_MAX || contractErrors.some((e) => e.field === "name")) {
    return [...contractErrors];
  }
  const tooLong = { field: "name", reason: `must be at most ${ORGANIZATION_NAME_MAX} characters long, got ${name.length} characters` };
  return [tooLong, ...contractErrors];
}

/** What the public routes act on. */
export interface PublicContext {
  /** Store and its saving. */
  state: ServerState;
  /** Fault decisions and counts. */
  faults: FaultInjector;
  /** Injected delays, cut short by closing. */
  delays: FaultDelays;
  /** Background schema syncs. */
  jobs: SyncJobs;
  /** The numbers that stand for ids in answers of the `other-types` profile. */
  numericIds: NumericIds;
  /** Service prefix of API keys. */
  keyPrefix: string;
  /** Largest accepted body in bytes. */
  maxBodyBytes: number;
  /** Length of the trial an organization's first data source starts. */
  trialDays: number;
  /** Clock. */
  now: () => Date;
}

/** A checked request: who sent it and its parsed JSON body. */
interface Admitted {
  userName: string;
  body: unknown;
}

/** One request being answered, and the rules of the faults injected into it so far. */
interface Exchange {
  /** The request. */
  req: IncomingMessage;
  /** Its answer. */
  res: ServerResponse;
  /** Rules that fired, in order; the request journal records them. */
  faults: string[];
}

/** Records that `rule` shaped this exchange and names every such rule on the answer. */
function noteFault(ex: Exchange, rule: FaultRule): void {
  ex.faults.push(rule);
  ex.res.setHeader(FAULT_HEADER, ex.faults.join(", "));
}

/** Sends a create's answer as the answer profile in force shapes it, naming the profile when it is not the default. */
function sendCreated(ctx: PublicContext, ex: Exchange, spec: KindSpec, data: object): void {
  const profile = ctx.faults.answerProfile();
  const shaped = shapeAnswer(profile, spec, data as Record<string, unknown>, ctx.numericIds);
  const unrecordable = ctx.faults.takeUnrecordableAnswer(createOperationId(spec) as FaultRoute);
  if (unrecordable) noteFault(ex, unrecordable);
  const answer = unrecordable ? { ...shaped.data, nested: nestedObjects(UNRECORDABLE_DEPTH) } : shaped.data;
  sendData(ex.res, shaped.status, answer, profile === DEFAULT_ANSWER_PROFILE ? {} : { [PROFILE_HEADER]: profile });
}

/** `{ nested: { nested: … } }`, `depth` objects deep. */
function nestedObjects(depth: number): Record<string, unknown> {
  const outer: Record<string, unknown> = {};
  let inner = outer;
  for (let level = 1; level < depth; level++) inner = inner.nested = {};
  return outer;
}

/** Ends the exchange without an answer, as a dropped connection would. */
function dropConnection(req: IncomingMessage): void {
  req.socket.destroy();
}

/** The route to handle, or the 404/405/501 for the request. */
function routeOf(match: RouteMatch<PublicRoute>): { route: FaultRoute; params: ReadonlyMap<string, string> } {
  if (match.kind !== "found") throw unmatchedRoute(match, "No endpoint of the public API has this path.");
  if (match.route.id === "ssoJwt") {
    throw wireError(
      501,
      "NotImplemented",
      "The single sign-on endpoint is not implemented: the public API specification does not show its method, payload or response.",
    );
  }
  const kind = kindOfOperation(match.route.id);
  if (kind === undefined || !Object.hasOwn(CREATES, kind)) {
    // A kind the specs declare but this emulator has no behaviour for yet.
    throw wireError(501, "NotImplemented", `The reference server does not emulate ${match.route.id} yet.`);
  }
  return { route: match.route.id, params: match.params };
}

/**
 * Checks in the documented order: injected faults, auth, content type, size, JSON. Undefined
 * when the server closed meanwhile (the connection is then dropped).
 */
async function admit(ctx: PublicContext, route: FaultRoute, ex: Exchange): Promise<Admitted | undefined> {
  const { faults, state } = ctx;
  const latency = faults.latencyFor(route);
  let early: Promise<Buffer> | undefined;
  if (latency) {
    noteFault(ex, latency.rule);
    // Read during the delay, as a service that has the whole request before it is slow: a create
    // whose client goes away meanwhile is still carried out. Its failures count only once awaited.
    early = readBody(ex.req, ctx.maxBodyBytes);
    early.catch(() => undefined);
    await ctx.delays.sleep(latency.ms);
  }
  if (state.isClosed) return undefined;
  const injected = faults.errorFor(route);
  if (injected) {
    noteFault(ex, injected.rule);
    throw injected.error;
  }

  const { req } = ex;
  const auth = authenticate(req.headers.authorization, ctx.keyPrefix, state.store.apiKeys);
  if (!auth.ok) throw wireError(401, "Unauthorized", auth.detail, { "www-authenticate": 'Bearer realm="api"' });
  const unsupported = checkJsonContentType(req.headers["content-type"]);
  if (unsupported) throw unsupported;
  const body = parseJsonBody(await (early ?? readBody(req, ctx.maxBodyBytes)));
  return state.isClosed ? undefined : { userName: auth.userName, body };
}

/** The injected connection reset due before (or after) this create's commit, noted; undefined when none is. */
function resetDue(ctx: PublicContext, ex: Exchange, route: FaultRoute, when: "before" | "after"): FaultRule | undefined {
  const rule = when === "before" ? ctx.faults.takeResetBeforeCommit(route) : ctx.faults.takeResetAfterCommit(route);
  if (rule) noteFault(ex, rule);
  return rule;
}

async function createOrganization(ctx: PublicContext, ex: Exchange, who: Admitted): Promise<void> {
  const { state } = ctx;
  const input = validate(requestSchema(organizationSpec), who.body);
  const errors = organizationErrors(who.body, input.ok ? [] : input.errors);
  if (!input.ok || errors.length > 0) throw wireError(400, "ValidationError", formatFieldErrors(errors));
  if (resetDue(ctx, ex, "createOrganization", "before")) return dropConnection(ex.req);
  const org = state.store.createOrganization(who.userName, (input.value as CreateOrganizationRequest).name, ctx.now());
  await state.persist();
  if (resetDue(ctx, ex, "createOrganization", "after")) return dropConnection(ex.req);
  return sendCreated(ctx, ex, organizationSpec, organizationResponse(org));
}

async function createDataSource(ctx: PublicContext, ex: Exchange, who: Admitted, orgId: string): Promise<void> {
  const { state } = ctx;
  const input = validate(requestSchema(dataSourceSpec), who.body);
  if (!input.ok) throw wireError(400, "ValidationError", formatFieldErrors(input.errors));
  // Someone else's organization gets the very same answer as a missing one: existence does not leak.
  const org = state.store.organizationOwnedBy(ctx.numericIds.resolve(orgId), who.userName);
  if (!org) throw wireError(404, "NotFound", "Organization not found.");
  if (resetDue(ctx, ex, "createDataSource", "before")) return dropConnection(ex.req);
  const record = state.store.createDataSource(org, input.value as CreateDataSourceRequest, ctx.now(), ctx.trialDays);
  const startSync = ctx.jobs.enqueue(record.fields.id);
  try {
    await state.persist();
    if (resetDue(ctx, ex, "createDataSource", "after")) return dropConnection(ex.req);
    // The answer is serialized now, so it shows PENDING whatever the job does next.
    sendCreated(ctx, ex, dataSourceSpec, dataSourceResponse(record));
  } finally {
    startSync();
  }
}

/**
 * Answers one public API request; failures are thrown as {@link WireError}. The rules of the
 * faults injected into it are pushed onto `faults` (and named in the answer's {@link FAULT_HEADER}).
 */
export async function handlePublic(
  ctx: PublicContext,
  req: IncomingMessage,
  res: ServerResponse,
  match: RouteMatch<PublicRoute>,
  faults: string[],
): Promise<void> {
  const ex: Exchange = { req, res, faults };
  const { route, params } = routeOf(match);
  const who = await admit(ctx, route, ex);
  if (who === undefined) return dropConnection(req);
  return CREATES[kindOfOperation(route)!](ctx, ex, who, params);
}

/** Answers one kind's create, after admission; `params` holds the path's owner ids. */
type CreateHandler = (ctx: PublicContext, ex: Exchange, who: Admitted, params: ReadonlyMap<string, string>) => Promise<void>;

/** What the service does on each kind's create: its behaviour, which the kind's field list cannot state. */
const CREATES: Record<ResourceKind, CreateHandler> = {
  organization: (ctx, ex, who) => createOrganization(ctx, ex, who),
  dataSource: (ctx, ex, who, params) => createDataSource(ctx, ex, who, params.get("orgId") ?? ""),
};

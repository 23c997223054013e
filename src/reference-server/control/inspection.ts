import type { IncomingMessage, ServerResponse } from "node:http";
import { describeValue, formatFieldErrors, validate } from "../../contract/validation";
import { sendData, unmatchedRoute, wireError, type WireError } from "../http/envelope";
import { checkJsonContentType, parseJsonBody, readBody } from "../http/request-body";
import { Router, type RouteMatch } from "../http/router";
import type { ReferenceStore } from "../state/store";
import { crossOriginRefusal } from "./same-origin";
import { parseFaultSettings, type FaultInjector, type FaultSettings, type InjectedFaultCounts } from "./faults";
import type { RequestLog, RequestSummary } from "./request-log";
import { SAVED_STATE_NAME_PATTERN, SAVED_STATE_NAME_RULE, saveStateRequest, type SavedStateController } from "./saved-states";
import {
  dataSourceInspection,
  organizationDetail,
  organizationInspection,
  type DataSourceInspection,
  type OrganizationDetail,
  type OrganizationInspection,
} from "../state/views";

/** Path prefix of the inspection surface, kept apart from the public `/api/` paths. */
export const INSPECTION_PREFIX = "/_reference";

/** The saved states' routes: list and save here, `/{name}` to delete, `/{name}/restore` to restore. */
export const SAVED_STATES_PATH = `${INSPECTION_PREFIX}/saved-states`;

/** The saved states' routes under their earlier name, served as well so that scripts written before the rename keep working. */
export const SAVED_STATES_ALIAS_PATH = `${INSPECTION_PREFIX}/snapshots`;

/** Read access to the server's state for tests and demos. Never returns credentials or keys. */
export interface ReferenceInspector {
  /** All organizations, in creation order. */
  organizations(): OrganizationInspection[];
  /** One organization with its trial and data sources, or undefined. */
  organization(id: string): OrganizationDetail | undefined;
  /** All data sources, in creation order. */
  dataSources(): DataSourceInspection[];
  /** One data source with its sync state and synced tables, or undefined. */
  dataSource(id: string): DataSourceInspection | undefined;
  /** Names of the users holding API keys. */
  users(): string[];
  /** Counts and recent entries of the public API requests received. */
  requests(): RequestSummary;
  /** Number of public API requests received. */
  requestCount(): number;
}

/** Builds the in-process inspector over a store and request log. */
export function createInspector(store: ReferenceStore, requestLog: RequestLog): ReferenceInspector {
  return {
    organizations: () => [...store.organizations.values()].map((org) => organizationInspection(store, org)),
    organization: (id) => {
      const org = store.organizations.get(id);
      return org && organizationDetail(store, org);
    },
    dataSources: () => [...store.dataSources.values()].map((ds) => dataSourceInspection(store, ds)),
    dataSource: (id) => {
      const ds = store.dataSources.get(id);
      return ds && dataSourceInspection(store, ds);
    },
    users: () => store.userNames(),
    requests: () => requestLog.summary(),
    requestCount: () => requestLog.count(),
  };
}

/** Current fault settings and how many faults were injected, as `GET /_reference/faults` returns them. */
export interface FaultsView {
  /** Settings in force, with counters as they stand. */
  settings: FaultSettings;
  /** Faults injected so far. */
  injected: InjectedFaultCounts;
}

/** The fault settings in force and the counts of faults injected, as `GET /_reference/faults` answers them. */
export function faultsView(faults: FaultInjector): FaultsView {
  return { settings: faults.settings(), injected: faults.injected() };
}

/** What the inspection routes act on. */
export interface InspectionContext {
  /** State reader. */
  inspector: ReferenceInspector;
  /** Fault settings to read and replace. */
  faults: FaultInjector;
  /** Clears organizations, data sources, request log, faults and fault counts. */
  reset: () => Promise<void>;
  /** Named saved states to save, list, restore and delete. */
  savedStates: SavedStateController;
  /** Body limit for `POST /_reference/faults`. */
  maxBodyBytes: number;
}

type InspectionRoute =
  | "organizations"
  | "organization"
  | "dataSources"
  | "dataSource"
  | "users"
  | "requests"
  | "faults"
  | "reset"
  | "savedStates"
  | "savedState"
  | "restoreSavedState";

/** Routes of the inspection surface. */
export const inspectionRouter = new Router<InspectionRoute>([
  { id: "organizations", pattern: `${INSPECTION_PREFIX}/organizations`, methods: ["GET"] },
  { id: "organization", pattern: `${INSPECTION_PREFIX}/organizations/{id}`, methods: ["GET"] },
  { id: "dataSources", pattern: `${INSPECTION_PREFIX}/data-sources`, methods: ["GET"] },
  { id: "dataSource", pattern: `${INSPECTION_PREFIX}/data-sources/{id}`, methods: ["GET"] },
  { id: "users", pattern: `${INSPECTION_PREFIX}/users`, methods: ["GET"] },
  { id: "requests", pattern: `${INSPECTION_PREFIX}/requests`, methods: ["GET"] },
  { id: "faults", pattern: `${INSPECTION_PREFIX}/faults`, methods: ["GET", "POST"] },
  { id: "reset", pattern: `${INSPECTION_PREFIX}/reset`, methods: ["POST"] },
  { id: "savedStates", pattern: SAVED_STATES_PATH, methods: ["GET", "POST"] },
  { id: "savedState", pattern: `${SAVED_STATES_PATH}/{name}`, methods: ["DELETE"] },
  { id: "restoreSavedState", pattern: `${SAVED_STATES_PATH}/{name}/restore`, methods: ["POST"] },
  // The same routes under their earlier name, which scripts written before the rename call.
  { id: "savedStates", pattern: SAVED_STATES_ALIAS_PATH, methods: ["GET", "POST"] },
  { id: "savedState", pattern: `${SAVED_STATES_ALIAS_PATH}/{name}`, methods: ["DELETE"] },
  { id: "restoreSavedState", pattern: `${SAVED_STATES_ALIAS_PATH}/{name}/restore`, methods: ["POST"] },
]);

function notFound(what: string): WireError {
  return wireError(404, "NotFound", `${what} not found.`);
}

async function readJson(req: IncomingMessage, maxBodyBytes: number): Promise<unknown> {
  const unsupported = checkJsonContentType(req.headers["content-type"]);
  if (unsupported) throw unsupported;
  return parseJsonBody(await readBody(req, maxBodyBytes));
}

/** The saved state named by the path, checked: 400 for an invalid name, 404 for an unknown one. */
function knownSavedState(savedStates: SavedStateController, name: string): string {
  if (!SAVED_STATE_NAME_PATTERN.test(name)) {
    throw wireError(400, "ValidationError", `name (in the path): ${SAVED_STATE_NAME_RULE}, got ${describeValue(name)}`);
  }
  if (!savedStates.list().some((s) => s.name === name)) {
    throw wireError(404, "NotFound", `Saved state "${name}" not found: save it first with POST ${SAVED_STATES_PATH}.`);
  }
  return name;
}

/** Answers the saved-state routes: list, save, restore, delete. */
async function handleSavedStates(
  ctx: InspectionContext,
  match: Extract<RouteMatch<InspectionRoute>, { kind: "found" }>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const { savedStates } = ctx;
  const name = match.params.get("name") ?? "";
  if (match.route.id === "restoreSavedState") return sendData(res, 200, await savedStates.restore(knownSavedState(savedStates, name)));
  if (match.route.id === "savedState") {
    const known = knownSavedState(savedStates, name);
    const info = savedStates.list().find((s) => s.name === known);
    savedStates.delete(known);
    return sendData(res, 200, info);
  }
  if (req.method === "GET") return sendData(res, 200, savedStates.list());
  const input = validate(saveStateRequest(), await readJson(req, ctx.maxBodyBytes));
  if (!input.ok) throw wireError(400, "ValidationError", formatFieldErrors(input.errors));
  return sendData(res, 201, await savedStates.save(input.value.name));
}

/** Answers one matched inspection request; errors are thrown as {@link WireError}. */
export async function handleInspection(
  ctx: InspectionContext,
  match: Extract<RouteMatch<InspectionRoute>, { kind: "found" }>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const { inspector, faults } = ctx;
  const id = match.params.get("id") ?? "";
  switch (match.route.id) {
    case "organizations":
      return sendData(res, 200, inspector.organizations());
    case "organization": {
      const org = inspector.organization(id);
      if (!org) throw notFound("Organization");
      return sendData(res, 200, org);
    }
    case "dataSources":
      return sendData(res, 200, inspector.dataSources());
    case "dataSource": {
      const ds = inspector.dataSource(id);
      if (!ds) throw notFound("Data source");
      return sendData(res, 200, ds);
    }
    case "users":
      return sendData(res, 200, inspector.users());
    case "requests":
      return sendData(res, 200, inspector.requests());
    case "faults": {
      if (req.method === "POST") {
        const parsed = parseFaultSettings(await readJson(req, ctx.maxBodyBytes));
        if (!parsed.ok) throw wireError(400, "ValidationError", parsed.detail);
        faults.set(parsed.value);
      }
      return sendData(res, 200, faultsView(faults));
    }
    case "reset":
      await ctx.reset();
      return sendData(res, 200, { reset: true });
    case "savedStates":
    case "savedState":
    case "restoreSavedState":
      return handleSavedStates(ctx, match, req, res);
  }
}

/** True when `path` belongs to the inspection surface. */
export function isInspectionPath(path: string): boolean {
  return path === INSPECTION_PREFIX || path.startsWith(`${INSPECTION_PREFIX}/`);
}

/** Routes and answers one inspection request; unknown paths and methods are thrown as 404/405. */
export async function answerInspection(ctx: InspectionContext, method: string, path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const match = inspectionRouter.match(method, path);
  if (match.kind !== "found") throw unmatchedRoute(match, "No inspection endpoint has this path.");
  const refusal = crossOriginRefusal(method, req.headers);
  if (refusal !== undefined) throw wireError(403, "Forbidden", refusal);
  await handleInspection(ctx, match, req, res);
}

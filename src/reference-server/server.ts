import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import {
  ORGANIZATIONS_PATH,
  SSO_JWT_PATH,
  createDataSourceRequest,
  createOrganizationRequest,
  formatFieldErrors,
  validate,
} from "../contract";
import { DEFAULT_KEY_PREFIX, assertKeyPrefix, authenticate, digestApiKey, generateApiKey } from "./auth";
import { ApiError, JSON_CONTENT_TYPE, internalError, sendData, sendError } from "./envelope";
import { FaultInjector, type FaultRoute, type FaultSettings, type InjectedFaultCounts } from "./faults";
import { INSPECTION_PREFIX, createInspector, handleInspection, inspectionRouter, type ReferenceInspector } from "./inspection";
import { ClientGoneError, DEFAULT_MAX_BODY_BYTES, checkJsonContentType, parseJsonBody, readBody } from "./request-body";
import { RequestLog } from "./request-log";
import { Router, type RouteMatch } from "./router";
import { syncSchema as realSyncSchema, type SyncOptions } from "./schema-sync";
import { StateWriter, loadState } from "./state-file";
import { DEFAULT_TRIAL_DAYS, ReferenceStore, USER_NAME_PATTERN } from "./store";
import { DEFAULT_SYNC_CONCURRENCY, SyncJobs } from "./sync-jobs";
import { dataSourceResponse, organizationResponse, type DataSourceInspection } from "./views";

/** Interface listened on unless told otherwise: loopback, so the emulator is never exposed by accident. */
export const DEFAULT_HOST = "127.0.0.1";

/** Options of {@link startReferenceServer}. All optional. */
export interface ReferenceServerOptions {
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** Service prefix of API keys (`<prefix>_key_<32 chars>`); default `analytics`. */
  keyPrefix?: string;
  /** Users to mint one key each for at start; the keys are in {@link ReferenceServer.apiKeys}. */
  bootstrapUsers?: readonly string[];
  /** JSON file to load state from at start and save it to after each change; in-memory only when unset. */
  statePath?: string;
  /** Serve the non-public `/_reference/` inspection routes; off by default. */
  inspection?: boolean;
  /** Faults injected from the start; all off by default. */
  faults?: FaultSettings;
  /** Largest accepted request body in bytes; default 1 MiB. */
  maxBodyBytes?: number;
  /** Length of the trial an organization's first data source starts; default 14 days. */
  trialDays?: number;
  /** Replaces the Postgres schema sync (tests pass a fake). */
  syncSchema?: typeof realSyncSchema;
  /** Timeouts passed to each schema sync. */
  syncOptions?: SyncOptions;
  /** Schema syncs run at once; default 4. */
  syncConcurrency?: number;
  /** Receives one line per request (`METHOD path status ms`) and notices; silent by default. */
  logger?: (line: string) => void;
  /** Receives unexpected errors behind 500 answers, for debugging; the client never sees them. */
  onInternalError?: (error: unknown) => void;
  /** Clock, replaceable in tests. */
  now?: () => Date;
}

/** Fault settings of a running server. */
export interface FaultController {
  /** Replaces all fault settings; throws a RangeError naming every invalid field. */
  set(settings: FaultSettings): void;
  /** Turns every fault off. */
  clear(): void;
  /** Settings in force, with counters as they stand. */
  settings(): FaultSettings;
  /** Faults injected so far, by kind. */
  injected(): InjectedFaultCounts;
}

/** A running reference server. */
export interface ReferenceServer {
  /** Base URL, e.g. `http://127.0.0.1:43123`, without trailing slash. */
  url: string;
  /** Interface listened on. */
  host: string;
  /** Port listened on. */
  port: number;
  /** Keys minted for {@link ReferenceServerOptions.bootstrapUsers}, by user; shown only here. */
  apiKeys: Readonly<Record<string, string>>;
  /** Mints a new key for `userName` (creating the user); the key is returned once and stored as a digest. */
  mintApiKey(userName: string): Promise<string>;
  /** Read access to organizations, data sources and request counts. */
  inspect: ReferenceInspector;
  /** Fault injection at runtime. */
  faults: FaultController;
  /** Resolves with the data source once its sync has left PENDING/SYNCING. */
  waitForSync(dataSourceId: string): Promise<DataSourceInspection>;
  /** Drops organizations, data sources, request log and faults; users and keys stay. */
  reset(): Promise<void>;
  /** Stops listening, drops open connections, stops background syncs and saves state. */
  close(): Promise<void>;
}

type PublicRoute = FaultRoute | "ssoJwt";

/** Routes of the public API. */
export const publicRouter = new Router<PublicRoute>([
  { id: "createOrganization", pattern: ORGANIZATIONS_PATH, methods: ["POST"] },
  { id: "createDataSource", pattern: `${ORGANIZATIONS_PATH}/{orgId}/data-sources`, methods: ["POST"] },
  { id: "ssoJwt", pattern: SSO_JWT_PATH, methods: ["*"] },
]);

/** Anything shaped like an API key, so a key pasted into a URL by mistake never reaches a log line. */
const KEY_LIKE = /[A-Za-z0-9_-]*_key_[A-Za-z0-9]+/g;

function displayPath(path: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = path.replace(KEY_LIKE, "[redacted]").replace(/[\u0000-\u001f\u007f]/g, "?");
  return clean.length > 200 ? `${clean.slice(0, 200)}…` : clean;
}

function checkOptions(options: ReferenceServerOptions): void {
  const positiveInteger = (name: string, value: number | undefined): void => {
    if (value !== undefined && (!Number.isSafeInteger(value) || value <= 0)) throw new RangeError(`${name} must be a positive integer`);
  };
  positiveInteger("maxBodyBytes", options.maxBodyBytes);
  positiveInteger("trialDays", options.trialDays);
  positiveInteger("syncConcurrency", options.syncConcurrency);
  if (options.port !== undefined && (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535)) {
    throw new RangeError("port must be an integer from 0 to 65535");
  }
  assertKeyPrefix(options.keyPrefix ?? DEFAULT_KEY_PREFIX);
  for (const user of options.bootstrapUsers ?? []) assertUserName(user);
}

/** Throws unless `userName` is a valid user name. */
export function assertUserName(userName: string): void {
  if (!USER_NAME_PATTERN.test(userName)) {
    throw new RangeError("user name must be 1-64 letters, digits, '.', '_', '@' or '-', starting with a letter or digit");
  }
}

/**
 * Starts the reference server of the public API. Resolves once it listens; by default on
 * 127.0.0.1 with a free port, state in memory, inspection and faults off, and silent.
 */
export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  checkOptions(options);
  const now = options.now ?? (() => new Date());
  const keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const trialDays = options.trialDays ?? DEFAULT_TRIAL_DAYS;
  const log = options.logger ?? (() => undefined);
  const statePath = options.statePath;

  const store = statePath === undefined ? new ReferenceStore() : await loadState(statePath, now());
  const writer = statePath === undefined ? undefined : new StateWriter(statePath, () => store.snapshot());
  let closed = false;

  /** Saves the state (no-op in memory-only mode or once closing). Rejects if the write failed. */
  const persist = async (): Promise<void> => {
    if (writer === undefined || closed) return;
    await writer.save();
  };
  const persistOrLog = (): Promise<void> =>
    persist().catch((err: unknown) => log(`could not save state: ${(err as NodeJS.ErrnoException).code ?? "write failed"}`));

  const mintApiKey = async (userName: string): Promise<string> => {
    assertUserName(userName);
    if (closed) throw new Error("the reference server is closed");
    const key = generateApiKey(keyPrefix);
    store.addApiKey({ digest: digestApiKey(key), userName, createdAt: now().toISOString() });
    await persist();
    return key;
  };

  const requestLog = new RequestLog();
  const faults = new FaultInjector(options.faults ?? {});
  const jobs = new SyncJobs({
    store,
    syncSchema: options.syncSchema ?? realSyncSchema,
    syncOptions: options.syncOptions ?? {},
    concurrency: options.syncConcurrency ?? DEFAULT_SYNC_CONCURRENCY,
    now,
    persist: writer === undefined ? undefined : persistOrLog,
  });
  const inspector = createInspector(store, requestLog);
  const timers = new Set<NodeJS.Timeout>();
  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const reset = async (): Promise<void> => {
    store.clearResources();
    requestLog.clear();
    faults.clear();
    faults.resetCounts();
    await persist();
  };

  /** Ends the exchange without an answer, as a dropped connection would. */
  const dropConnection = (req: http.IncomingMessage): void => {
    req.socket.destroy();
  };

  const handlePublic = async (req: http.IncomingMessage, res: http.ServerResponse, match: RouteMatch<PublicRoute>): Promise<void> => {
    if (match.kind === "not-found") throw new ApiError(404, "NotFound", "No endpoint of the public API has this path.");
    if (match.kind === "method-not-allowed") {
      const allow = match.allow.join(", ");
      throw new ApiError(405, "MethodNotAllowed", `This endpoint accepts ${allow} only.`, { allow });
    }
    const route = match.route.id;
    if (route === "ssoJwt") {
      throw new ApiError(
        501,
        "NotImplemented",
        "The single sign-on endpoint is not implemented: the public API specification does not show its method, payload or response.",
      );
    }

    const latency = faults.latencyFor(route);
    if (latency > 0) await sleep(latency);
    if (closed) return dropConnection(req);
    const injected = faults.errorFor(route);
    if (injected) throw injected;

    const auth = authenticate(req.headers.authorization, keyPrefix, store.apiKeys);
    if (!auth.ok) throw new ApiError(401, "Unauthorized", auth.detail, { "www-authenticate": 'Bearer realm="api"' });
    const unsupported = checkJsonContentType(req.headers["content-type"]);
    if (unsupported) throw unsupported;
    const body = parseJsonBody(await readBody(req, maxBodyBytes));
    if (closed) return dropConnection(req);

    if (route === "createOrganization") {
      const input = validate(createOrganizationRequest, body);
      if (!input.ok) throw new ApiError(400, "ValidationError", formatFieldErrors(input.errors));
      if (faults.takeResetBeforeCommit(route)) return dropConnection(req);
      const org = store.createOrganization(auth.userName, input.value.name, now());
      // Only awaited with a state file: in memory there is nothing to wait for, not even a microtask.
      if (writer !== undefined) await persist();
      if (faults.takeResetAfterCommit(route)) return dropConnection(req);
      return sendData(res, 201, organizationResponse(org));
    }

    const input = validate(createDataSourceRequest, body);
    if (!input.ok) throw new ApiError(400, "ValidationError", formatFieldErrors(input.errors));
    // Someone else's organization gets the very same answer as a missing one: existence does not leak.
    const org = store.organizationOwnedBy(match.params.get("orgId") ?? "", auth.userName);
    if (!org) throw new ApiError(404, "NotFound", "Organization not found.");
    if (faults.takeResetBeforeCommit(route)) return dropConnection(req);
    const record = store.createDataSource(org, input.value, now(), trialDays);
    const startSync = jobs.enqueue(record.fields.id);
    try {
      if (writer !== undefined) await persist();
      if (faults.takeResetAfterCommit(route)) return dropConnection(req);
      // The answer is serialized now, so it shows PENDING whatever the job does next.
      sendData(res, 201, dataSourceResponse(record));
    } finally {
      startSync();
    }
  };

  const respondToFailure = (req: http.IncomingMessage, res: http.ServerResponse, err: unknown): void => {
    if (err instanceof ClientGoneError) return;
    let apiError: ApiError;
    if (err instanceof ApiError) {
      apiError = err;
    } else {
      // Only the error's class is logged: messages may quote request data.
      log(`internal error while handling ${req.method ?? "?"} request: ${err instanceof Error ? err.name : typeof err}`);
      options.onInternalError?.(err);
      apiError = internalError();
    }
    if (res.headersSent || res.destroyed) {
      req.socket.destroy();
      return;
    }
    sendError(res, apiError);
  };

  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    // Only timed when someone reads the log line.
    const started = options.logger ? performance.now() : 0;
    const receivedAt = now();
    const method = req.method ?? "GET";
    const path = (req.url ?? "/").split("?", 1)[0]!;
    const isInspection = options.inspection === true && (path === INSPECTION_PREFIX || path.startsWith(`${INSPECTION_PREFIX}/`));
    // Matched once: the handler and the request log both use it.
    const publicMatch = isInspection ? undefined : publicRouter.match(method, path);
    if (!isInspection) requestLog.received();
    const handling = isInspection
      ? (async () => {
          const match = inspectionRouter.match(method, path);
          if (match.kind === "not-found") throw new ApiError(404, "NotFound", "No inspection endpoint has this path.");
          if (match.kind === "method-not-allowed") {
            const allow = match.allow.join(", ");
            throw new ApiError(405, "MethodNotAllowed", `This endpoint accepts ${allow} only.`, { allow });
          }
          await handleInspection({ inspector, faults, reset, maxBodyBytes }, match, req, res);
        })()
      : handlePublic(req, res, publicMatch!);
    // Recorded in the microtask right after the answer is written, before any client can read
    // it, so in-process counts are exact by the time a caller sees the response.
    void handling
      .catch((err: unknown) => respondToFailure(req, res, err))
      .then(() => {
        const status = res.writableEnded ? res.statusCode : null;
        // The line is only built when someone reads it.
        if (options.logger) log(`${method} ${displayPath(path)} ${status ?? "-"} ${Math.round(performance.now() - started)}ms`);
        if (publicMatch === undefined) return;
        requestLog.record({ method, route: publicMatch.kind === "not-found" ? null : publicMatch.route.pattern, status, receivedAt });
      })
      .catch(() => req.socket.destroy());
  };

  const server = http.createServer(onRequest);
  server.on("clientError", (err: NodeJS.ErrnoException, socket) => {
    // Unparseable HTTP still gets the JSON envelope when the socket can take it.
    const [status, title, detail] =
      err.code === "HPE_HEADER_OVERFLOW"
        ? [431, "PayloadTooLarge", "The request headers are too large."]
        : [400, "ValidationError", "The request is not valid HTTP."];
    if (socket.writable && err.code !== "ECONNRESET") {
      const body = JSON.stringify({ error: { title, detail } });
      socket.end(
        `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: ${JSON_CONTENT_TYPE}\r\n` +
          `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  });

  const host = options.host ?? DEFAULT_HOST;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: options.port ?? 0, host }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      closed = true;
      jobs.stop();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await stopped;
      if (writer !== undefined) {
        await writer.idle();
        // One last write, so changes whose own save was cut short by closing are kept.
        await writer.save().catch((err: unknown) => log(`could not save state: ${(err as NodeJS.ErrnoException).code ?? "write failed"}`));
      }
    })();
    return closing;
  };

  // Minted only once listening succeeded, so a failed start leaves no stray keys in the state file.
  const apiKeys: Record<string, string> = {};
  try {
    for (const user of new Set(options.bootstrapUsers ?? [])) apiKeys[user] = await mintApiKey(user);
  } catch (err) {
    await close();
    throw err;
  }

  return {
    url,
    host,
    port,
    apiKeys,
    mintApiKey,
    inspect: inspector,
    faults: {
      set: (settings) => faults.set(settings),
      clear: () => faults.clear(),
      settings: () => faults.settings(),
      injected: () => faults.injected(),
    },
    waitForSync: async (dataSourceId) => {
      if (!store.dataSources.has(dataSourceId)) throw new Error(`no data source ${dataSourceId}`);
      await jobs.whenDone(dataSourceId);
      const view = inspector.dataSource(dataSourceId);
      if (view === undefined) throw new Error(`data source ${dataSourceId} was removed by a reset`);
      return view;
    },
    reset,
    close,
  };
}

/**
 * The reference server's composition root: options, and the wiring of state, faults, sync jobs,
 * the public and inspection routes and the HTTP adapter into one running server.
 */
import * as http from "node:http";
import { CONSOLE_PATH, ConsoleFeed, answerConsole, isConsolePath } from "./control/console";
import { NumericIds } from "./control/answer-profiles";
import { FaultDelays, FaultInjector, type FaultSettings, type InjectedFaultCounts } from "./control/faults";
import { answerInspection, createInspector, isInspectionPath, type InspectionContext, type ReferenceInspector } from "./control/inspection";
import { OPENAPI_PATH, answerOpenApi } from "./control/openapi";
import { READY_PATH, answerReady } from "./control/ready";
import { RequestLog } from "./control/request-log";
import { createSavedStates, type SavedStateController } from "./control/saved-states";
import { allowedHosts, type AllowedHosts } from "./http/allowed-hosts";
import { answerClientError, baseUrl, createRequestListener, listen, stopListening } from "./http/http-adapter";
import { DEFAULT_MAX_BODY_BYTES } from "./http/request-body";
import { handlePublic, publicRouter, type PublicContext } from "./public-routes";
import { DEFAULT_KEY_PREFIX, assertKeyPrefix, isApiKeyShaped } from "./state/auth";
import { isoTime } from "./state/iso-time";
import { ServerState, assertUserName } from "./state/server-state";
import { DEFAULT_TRIAL_DAYS } from "./state/store";
import type { DataSourceInspection } from "./state/views";
import { syncSchema as realSyncSchema, type SyncOptions } from "./sync/schema-sync";
import { DEFAULT_SYNC_CONCURRENCY, SyncJobs } from "./sync/sync-jobs";

export { assertUserName } from "./state/server-state";
export { publicRouter } from "./public-routes";

/** Interface listened on unless told otherwise: loopback, so the emulator is never exposed by accident. */
export const DEFAULT_HOST = "127.0.0.1";

/** Options of {@link startReferenceServer}. All optional. */
export interface ReferenceServerOptions {
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  /** Interface to listen on; default 127.0.0.1. When it is a name, requests naming it in `Host` are served. */
  host?: string;
  /**
   * Host names served besides localhost, `*.localhost`, IP addresses and {@link host}, e.g. a
   * container service name; a request whose `Host` is none of them gets 403 (DNS rebinding).
   */
  allowedHosts?: readonly string[];
  /** Service prefix of API keys (`<prefix>_key_<32 chars>`); default `analytics`. */
  keyPrefix?: string;
  /** Users to mint one key each for at start; the keys are in {@link ReferenceServer.apiKeys}. */
  bootstrapUsers?: readonly string[];
  /**
   * A user who gets a key at start: `apiKey` (`<prefix>_key_<32 chars>`) registered for it when
   * given (again on every start: it is stored as its digest, once); otherwise one key minted, in
   * {@link ReferenceServer.apiKeys}, only when the user holds no key yet.
   */
  keyUser?: { userName: string; apiKey?: string };
  /** JSON file to load state from at start and save it to after each change; in-memory only when unset. */
  statePath?: string;
  /** Serve the non-public `/_reference/` inspection routes and the console page; off by default. */
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
  /** Address of the console page (`<url>/_reference/console`) when inspection is on; undefined otherwise. */
  consoleUrl: string | undefined;
  /** Interface listened on. */
  host: string;
  /** Port listened on. */
  port: number;
  /** Keys minted for {@link ReferenceServerOptions.bootstrapUsers} and {@link ReferenceServerOptions.keyUser}, by user; shown only here. */
  apiKeys: Readonly<Record<string, string>>;
  /** Mints a new key for `userName` (creating the user); the key is returned once and stored as a digest. */
  mintApiKey(userName: string): Promise<string>;
  /** Read access to organizations, data sources and request counts. */
  inspect: ReferenceInspector;
  /** Fault injection at runtime. */
  faults: FaultController;
  /** Organizations and data sources saved under a name, restored in one step. */
  savedStates: SavedStateController;
  /** @deprecated The earlier name of {@link savedStates}, the same object: use `savedStates`. */
  snapshots: SavedStateController;
  /** Resolves with the data source once its sync has left PENDING/SYNCING. */
  waitForSync(dataSourceId: string): Promise<DataSourceInspection>;
  /** Drops organizations, data sources, request log and faults; users, keys and saved states stay. */
  reset(): Promise<void>;
  /** Stops listening, drops open connections, stops background syncs and saves state. */
  close(): Promise<void>;
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
  if (options.keyUser !== undefined) {
    assertUserName(options.keyUser.userName);
    const { apiKey } = options.keyUser;
    if (apiKey !== undefined && !isApiKeyShaped(apiKey, options.keyPrefix ?? DEFAULT_KEY_PREFIX)) {
      throw new RangeError(`keyUser.apiKey must be ${options.keyPrefix ?? DEFAULT_KEY_PREFIX}_key_ followed by 32 letters and digits (the value is not shown)`);
    }
  }
}

/** The parts a running server is made of. */
interface Parts {
  state: ServerState;
  requestLog: RequestLog;
  faults: FaultInjector;
  delays: FaultDelays;
  jobs: SyncJobs;
  numericIds: NumericIds;
  inspector: ReferenceInspector;
  savedStates: SavedStateController;
  consoleFeed: ConsoleFeed;
}

async function assemble(options: ReferenceServerOptions, now: () => Date, log: (line: string) => void): Promise<Parts> {
  const state = await ServerState.open(options.statePath, now(), log);
  const requestLog = new RequestLog();
  const jobs = new SyncJobs({
    store: state.store,
    syncSchema: options.syncSchema ?? realSyncSchema,
    syncOptions: options.syncOptions ?? {},
    concurrency: options.syncConcurrency ?? DEFAULT_SYNC_CONCURRENCY,
    now,
    persist: state.persistent ? state.persistOrLog : undefined,
  });
  const faults = new FaultInjector(options.faults ?? {});
  const inspector = createInspector(state.store, requestLog);
  const savedStates = createSavedStates({ state, jobs, now });
  const consoleFeed = new ConsoleFeed({ inspector, faults, savedStates });
  return { state, requestLog, faults, delays: new FaultDelays(), jobs, numericIds: new NumericIds(), inspector, savedStates, consoleFeed };
}

/** Drops organizations, data sources, request log and faults; users, keys and saved states stay. */
async function resetParts(parts: Parts): Promise<void> {
  parts.state.store.clearResources();
  parts.requestLog.clear();
  parts.faults.clear();
  parts.faults.resetCounts();
  await parts.state.persist();
}

/** The HTTP server over the public routes and (when enabled) the inspection routes. */
function createHttpServer(parts: Parts, options: ReferenceServerOptions, hosts: AllowedHosts, now: () => Date): http.Server {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const publicContext: PublicContext = {
    ...parts,
    keyPrefix: options.keyPrefix ?? DEFAULT_KEY_PREFIX,
    maxBodyBytes,
    trialDays: options.trialDays ?? DEFAULT_TRIAL_DAYS,
    now,
  };
  const inspectionContext: InspectionContext = { ...parts, reset: () => resetParts(parts), maxBodyBytes };
  const answerNonPublic = (req: http.IncomingMessage, res: http.ServerResponse, method: string, path: string): Promise<void> => {
    if (path === OPENAPI_PATH) return answerOpenApi(res, method);
    if (path === READY_PATH) return answerReady(res, method);
    if (isConsolePath(path)) return answerConsole({ ...parts, feed: parts.consoleFeed }, method, path, req, res);
    return answerInspection(inspectionContext, method, path, req, res);
  };
  const listener = createRequestListener(
    {
      isInspection: (path) => path === OPENAPI_PATH || path === READY_PATH || (options.inspection === true && isInspectionPath(path)),
      matchPublic: (method, path) => publicRouter.match(method, path),
      handlePublic: (req, res, match, faults) => handlePublic(publicContext, req, res, match, faults),
      handleInspection: answerNonPublic,
    },
    { requestLog: parts.requestLog, logger: options.logger, onInternalError: options.onInternalError, timestamp: () => isoTime(now()), allowedHosts: hosts },
  );
  const server = http.createServer(listener);
  server.on("clientError", answerClientError);
  return server;
}

/** Resolves with the data source once its sync has left PENDING/SYNCING. */
async function waitForSync(parts: Parts, dataSourceId: string): Promise<DataSourceInspection> {
  if (!parts.state.store.dataSources.has(dataSourceId)) throw new Error(`no data source ${dataSourceId}`);
  // Restoring a saved state may queue the sync again while this waits: wait for the latest one.
  for (let done = parts.jobs.whenDone(dataSourceId); done !== undefined; done = parts.jobs.whenDone(dataSourceId)) await done;
  const view = parts.inspector.dataSource(dataSourceId);
  if (view === undefined) throw new Error(`data source ${dataSourceId} was removed by a reset or by restoring a saved state`);
  return view;
}

/** The close of a running server: idempotent; stops syncs, delays and connections, then saves once more. */
function closer(parts: Parts, server: http.Server): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= (async () => {
      parts.state.markClosed();
      parts.consoleFeed.stop();
      parts.jobs.stop();
      parts.delays.cancelAll();
      await stopListening(server);
      await parts.state.finalSave();
    })();
    return closing;
  };
}

/** Registers the key user's given key, or mints one into `apiKeys` when the user holds none yet. */
async function keyUserKey(
  state: ServerState,
  keyUser: NonNullable<ReferenceServerOptions["keyUser"]>,
  apiKeys: Record<string, string>,
  mint: (userName: string) => Promise<string>,
  at: Date,
): Promise<void> {
  const { userName, apiKey } = keyUser;
  if (apiKey !== undefined) await state.registerApiKey(userName, apiKey, at);
  else if (!state.hasApiKey(userName)) apiKeys[userName] = await mint(userName);
}

/** Fault settings of a running server, as its public handle exposes them. */
function faultController(faults: FaultInjector): FaultController {
  return {
    set: (settings) => faults.set(settings),
    clear: () => faults.clear(),
    settings: () => faults.settings(),
    injected: () => faults.injected(),
  };
}

/**
 * Starts the reference server of the public API. Resolves once it listens; by default on
 * 127.0.0.1 with a free port, state in memory, inspection and faults off, and silent.
 */
export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  checkOptions(options);
  const now = options.now ?? (() => new Date());
  const log = options.logger ?? (() => undefined);
  const keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
  const host = options.host ?? DEFAULT_HOST;
  const hosts = allowedHosts(host, options.allowedHosts ?? [], "allowedHosts");
  const parts = await assemble(options, now, log);
  const server = createHttpServer(parts, options, hosts, now);
  const port = await listen(server, host, options.port ?? 0);
  const close = closer(parts, server);
  const mintApiKey = (userName: string): Promise<string> => parts.state.mintApiKey(userName, keyPrefix, now());

  // Minted only once listening succeeded, so a failed start leaves no stray keys in the state file.
  const apiKeys: Record<string, string> = {};
  try {
    for (const user of new Set(options.bootstrapUsers ?? [])) apiKeys[user] = await mintApiKey(user);
    if (options.keyUser !== undefined) await keyUserKey(parts.state, options.keyUser, apiKeys, mintApiKey, now());
  } catch (err) {
    await close();
    throw err;
  }

  const url = baseUrl(host, port);
  return {
    url,
    consoleUrl: options.inspection === true ? `${url}${CONSOLE_PATH}` : undefined,
    host,
    port,
    apiKeys,
    mintApiKey,
    inspect: parts.inspector,
    faults: faultController(parts.faults),
    savedStates: parts.savedStates,
    snapshots: parts.savedStates,
    waitForSync: (dataSourceId) => waitForSync(parts, dataSourceId),
    reset: () => resetParts(parts),
    close,
  };
}

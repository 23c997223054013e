/**
 * The console: one live page over the inspection surface, served at `/_reference/console` when
 * inspection is on. The page's own files (`console-page/`: HTML, CSS and a small script) are
 * served as they are, with nothing fetched from anywhere else; the page reads
 * `/_reference/console/state` (the same JSON as the events) and follows
 * `/_reference/console/events` (server-sent events, a new state whenever it changed), and acts
 * through the inspection routes `/_reference/faults` and `/_reference/saved-states`.
 */
import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import * as path from "node:path";
import { SECRET_DATA_SOURCE_FIELDS, type SecretDataSourceField } from "../../contract/fields";
import { allKindSpecs, createOperationId } from "../../kinds";
import { sendData, unmatchedRoute } from "../http/envelope";
import { Router } from "../http/router";
import type { DataSourceInspection, OrganizationDetail } from "../state/views";
import type { FaultRoute } from "./faults";
import { INSPECTION_PREFIX, faultsView, type FaultsView, type InspectionContext } from "./inspection";
import type { RequestLogEntry } from "./request-log";
import type { SavedStateInfo } from "./saved-states";

/** Where the console page is served (with inspection on). */
export const CONSOLE_PATH = `${INSPECTION_PREFIX}/console`;

/** Requests the console's state carries, newest first. */
export const CONSOLE_RECENT_REQUESTS = 100;

/** How often the events stream looks for a change while a page follows it, in milliseconds. */
export const CONSOLE_TICK_MS = 250;

/** A create route the fault switches act on. */
export interface ConsoleFaultRoute {
  /** The route's name in the fault settings, e.g. `createDataSource`. */
  id: FaultRoute;
  /** Its method. */
  method: string;
  /** Its path pattern. */
  pattern: string;
}

/** Everything the page shows, in one JSON document. Never a credential, a key or a key digest. */
export interface ConsoleState {
  /** Organizations in creation order, each with its data sources in full (secret fields by name only). */
  organizations: OrganizationDetail[];
  /** Names of a data source's secret fields; the page shows each one as set or not set. */
  secretFields: readonly SecretDataSourceField[];
  /** The routes faults can target. */
  faultRoutes: ConsoleFaultRoute[];
  /** Fault settings in force and faults injected, as `GET /_reference/faults` answers them. */
  faults: FaultsView;
  /** Saved states, by name. */
  savedStates: SavedStateInfo[];
  /** @deprecated The earlier name of {@link savedStates}, the same list: read `savedStates`. */
  snapshots: SavedStateInfo[];
  /** API requests received in all, and the most recent ones, newest first. */
  requests: { total: number; recent: RequestLogEntry[] };
}

/** What the console reads. */
export type ConsoleSource = Pick<InspectionContext, "inspector" | "faults" | "savedStates">;

const faultRoutes: ConsoleFaultRoute[] = allKindSpecs().map((spec) => ({
  id: createOperationId(spec) as FaultRoute,
  method: spec.endpoint.method,
  pattern: spec.endpoint.pattern,
}));

/** The console's state as it stands. */
export function consoleState(source: ConsoleSource): ConsoleState {
  const { inspector } = source;
  const requests = inspector.requests();
  const dataSourcesOf = new Map<string, DataSourceInspection[]>();
  for (const ds of inspector.dataSources()) {
    const list = dataSourcesOf.get(ds.organizationId);
    if (list) list.push(ds);
    else dataSourcesOf.set(ds.organizationId, [ds]);
  }
  const savedStates = source.savedStates.list();
  return {
    organizations: inspector.organizations().map((org) => ({ ...org, dataSources: dataSourcesOf.get(org.id) ?? [] })),
    secretFields: SECRET_DATA_SOURCE_FIELDS,
    faultRoutes,
    faults: faultsView(source.faults),
    savedStates,
    snapshots: savedStates,
    requests: { total: requests.total, recent: requests.recent.slice(-CONSOLE_RECENT_REQUESTS).reverse() },
  };
}

/** The `Content-Security-Policy` of the page: its own files and its own server, nothing else. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The page's files, by route, with their content types. */
const ASSETS = {
  page: { file: "console.html", type: "text/html; charset=utf-8" },
  style: { file: "console.css", type: "text/css; charset=utf-8" },
  script: { file: "console.js", type: "text/javascript; charset=utf-8" },
} as const;

type ConsoleRoute = keyof typeof ASSETS | "state" | "events";

/** Routes of the console. */
export const consoleRouter = new Router<ConsoleRoute>([
  { id: "page", pattern: CONSOLE_PATH, methods: ["GET"] },
  { id: "style", pattern: `${CONSOLE_PATH}/console.css`, methods: ["GET"] },
  { id: "script", pattern: `${CONSOLE_PATH}/console.js`, methods: ["GET"] },
  { id: "state", pattern: `${CONSOLE_PATH}/state`, methods: ["GET"] },
  { id: "events", pattern: `${CONSOLE_PATH}/events`, methods: ["GET"] },
]);

/** Folder of the page's files: beside this module, in the sources and in the build alike. */
export const CONSOLE_PAGE_DIR = path.join(__dirname, "console-page");

/** The page's files, each of {@link CONSOLE_PAGE_DIR}. */
export const CONSOLE_PAGE_FILES: readonly string[] = Object.values(ASSETS).map((asset) => asset.file);

/**
 * The key of a file of the page among the single file's assets (tools/build-reference-server-binary.js
 * puts each of {@link CONSOLE_PAGE_FILES} in its blob under it).
 */
export function consoleAssetKey(file: string): string {
  return `console-page/${file}`;
}

/** A file of the page: the single file's asset in a single executable, else the file in {@link CONSOLE_PAGE_DIR}. */
async function readPageFile(file: string): Promise<Buffer> {
  const sea = require("node:sea") as typeof import("node:sea");
  if (sea.isSea()) return Buffer.from(sea.getAsset(consoleAssetKey(file)));
  return readFile(path.join(CONSOLE_PAGE_DIR, file));
}

const assetCache = new Map<string, Promise<Buffer>>();

/** A file of the page, read once. */
function assetBytes(file: string): Promise<Buffer> {
  let bytes = assetCache.get(file);
  if (bytes === undefined) {
    bytes = readPageFile(file);
    bytes.catch(() => assetCache.delete(file));
    assetCache.set(file, bytes);
  }
  return bytes;
}

/** Headers of every file of the page: never cached, never framed, never sniffed. */
function pageHeaders(type: string, length: number): Record<string, string | number> {
  return {
    "content-type": type,
    "content-length": length,
    "cache-control": "no-store",
    "content-security-policy": CONSOLE_CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
  };
}

async function sendAsset(res: ServerResponse, route: keyof typeof ASSETS): Promise<void> {
  const { file, type } = ASSETS[route];
  const bytes = await assetBytes(file);
  res.writeHead(200, pageHeaders(type, bytes.length));
  res.end(bytes);
}

/** The events stream of every page following the console: a new state whenever it changed. */
export class ConsoleFeed {
  private readonly clients = new Set<ServerResponse>();
  private timer: NodeJS.Timeout | undefined;
  private last = "";

  constructor(
    private readonly source: ConsoleSource,
    private readonly tickMs: number = CONSOLE_TICK_MS,
  ) {}

  /** Follows `res` until its connection ends (or {@link stop}); resolves then. */
  follow(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    });
    // A page that lost its connection asks again after a second.
    res.write("retry: 1000\n\n");
    const current = JSON.stringify(consoleState(this.source));
    if (current !== this.last) this.broadcast(current);
    res.write(event(current));
    this.clients.add(res);
    this.timer ??= setInterval(() => this.tick(), this.tickMs).unref();
    return new Promise((resolve) => {
      const leave = (): void => {
        this.clients.delete(res);
        if (this.clients.size === 0) this.pause();
        resolve();
      };
      res.once("close", leave);
      req.once("error", leave);
    });
  }

  /** Number of pages following. */
  followers(): number {
    return this.clients.size;
  }

  /** Ends every stream and stops looking for changes. */
  stop(): void {
    for (const res of this.clients) res.end();
    this.clients.clear();
    this.pause();
  }

  private tick(): void {
    const current = JSON.stringify(consoleState(this.source));
    if (current !== this.last) this.broadcast(current);
  }

  private broadcast(current: string): void {
    this.last = current;
    for (const res of this.clients) res.write(event(current));
  }

  private pause(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.last = "";
  }
}

/** One server-sent event carrying `json` (one line: JSON.stringify never leaves a newline in it). */
function event(json: string): string {
  return `data: ${json}\n\n`;
}

/** True when `path` is the console's. */
export function isConsolePath(path: string): boolean {
  return path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`);
}

/** What the console's routes act on. */
export interface ConsoleContext extends ConsoleSource {
  /** The events stream. */
  feed: ConsoleFeed;
}

/** Routes and answers one request of the console; unknown paths and methods are thrown as 404/405. */
export async function answerConsole(ctx: ConsoleContext, method: string, path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const match = consoleRouter.match(method, path);
  if (match.kind !== "found") throw unmatchedRoute(match, "No console file has this path.");
  const route = match.route.id;
  if (route === "state") return sendData(res, 200, consoleState(ctx));
  if (route === "events") return ctx.feed.follow(req, res);
  return sendAsset(res, route);
}

/**
 * Harness of the reference server's HTTP tests: servers on 127.0.0.1 port 0 with a fake sync,
 * one checked request helper, and audits that no credential or key reaches a log line.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, expect } from "vitest";
import { ORGANIZATIONS_PATH, SECRET_DATA_SOURCE_FIELDS, dataSourcesPath } from "../../src/contract";
import { startReferenceServer, type ReferenceServer, type ReferenceServerOptions } from "../../src/reference-server/server";
import type { SyncOptions, SyncOutcome, SyncTarget } from "../../src/reference-server/sync/schema-sync";
import { expectConformsToOpenApi, isDocumented } from "./openapi-conformance";

export const MARK = "S3CRET";

export const secretValues = Object.fromEntries(SECRET_DATA_SOURCE_FIELDS.map((field) => [field, `${MARK}-${field}-value`])) as Record<
  (typeof SECRET_DATA_SOURCE_FIELDS)[number],
  string
>;

export const validDataSource = {
  type: "direct",
  dialect: "POSTGRES",
  displayName: "Warehouse",
  host: "db.example.com",
  port: 5432,
  databaseName: "analytics",
  username: "reader",
  password: secretValues.password,
};

export const syncedTables = [{ schema: "public", name: "orders", columns: [{ name: "id", type: "integer", nullable: false }] }];

/** A sync whose outcome the test decides, call by call. */
export function controlledSync() {
  const calls: Array<{ target: SyncTarget; options: SyncOptions | undefined; finish: (outcome: SyncOutcome) => void }> = [];
  const waiters: Array<() => void> = [];
  const syncSchema = (target: SyncTarget, options?: SyncOptions): Promise<SyncOutcome> =>
    new Promise((resolve) => {
      calls.push({ target, options, finish: resolve });
      waiters.splice(0).forEach((w) => w());
    });
  const nextCall = async (count: number): Promise<void> => {
    while (calls.length < count) await new Promise<void>((r) => waiters.push(r));
  };
  return { calls, syncSchema, nextCall };
}

export interface Started {
  server: ReferenceServer;
  logs: string[];
  syncTargets: SyncTarget[];
}

/** Servers started by the current test; closed (after a log audit) when it ends. */
export const running: Started[] = [];
const temps: string[] = [];

export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reference-server-"));
  temps.push(dir);
  return dir;
}

/** Starts a server with a fake sync that succeeds, capturing log lines and sync targets. */
export async function start(options: ReferenceServerOptions = {}): Promise<Started> {
  const logs: string[] = [];
  const syncTargets: SyncTarget[] = [];
  const server = await startReferenceServer({
    bootstrapUsers: ["alice", "bob"],
    logger: (line) => logs.push(line),
    syncSchema: async (target): Promise<SyncOutcome> => {
      syncTargets.push(target);
      return { ok: true, tables: syncedTables };
    },
    ...options,
  });
  const started = { server, logs, syncTargets };
  running.push(started);
  return started;
}

/** Every log line is `METHOD path status ms` (or a notice) and holds no credential and no key. */
export function auditLogs(started: Started, extraKeys: readonly string[] = []): void {
  const keys = [...Object.values(started.server.apiKeys), ...extraKeys];
  for (const line of started.logs) {
    expect(line).not.toContain(MARK);
    for (const key of keys) expect(line).not.toContain(key);
    expect(line).not.toMatch(/authorization|bearer/i);
  }
}

/** Closes this file's servers after each test, auditing their logs, and removes temp dirs. */
export function closeServersAfterEach(): void {
  afterEach(async () => {
    for (const started of running.splice(0)) {
      auditLogs(started);
      await started.server.close();
    }
    for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
}

export interface CallOptions {
  /** API key sent as `Authorization: Bearer <key>`. */
  key?: string;
  /** Body, JSON-encoded. */
  body?: unknown;
  /** Body sent as is. */
  raw?: string | Uint8Array;
  /** Content-Type for a body; null sends none. Default application/json. */
  contentType?: string | null;
  /** Further headers. */
  headers?: Record<string, string>;
}

export interface Reply {
  status: number;
  headers: Headers;
  // Parsed body; tests read fields freely.
  json: any;
  text: string;
}

/**
 * One request; checks the rules that hold for every answer: JSON content type, either exactly
 * `{ data }` (success) or exactly `{ error: { title, detail } }` (failure), and for the public
 * API, conformance to the server's OpenAPI document.
 */
export async function call(server: ReferenceServer, method: string, pathname: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  let body: Uint8Array | undefined;
  if (options.raw !== undefined) body = typeof options.raw === "string" ? Buffer.from(options.raw) : options.raw;
  else if (options.body !== undefined) body = Buffer.from(JSON.stringify(options.body));
  if (body !== undefined && options.contentType !== null) headers["content-type"] = options.contentType ?? "application/json";
  const res = await fetch(`${server.url}${pathname}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await res.text();
  expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
  if (method === "HEAD") return { status: res.status, headers: res.headers, json: undefined, text };
  const json = JSON.parse(text);
  if (res.status < 400) {
    expect(Object.keys(json)).toEqual(["data"]);
  } else {
    expect(Object.keys(json)).toEqual(["error"]);
    expect(Object.keys(json.error)).toEqual(["title", "detail"]);
    expect(typeof json.error.title).toBe("string");
    expect(json.error.detail).toEqual(expect.any(String));
    expect(json.error.detail.length).toBeGreaterThan(0);
  }
  if (isDocumented(pathname)) expectConformsToOpenApi(method, pathname, res.status, res.headers, json);
  return { status: res.status, headers: res.headers, json, text };
}

export async function createOrg(server: ReferenceServer, key: string, name = "Acme"): Promise<{ id: string; slug: string }> {
  const reply = await call(server, "POST", ORGANIZATIONS_PATH, { key, body: { name } });
  expect(reply.status).toBe(201);
  return reply.json.data;
}

export async function createDataSource(server: ReferenceServer, key: string, orgId: string, body: object = validDataSource): Promise<Reply> {
  return call(server, "POST", dataSourcesPath(orgId), { key, body });
}

export function expectError(reply: Reply, status: number, title: string): void {
  expect({ status: reply.status, title: reply.json?.error?.title }).toEqual({ status, title });
}

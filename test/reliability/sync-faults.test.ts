/**
 * Reliability item 9 (and the item-10 audit of the server's state file): schema-sync faults seen
 * through the reference server: Postgres down, a wrong password, a server that stalls, and the
 * connection cut mid-sync. Each ends FAILED with a message free of credentials, no partial schema
 * is kept, and the API answers while a sync is stuck.
 */
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ORGANIZATIONS_PATH, dataSourcesPath } from "../../src/contract";
import { startReferenceServer, type DataSourceInspection, type ReferenceServer } from "../../src/reference-server";
import { startTcpServer, unusedPort, type TcpTestServer } from "../support/tcp-server";
import { connectTestPostgres, type TestPostgres } from "../support/test-postgres";
import { TIMEOUT_MS, plaintextHits, recordFigures, scale } from "./support/campaign";

const PASSWORD = "sync-fault-password-4c1d9e";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A TCP server on 127.0.0.1, closed after the test. */
async function tcpServer(onSocket: (socket: net.Socket) => void): Promise<TcpTestServer> {
  const handle = await startTcpServer(onSocket);
  cleanups.push(() => handle.close());
  return handle;
}

function backendMessage(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, "latin1");
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

/** A fake Postgres that asks for a cleartext password and rejects it, quoting it back. */
function wrongPasswordServer() {
  return tcpServer((socket) => {
    let stage = 0;
    let buffer = Buffer.alloc(0);
    socket.on("data", (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (stage === 0 && buffer.length >= 8 && buffer.length >= buffer.readInt32BE(0)) {
        buffer = buffer.subarray(buffer.readInt32BE(0));
        stage = 1;
        const ask = Buffer.alloc(4);
        ask.writeInt32BE(3);
        socket.write(backendMessage("R", ask));
      }
      if (stage === 1 && buffer.length >= 5 && buffer.length >= 1 + buffer.readInt32BE(1)) {
        const sent = buffer
          .subarray(5, 1 + buffer.readInt32BE(1))
          .toString("utf8")
          .replace(/\0$/, "");
        const fields = ["SFATAL", "VFATAL", "C28P01", `Mpassword authentication failed for user "reader" (got "${sent}")`].map((f) => Buffer.from(`${f}\0`));
        socket.end(backendMessage("E", Buffer.concat([...fields, Buffer.from([0])])));
        stage = 2;
      }
    });
  });
}

/** A proxy to a real Postgres that cuts both sockets after forwarding `cutAfterBytes` bytes of the server's answers. */
async function cuttingProxy(db: TestPostgres, cutAfterBytes: number) {
  const counted = { bytes: 0 };
  const server = await tcpServer((client) => {
    const upstream = net.connect(db.port, db.host);
    let forwarded = 0;
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.on("data", (chunk) => upstream.write(chunk));
    upstream.on("data", (chunk: Buffer) => {
      const room = cutAfterBytes - forwarded;
      if (chunk.length < room) {
        forwarded += chunk.length;
        counted.bytes += chunk.length;
        client.write(chunk);
        return;
      }
      client.write(chunk.subarray(0, room), () => {
        client.destroy();
        upstream.destroy();
      });
      forwarded = cutAfterBytes;
    });
  });
  return { ...server, forwarded: () => counted.bytes };
}

interface Setup {
  server: ReferenceServer;
  orgId: string;
  key: string;
  statePath: string;
}

async function setup(): Promise<Setup> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reliability-sync-"));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const statePath = path.join(dir, "state.json");
  const server = await startReferenceServer({ bootstrapUsers: ["alice"], statePath, syncOptions: { connectTimeoutMs: 30_000, queryTimeoutMs: 30_000 } });
  cleanups.push(() => server.close());
  const key = server.apiKeys.alice!;
  const res = await api(server, key, ORGANIZATIONS_PATH, { name: "Sync Org" });
  expect(res.status).toBe(201);
  return { server, key, statePath, orgId: res.data.id };
}

async function api(server: ReferenceServer, key: string, route: string, body: unknown): Promise<{ status: number; data: { id: string } }> {
  const res = await fetch(`${server.url}${route}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { data: { id: string } };
  return { status: res.status, data: json.data };
}

async function createDataSource(s: Setup, port: number, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await api(s.server, s.key, dataSourcesPath(s.orgId), {
    type: "direct",
    dialect: "POSTGRES",
    displayName: "Faulty warehouse",
    host: "127.0.0.1",
    port,
    databaseName: "postgres",
    username: "postgres",
    password: PASSWORD,
    sslEnabled: false,
    ...overrides,
  });
  expect(res.status).toBe(201);
  return res.data.id;
}

/** FAILED, UNHEALTHY, no tables, a message matching `message` and free of the password. */
function expectFailed(ds: DataSourceInspection, message: RegExp): void {
  expect(ds).toMatchObject({ lastSyncStatus: "FAILED", lastHealthStatus: "UNHEALTHY", hasCompletedFirstSync: false, tables: null });
  expect(ds.syncErrorMessage).toMatch(message);
  expect(ds.syncErrorMessage).not.toContain(PASSWORD);
}

const figures = { faults: 0, operations: 0, hits: 0 };

describe("item 9: schema-sync faults", () => {
  let db: TestPostgres;
  beforeAll(async () => {
    db = await connectTestPostgres();
  });
  afterAll(async () => {
    await db.close();
    recordFigures({
      item: 9,
      path: "service",
      scenario: "schema sync: Postgres down, wrong password, stalled, connection cut mid-sync",
      faultsInjected: figures.faults,
      operations: figures.operations,
      duplicates: 0,
      lostObjects: 0,
      crashes: 0,
      serverErrors: 0,
      plaintextHits: figures.hits,
    });
  });

  it("Postgres down and a wrong password: FAILED without the password", async () => {
    const s = await setup();
    const down = await createDataSource(s, await unusedPort());
    expectFailed(await s.server.waitForSync(down), /could not connect to 127\.0\.0\.1:\d+: connection refused/);
    const fake = await wrongPasswordServer();
    const wrong = await createDataSource(s, fake.port, { username: "reader" });
    expectFailed(await s.server.waitForSync(wrong), /^password authentication failed for user "reader"$/);
    await s.server.close();
    const hits = plaintextHits([{ where: "state file", text: fs.readFileSync(s.statePath, "utf8") }], [PASSWORD, s.key]);
    expect(hits).toEqual([]);
    figures.faults += 2;
    figures.operations += 3;
  });

  it("a stalled Postgres: the API keeps answering while the sync hangs, then the sync fails without a schema", async () => {
    const s = await setup();
    const stalled = await tcpServer(() => undefined);
    const id = await createDataSource(s, stalled.port);
    // The job is stuck in SYNCING; the API still creates objects meanwhile.
    let view = s.server.inspect.dataSource(id);
    for (let i = 0; i < 500 && view?.lastSyncStatus !== "SYNCING"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      view = s.server.inspect.dataSource(id);
    }
    expect(view?.lastSyncStatus).toBe("SYNCING");
    const rounds = scale(5, 50);
    for (let i = 0; i < rounds; i++) expect((await api(s.server, s.key, ORGANIZATIONS_PATH, { name: `While stalled ${i}` })).status).toBe(201);
    expect(s.server.inspect.dataSource(id)?.lastSyncStatus).toBe("SYNCING");
    // The database goes away mid-connect.
    stalled.dropAll();
    expectFailed(await s.server.waitForSync(id), /connection to 127\.0\.0\.1:\d+ was closed unexpectedly while connecting/);
    figures.faults += 1;
    figures.operations += rounds + 2;
  });

  it("a Postgres slower than the sync timeout: FAILED with a timeout message", async () => {
    const server = await startReferenceServer({ bootstrapUsers: ["alice"], syncOptions: { connectTimeoutMs: 300, queryTimeoutMs: 300 } });
    cleanups.push(() => server.close());
    const key = server.apiKeys.alice!;
    const org = await api(server, key, ORGANIZATIONS_PATH, { name: "Slow" });
    const stalled = await tcpServer(() => undefined);
    const s: Setup = { server, key, orgId: org.data.id, statePath: "" };
    const id = await createDataSource(s, stalled.port);
    expectFailed(await server.waitForSync(id), /connection to 127\.0\.0\.1:\d+ timed out after 300 ms/);
    figures.faults += 1;
    figures.operations += 2;
  });

  it(
    "the connection cut at any point of a real sync: FAILED, never a partial schema",
    async () => {
      const s = await setup();
      // A catalog with a table in it, so a partial schema (fewer tables) can be told from a whole one
      // (the embedded warehouse starts empty).
      await db.admin("CREATE TABLE IF NOT EXISTS sync_cut_fixture (id integer PRIMARY KEY, label text)");
      // The whole answer of a clean sync, through an uncut proxy, sizes the cut points.
      const full = await cuttingProxy(db, Number.MAX_SAFE_INTEGER);
      const okId = await createDataSource(s, full.port, { username: db.username, databaseName: db.databaseName, password: db.password ?? PASSWORD });
      const ok = await s.server.waitForSync(okId);
      expect(ok.lastSyncStatus).toBe("SUCCEEDED");
      const wholeSchema = ok.tables?.length ?? 0;
      expect(wholeSchema).toBeGreaterThan(0);
      const cuts = scale(8, 60);
      let failed = 0;
      for (let i = 0; i < cuts; i++) {
        // Spread over the startup exchange and the catalog answers of a clean sync.
        const at = 1 + Math.floor(((i + 0.5) / cuts) * 0.9 * full.forwarded());
        const proxy = await cuttingProxy(db, at);
        const id = await createDataSource(s, proxy.port, { username: db.username, databaseName: db.databaseName, password: db.password ?? PASSWORD });
        const ds = await s.server.waitForSync(id);
        if (ds.lastSyncStatus === "SUCCEEDED") {
          // A cut after the last answer the sync needed: still the whole schema, never a part of it
          // (more only if other suites grew the shared catalog meanwhile).
          expect(ds.tables?.length ?? 0).toBeGreaterThanOrEqual(wholeSchema);
        } else {
          expectFailed(ds, /closed unexpectedly (while connecting|during the schema sync)/);
          figures.faults++;
          failed++;
        }
        await proxy.close();
        figures.operations++;
      }
      expect(full.forwarded()).toBeGreaterThan(100);
      expect(failed).toBeGreaterThan(cuts / 2);
      await db.admin("DROP TABLE IF EXISTS sync_cut_fixture");
      await s.server.close();
      const hits = plaintextHits([{ where: "state file", text: fs.readFileSync(s.statePath, "utf8") }], [PASSWORD, s.key]);
      figures.hits += hits.length;
      expect(hits).toEqual([]);
    },
    TIMEOUT_MS,
  );
});

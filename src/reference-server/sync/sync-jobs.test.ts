import { describe, expect, it } from "vitest";
import type { CreateDataSourceRequest } from "../../contract";
import { ReferenceStore } from "../state/store";
import type { SyncOptions, SyncOutcome, SyncTarget } from "./schema-sync";
import { SSH_UNSUPPORTED_MESSAGE, SyncJobs, UNEXPECTED_SYNC_FAILURE_MESSAGE } from "./sync-jobs";
import {
  closeServersAfterEach,
  controlledSync,
  createDataSource,
  createOrg,
  start,
  syncedTables,
  validDataSource,
} from "../../../test/support/reference-server-harness";

closeServersAfterEach();

const base: CreateDataSourceRequest = {
  type: "direct",
  dialect: "POSTGRES",
  displayName: "db",
  host: "db.internal",
  port: 6543,
  databaseName: "sales",
  username: "reader",
  password: "S3CRET-pw",
  sslEnabled: false,
  sshEnabled: false,
};

function setup(syncSchema: (target: SyncTarget, options?: SyncOptions) => Promise<SyncOutcome>, concurrency = 4) {
  let tick = 0;
  const store = new ReferenceStore();
  const org = store.createOrganization("alice", "Acme", new Date(0));
  let saves = 0;
  const jobs = new SyncJobs({
    store,
    syncSchema,
    syncOptions: { connectTimeoutMs: 1234 },
    concurrency,
    now: () => new Date(Date.UTC(2025, 0, 1, 0, 0, ++tick)),
    persist: async () => {
      saves++;
    },
  });
  const create = (input: Partial<CreateDataSourceRequest> = {}) => {
    const record = store.createDataSource(org, { ...base, ...input }, new Date(0), 14);
    jobs.enqueue(record.fields.id)();
    return record;
  };
  return { store, jobs, create, saves: () => saves };
}

describe("SyncJobs", () => {
  it("goes PENDING → SYNCING → SUCCEEDED, passing the connection fields and password, and stores the tables", async () => {
    const sync = controlledSync();
    const { jobs, create, saves } = setup(sync.syncSchema);
    const record = create();
    expect(record.fields.lastSyncStatus).toBe("PENDING");
    await sync.nextCall(1);
    expect(record.fields).toMatchObject({ lastSyncStatus: "SYNCING", lastSyncAttemptAt: "2025-01-01T00:00:01.000Z", lastHealthCheckAttemptAt: null });
    expect(sync.calls[0]!.target).toEqual({
      host: "db.internal",
      port: 6543,
      databaseName: "sales",
      username: "reader",
      password: "S3CRET-pw",
      sslEnabled: false,
    });
    expect(sync.calls[0]!.options).toEqual({ connectTimeoutMs: 1234 });
    const tables = [{ schema: "public", name: "orders", columns: [{ name: "id", type: "integer", nullable: false }] }];
    sync.calls[0]!.finish({ ok: true, tables });
    await jobs.whenDone(record.fields.id);
    expect(record.fields).toMatchObject({
      lastSyncStatus: "SUCCEEDED",
      lastSuccessfulSyncAt: "2025-01-01T00:00:02.000Z",
      hasCompletedFirstSync: true,
      syncErrorMessage: null,
      lastHealthStatus: "HEALTHY",
      lastHealthyAt: "2025-01-01T00:00:02.000Z",
      lastHealthCheckAttemptAt: "2025-01-01T00:00:02.000Z",
      updatedAt: "2025-01-01T00:00:02.000Z",
    });
    expect(record.tables).toEqual(tables);
    expect(saves()).toBe(2);
  });

  it("records FAILED and UNHEALTHY with the message, credentials redacted", async () => {
    const { jobs, create } = setup(async () => ({ ok: false, message: "login as reader with S3CRET-pw failed; key S3CRET-ssh" }));
    const record = create({ sshPrivateKey: "S3CRET-ssh" });
    await jobs.whenDone(record.fields.id);
    expect(record.fields).toMatchObject({ lastSyncStatus: "FAILED", lastHealthStatus: "UNHEALTHY", hasCompletedFirstSync: false, lastHealthyAt: null });
    expect(record.fields.syncErrorMessage).toBe("login as reader with [redacted] failed; key [redacted]");
    expect(record.tables).toBeNull();
  });

  it("turns a thrown error into a generic failure that quotes nothing", async () => {
    const { jobs, create } = setup(async () => {
      throw new Error("boom S3CRET-pw");
    });
    const record = create();
    await jobs.whenDone(record.fields.id);
    expect(record.fields.syncErrorMessage).toBe(UNEXPECTED_SYNC_FAILURE_MESSAGE);
  });

  it("fails SSH-tunnelled data sources without trying to connect", async () => {
    let called = false;
    const { jobs, create } = setup(async () => {
      called = true;
      return { ok: true, tables: [] };
    });
    const record = create({ sshEnabled: true, sshHost: "bastion" });
    await jobs.whenDone(record.fields.id);
    expect(called).toBe(false);
    expect(record.fields).toMatchObject({ lastSyncStatus: "FAILED", syncErrorMessage: SSH_UNSUPPORTED_MESSAGE });
  });

  it("runs at most `concurrency` syncs at once", async () => {
    const sync = controlledSync();
    const { jobs, create } = setup(sync.syncSchema, 2);
    const records = [create(), create(), create()];
    await sync.nextCall(2);
    await new Promise((r) => setImmediate(r));
    expect(sync.calls).toHaveLength(2);
    expect(records[2]!.fields.lastSyncStatus).toBe("PENDING");
    sync.calls[0]!.finish({ ok: true, tables: [] });
    await sync.nextCall(3);
    for (const call of sync.calls) call.finish({ ok: true, tables: [] });
    await Promise.all(records.map((r) => jobs.whenDone(r.fields.id)));
    expect(records.map((r) => r.fields.lastSyncStatus)).toEqual(["SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]);
    expect(jobs.active()).toBe(0);
  });

  it("stop() rejects waiters, never starts queued syncs and discards running ones", async () => {
    const sync = controlledSync();
    const { jobs, create } = setup(sync.syncSchema, 1);
    const running = create();
    const queued = create();
    await sync.nextCall(1);
    const waiting = jobs.whenDone(running.fields.id);
    jobs.stop();
    await expect(waiting).rejects.toThrow(/closed/);
    sync.calls[0]!.finish({ ok: true, tables: [] });
    await new Promise((r) => setImmediate(r));
    expect(running.fields.lastSyncStatus).toBe("SYNCING");
    expect(queued.fields.lastSyncStatus).toBe("PENDING");
    expect(sync.calls).toHaveLength(1);
  });

  it("without a state file: syncs still finish; waiters share one promise, which is gone once done", async () => {
    const store = new ReferenceStore();
    const org = store.createOrganization("alice", "Acme", new Date(0));
    const jobs = new SyncJobs({
      store,
      syncSchema: async () => ({ ok: true, tables: [] }),
      syncOptions: {},
      concurrency: 2,
      now: () => new Date(0),
      persist: undefined,
    });
    expect(jobs.whenDone("ds_unknown")).toBeUndefined();
    const records = Array.from({ length: 5 }, () => store.createDataSource(org, base, new Date(0), 14));
    const starts = records.map((r) => jobs.enqueue(r.fields.id));
    const first = jobs.whenDone(records[0]!.fields.id);
    expect(jobs.whenDone(records[0]!.fields.id)).toBe(first);
    for (const start of starts) start();
    await Promise.all(records.map((r) => jobs.whenDone(r.fields.id)));
    expect(records.map((r) => r.fields.lastSyncStatus)).toEqual(Array(5).fill("SUCCEEDED"));
    expect(jobs.whenDone(records[0]!.fields.id)).toBeUndefined();
    expect(jobs.active()).toBe(0);
  });

  it("binds a job to its record: once replaced, a queued job never syncs and a running one's result is dropped", async () => {
    const sync = controlledSync();
    const { store, jobs, create } = setup(sync.syncSchema, 1);
    const running = create();
    const queued = create();
    await sync.nextCall(1);
    const waiting = jobs.whenDone(running.fields.id);
    store.replaceResources(store.captureResources());
    sync.calls[0]!.finish({ ok: false, message: "stale result" });
    await waiting;
    await jobs.whenDone(queued.fields.id);
    expect(sync.calls).toHaveLength(1);
    expect(store.dataSources.get(running.fields.id)!.fields).toMatchObject({ lastSyncStatus: "SYNCING", syncErrorMessage: null });
    expect(store.dataSources.get(queued.fields.id)!.fields.lastSyncStatus).toBe("PENDING");
    expect(jobs.active()).toBe(0);
  });

  it("a job queued again for the same id becomes the one waiters see; the superseded one still settles", async () => {
    const sync = controlledSync();
    const { store, jobs, create } = setup(sync.syncSchema, 1);
    const record = create();
    await sync.nextCall(1);
    const first = jobs.whenDone(record.fields.id)!;
    store.replaceResources(store.captureResources());
    jobs.enqueue(record.fields.id)();
    const second = jobs.whenDone(record.fields.id)!;
    expect(second).not.toBe(first);
    sync.calls[0]!.finish({ ok: false, message: "stale result" });
    await first;
    expect(jobs.whenDone(record.fields.id)).toBe(second);
    await sync.nextCall(2);
    sync.calls[1]!.finish({ ok: true, tables: [] });
    await second;
    expect(store.dataSources.get(record.fields.id)!.fields).toMatchObject({ lastSyncStatus: "SUCCEEDED", syncErrorMessage: null });
    expect(jobs.whenDone(record.fields.id)).toBeUndefined();
  });

  it("drops the result of a data source removed meanwhile", async () => {
    const sync = controlledSync();
    const { store, jobs, create } = setup(sync.syncSchema);
    const record = create();
    await sync.nextCall(1);
    store.clearResources();
    sync.calls[0]!.finish({ ok: true, tables: [] });
    await jobs.whenDone(record.fields.id);
    expect(record.fields.lastSyncStatus).toBe("SYNCING");
  });
});

describe("sync jobs behind the server", () => {
  it("answers PENDING, then runs the sync in the background to SUCCEEDED with tables", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const targets: SyncTarget[] = [];
    const { server } = await start({
      syncSchema: async (target) => {
        targets.push(target);
        await gate;
        return { ok: true, tables: syncedTables };
      },
    });
    const key = server.apiKeys.alice!;
    const org = await createOrg(server, key);
    const reply = await createDataSource(server, key, org.id, { ...validDataSource, sslEnabled: false });
    expect(reply.json.data.lastSyncStatus).toBe("PENDING");
    const id = reply.json.data.id as string;
    while (targets.length === 0) await new Promise((r) => setImmediate(r));
    expect(targets[0]).toEqual({
      host: "db.example.com",
      port: 5432,
      databaseName: "analytics",
      username: "reader",
      password: validDataSource.password,
      sslEnabled: false,
    });
    expect(server.inspect.dataSource(id)).toMatchObject({ lastSyncStatus: "SYNCING", lastSyncAttemptAt: expect.any(String) });
    release();
    const done = await server.waitForSync(id);
    expect(done).toMatchObject({
      lastSyncStatus: "SUCCEEDED",
      hasCompletedFirstSync: true,
      lastHealthStatus: "HEALTHY",
      lastSuccessfulSyncAt: expect.any(String),
      lastHealthyAt: expect.any(String),
      lastHealthCheckAttemptAt: expect.any(String),
      tables: syncedTables,
      credentialsAvailable: true,
    });
  });

  it("records a failed sync as FAILED and UNHEALTHY", async () => {
    const { server } = await start({ syncSchema: async () => ({ ok: false, message: "could not connect to db.example.com:5432: connection refused" }) });
    const key = server.apiKeys.alice!;
    const org = await createOrg(server, key);
    const reply = await createDataSource(server, key, org.id);
    expect(await server.waitForSync(reply.json.data.id)).toMatchObject({
      lastSyncStatus: "FAILED",
      lastHealthStatus: "UNHEALTHY",
      syncErrorMessage: "could not connect to db.example.com:5432: connection refused",
      hasCompletedFirstSync: false,
      tables: null,
    });
  });
});

/** Saved states: save, restore, list and delete, in-process and over HTTP on 127.0.0.1 port 0, and their earlier names. */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { ORGANIZATIONS_PATH } from "../../contract";
import type { ReferenceServer } from "../server";
import {
  MARK,
  call,
  closeServersAfterEach,
  controlledSync,
  createDataSource,
  createOrg,
  expectError,
  start,
  syncedTables,
  tempDir,
  validDataSource,
} from "../../../test/support/reference-server-harness";

closeServersAfterEach();

const SAVED_STATES = "/_reference/saved-states";

/** Everything inspection shows of organizations and data sources. */
function stateOf(server: ReferenceServer): unknown {
  return { organizations: server.inspect.organizations(), dataSources: server.inspect.dataSources() };
}

/** An organization with one synced data source. */
async function seed(server: ReferenceServer, name = "Acme"): Promise<{ orgId: string; dsId: string }> {
  const key = server.apiKeys.alice!;
  const org = await createOrg(server, key, name);
  const ds = await createDataSource(server, key, org.id);
  await server.waitForSync(ds.json.data.id);
  return { orgId: org.id, dsId: ds.json.data.id };
}

describe("saved states over HTTP", () => {
  it("save, create more, restore: inspection shows exactly the saved state", async () => {
    const { server } = await start({ inspection: true });
    const key = server.apiKeys.alice!;
    await seed(server);
    const saved = stateOf(server);

    const created = await call(server, "POST", SAVED_STATES, { body: { name: "base" } });
    expect(created.status).toBe(201);
    expect(created.json.data).toEqual({ name: "base", savedAt: expect.any(String), organizations: 1, dataSources: 1 });
    expect(new Date(created.json.data.savedAt).toISOString()).toBe(created.json.data.savedAt);

    const extra = await seed(server, "Other");
    await createDataSource(server, key, extra.orgId);
    expect(server.inspect.organizations()).toHaveLength(2);

    const restored = await call(server, "POST", `${SAVED_STATES}/base/restore`);
    expect(restored.status).toBe(200);
    expect(restored.json.data).toEqual(created.json.data);
    expect(stateOf(server)).toEqual(saved);
    const orgs = await call(server, "GET", "/_reference/organizations");
    expect(orgs.json.data).toEqual(server.inspect.organizations());
    const ds = await call(server, "GET", "/_reference/data-sources");
    expect(ds.json.data).toEqual([expect.objectContaining({ lastSyncStatus: "SUCCEEDED", tables: syncedTables, credentialsAvailable: true })]);
  });

  it("lists saved states by name, overwrites a name on save, deletes with 200 then 404", async () => {
    const { server } = await start({ inspection: true });
    await call(server, "POST", SAVED_STATES, { body: { name: "zeta" } });
    await seed(server);
    await call(server, "POST", SAVED_STATES, { body: { name: "alpha" } });
    await createOrg(server, server.apiKeys.alice!, "Second");
    const overwritten = await call(server, "POST", SAVED_STATES, { body: { name: "zeta" } });
    expect(overwritten.json.data).toMatchObject({ name: "zeta", organizations: 2, dataSources: 1 });

    const list = await call(server, "GET", SAVED_STATES);
    expect(list.json.data.map((s: { name: string; organizations: number }) => [s.name, s.organizations])).toEqual([
      ["alpha", 1],
      ["zeta", 2],
    ]);
    expect(list.json.data).toEqual(server.savedStates.list());

    const deleted = await call(server, "DELETE", `${SAVED_STATES}/alpha`);
    expect(deleted.status).toBe(200);
    expect(deleted.json.data).toMatchObject({ name: "alpha", organizations: 1 });
    expectError(await call(server, "DELETE", `${SAVED_STATES}/alpha`), 404, "NotFound");
    expect(server.savedStates.list().map((s) => s.name)).toEqual(["zeta"]);
  });

  it("answers 404 naming an unknown saved state, and changes nothing", async () => {
    const { server } = await start({ inspection: true });
    await seed(server);
    const before = stateOf(server);
    const reply = await call(server, "POST", `${SAVED_STATES}/nope/restore`);
    expectError(reply, 404, "NotFound");
    expect(reply.json.error.detail).toBe('Saved state "nope" not found: save it first with POST /_reference/saved-states.');
    expect(stateOf(server)).toEqual(before);
    await expect(server.savedStates.restore("nope")).rejects.toThrow(/no saved state named "nope"/);
    expect(server.savedStates.delete("nope")).toBe(false);
  });

  it("answers 400 ValidationError naming the field for invalid names and bodies", async () => {
    const { server } = await start({ inspection: true });
    const cases: Array<[string, string, object | undefined, RegExp]> = [
      ["POST", SAVED_STATES, { name: "" }, /^name: must be 1-64 letters/],
      ["POST", SAVED_STATES, { name: "has space" }, /^name: must be 1-64 letters.*got "has space"/],
      ["POST", SAVED_STATES, { name: "x".repeat(65) }, /^name: must be 1-64/],
      ["POST", SAVED_STATES, { name: ".hidden" }, /^name: must be .*starting with a letter or digit/],
      ["POST", SAVED_STATES, {}, /^name: is required/],
      ["POST", SAVED_STATES, { name: "ok", extra: 1 }, /extra: is not a field of this request/],
      ["POST", `${SAVED_STATES}/bad%20name/restore`, undefined, /^name \(in the path\): must be 1-64 letters.*got "bad name"/],
      ["DELETE", `${SAVED_STATES}/bad%2Fname`, undefined, /^name \(in the path\): must be/],
    ];
    for (const [method, pathname, body, detail] of cases) {
      const reply = await call(server, method, pathname, body === undefined ? {} : { body });
      expectError(reply, 400, "ValidationError");
      expect(reply.json.error.detail).toMatch(detail);
    }
    expect(server.savedStates.list()).toEqual([]);
    await expect(server.savedStates.save("has space")).rejects.toThrow(RangeError);
  });

  it("is served only with inspection on", async () => {
    const { server } = await start();
    expectError(await call(server, "GET", SAVED_STATES), 404, "NotFound");
    expect((await server.savedStates.save("in-process")).name).toBe("in-process");
  });
});

describe("saved state semantics", () => {
  it("keeps credentials in memory: a data source restored mid-sync syncs again with its password", async () => {
    const sync = controlledSync();
    const { server } = await start({ syncSchema: sync.syncSchema });
    const key = server.apiKeys.alice!;
    const org = await createOrg(server, key);
    const id = (await createDataSource(server, key, org.id)).json.data.id as string;
    await sync.nextCall(1);
    const info = await server.savedStates.save("mid-sync");
    expect(info).toMatchObject({ organizations: 1, dataSources: 1 });
    sync.calls[0]!.finish({ ok: true, tables: [] });
    expect((await server.waitForSync(id)).lastSyncStatus).toBe("SUCCEEDED");

    await server.savedStates.restore("mid-sync");
    expect(server.inspect.dataSource(id)).toMatchObject({ lastSyncStatus: "PENDING", credentialsAvailable: true });
    const waiting = server.waitForSync(id);
    await sync.nextCall(2);
    expect(sync.calls[1]!.target.password).toBe(validDataSource.password);
    sync.calls[1]!.finish({ ok: true, tables: syncedTables });
    expect(await waiting).toMatchObject({ lastSyncStatus: "SUCCEEDED", tables: syncedTables });
  });

  it("drops the result of a sync whose data source a restore replaced or removed", async () => {
    const sync = controlledSync();
    const { server } = await start({ syncSchema: sync.syncSchema, syncConcurrency: 1 });
    const key = server.apiKeys.alice!;
    const org = await createOrg(server, key);
    await server.savedStates.save("empty-org");
    const running = (await createDataSource(server, key, org.id)).json.data.id as string;
    const queued = (await createDataSource(server, key, org.id)).json.data.id as string;
    await sync.nextCall(1);
    await server.savedStates.save("both");

    // Replaced: both come back PENDING with a fresh sync; the old running result and the old queued job are void.
    await server.savedStates.restore("both");
    sync.calls[0]!.finish({ ok: false, message: "stale result" });
    await sync.nextCall(2);
    expect(server.inspect.dataSource(running)).toMatchObject({ lastSyncStatus: "SYNCING", syncErrorMessage: null });

    // Removed: the restore takes both away while the fresh sync runs; its result lands nowhere.
    const waiting = server.waitForSync(running);
    await server.savedStates.restore("empty-org");
    sync.calls[1]!.finish({ ok: true, tables: syncedTables });
    await expect(waiting).rejects.toThrow(/removed by a reset or by restoring a saved state/);
    await new Promise((r) => setImmediate(r));
    expect(sync.calls.map((c) => c.target.host)).toHaveLength(2);
    expect(server.inspect.dataSources()).toEqual([]);
    expect(server.inspect.organization(org.id)?.dataSourceIds).toEqual([]);
    expect(server.inspect.dataSource(queued)).toBeUndefined();
  });

  it("is a deep copy: later changes never alter it, and restoring twice gives the same state", async () => {
    const { server } = await start();
    const key = server.apiKeys.alice!;
    const org = await createOrg(server, key, "Acme");
    await server.savedStates.save("before-data-source");
    const saved = stateOf(server);

    // Adding a data source changes the organization in place (its trial starts).
    await seed(server, "Acme");
    const ds = await createDataSource(server, key, org.id);
    await server.waitForSync(ds.json.data.id);
    expect(server.inspect.organization(org.id)?.trial).not.toBeNull();

    await server.savedStates.restore("before-data-source");
    expect(stateOf(server)).toEqual(saved);
    expect(server.inspect.organization(org.id)).toMatchObject({ trial: null, dataSourceIds: [] });
    // The slug set is rebuilt: a new "Acme" is acme-2, as it was right after the save.
    expect((await createOrg(server, key, "Acme")).slug).toBe("acme-2");
    await createDataSource(server, key, org.id);

    await server.savedStates.restore("before-data-source");
    expect(stateOf(server)).toEqual(saved);
  });

  it("rolls back neither users and keys nor the request log and faults; reset keeps saved states", async () => {
    const { server } = await start({ inspection: true });
    await seed(server);
    await server.savedStates.save("base");
    const carolKey = await server.mintApiKey("carol");
    server.faults.set({ routes: { createDataSource: { failNext: 3 } } });
    const requests = server.inspect.requests();

    await server.savedStates.restore("base");
    expect(server.inspect.users()).toEqual(["alice", "bob", "carol"]);
    expect(server.faults.settings()).toEqual({ routes: { createDataSource: { failNext: 3 } } });
    expect(server.inspect.requests()).toEqual(requests);
    expect((await createOrg(server, carolKey, "Carol's")).slug).toBe("carol-s");

    await server.reset();
    expect(server.savedStates.list().map((s) => s.name)).toEqual(["base"]);
    await server.savedStates.restore("base");
    expect(server.inspect.organizations().map((o) => o.name)).toEqual(["Acme"]);
  });

  it("refuses to save or restore once the server is closed", async () => {
    const { server } = await start();
    await server.savedStates.save("base");
    await server.close();
    await expect(server.savedStates.restore("base")).rejects.toThrow(/closed/);
    await expect(server.savedStates.save("later")).rejects.toThrow(/closed/);
  });
});

describe("restore is atomic", () => {
  it("applies in one step: concurrent creates land wholly before it (and are undone) or after it (and are kept)", async () => {
    const { server } = await start();
    const key = server.apiKeys.alice!;
    await seed(server, "Base");
    await server.savedStates.save("base");
    const saved = stateOf(server);
    const savedIds = server.inspect.organizations().map((o) => o.id);

    const create = (i: number) => call(server, "POST", ORGANIZATIONS_PATH, { key, body: { name: `Org ${i}` } });
    const early = Array.from({ length: 40 }, (_, i) => create(i));
    while (server.inspect.organizations().length < 6) await new Promise((r) => setImmediate(r));
    const committedBefore = server.inspect.organizations().map((o) => o.id);
    const restoring = server.savedStates.restore("base");
    // Applied synchronously: the very next look already shows the saved state, whole.
    expect(stateOf(server)).toEqual(saved);
    const late = Array.from({ length: 10 }, (_, i) => create(100 + i));
    await restoring;

    const replies = await Promise.all([...early, ...late]);
    expect(replies.map((r) => r.status)).toEqual(Array(50).fill(201));
    const answered = replies.map((r) => r.json.data.id as string);
    const kept = answered.filter((id) => !committedBefore.includes(id));
    const after = server.inspect.organizations().map((o) => o.id);
    expect(after.slice(0, savedIds.length)).toEqual(savedIds);
    expect([...after.slice(savedIds.length)].sort()).toEqual([...kept].sort());
    for (const reply of replies.slice(40)) expect(after).toContain(reply.json.data.id);
    expect(committedBefore.length).toBeGreaterThan(savedIds.length);
    for (const id of committedBefore.filter((id) => !savedIds.includes(id))) expect(after).not.toContain(id);
  });

  it("over HTTP: never a mix of the old state and the saved one", async () => {
    const { server } = await start({ inspection: true });
    const key = server.apiKeys.alice!;
    await seed(server, "Base");
    await call(server, "POST", SAVED_STATES, { body: { name: "base" } });
    const saved = server.inspect.organizations();
    const before = await Promise.all(Array.from({ length: 10 }, (_, i) => createOrg(server, key, `Before ${i}`)));

    const during = Array.from({ length: 30 }, (_, i) => call(server, "POST", ORGANIZATIONS_PATH, { key, body: { name: `During ${i}` } }));
    const restored = await call(server, "POST", `${SAVED_STATES}/base/restore`);
    const after = await Promise.all(Array.from({ length: 5 }, (_, i) => createOrg(server, key, `After ${i}`)));
    const duringIds = (await Promise.all(during)).map((r) => r.json.data.id as string);

    expect(restored.status).toBe(200);
    const ids = server.inspect.organizations().map((o) => o.id);
    expect(server.inspect.organizations().slice(0, saved.length)).toEqual(saved);
    for (const org of before) expect(ids).not.toContain(org.id);
    for (const org of after) expect(ids).toContain(org.id);
    const allowed = new Set([...saved.map((o) => o.id), ...duringIds, ...after.map((o) => o.id)]);
    for (const id of ids) expect(allowed.has(id)).toBe(true);
  });
});

describe("restore with a state file", () => {
  it("answers once the restored state is on disk; a restart loads it; saved states and credentials are never written", async () => {
    const statePath = path.join(tempDir(), "state.json");
    const first = await start({ statePath, inspection: true });
    await seed(first.server, "Kept");
    await call(first.server, "POST", SAVED_STATES, { body: { name: "kept-only" } });
    const saved = stateOf(first.server);
    await seed(first.server, "Dropped");

    const restored = await call(first.server, "POST", `${SAVED_STATES}/kept-only/restore`);
    expect(restored.status).toBe(200);
    const onDisk = fs.readFileSync(statePath, "utf8");
    expect(JSON.parse(onDisk).organizations.map((o: { name: string }) => o.name)).toEqual(["Kept"]);
    expect(onDisk).not.toContain(MARK);
    expect(onDisk).not.toContain("kept-only");
    await first.server.close();

    const second = await start({ statePath, bootstrapUsers: [] });
    expect(second.server.inspect.organizations().map((o) => o.name)).toEqual(["Kept"]);
    const reloaded = stateOf(second.server) as { dataSources: Array<{ credentialsAvailable: boolean }> };
    expect(reloaded).toEqual({
      ...(saved as object),
      dataSources: (saved as typeof reloaded).dataSources.map((ds) => ({ ...ds, credentialsAvailable: false })),
    });
    expect(second.server.savedStates.list()).toEqual([]);
  });
});

describe("the earlier names, kept for scripts written before saved states had theirs", () => {
  const EARLIER = "/_reference/snapshots";

  it("serves every route under /_reference/snapshots as well, on the same saved states", async () => {
    const { server } = await start({ inspection: true });
    await seed(server);
    const saved = stateOf(server);
    const created = await call(server, "POST", EARLIER, { body: { name: "base" } });
    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({ name: "base", organizations: 1, dataSources: 1 });
    expect((await call(server, "GET", SAVED_STATES)).json.data).toEqual([created.json.data]);
    expect((await call(server, "GET", EARLIER)).json.data).toEqual([created.json.data]);

    await seed(server, "Other");
    const restored = await call(server, "POST", `${EARLIER}/base/restore`);
    expect(restored.status).toBe(200);
    expect(stateOf(server)).toEqual(saved);
    expectError(await call(server, "POST", `${EARLIER}/nope/restore`), 404, "NotFound");
    expectError(await call(server, "POST", EARLIER, { body: { name: "has space" } }), 400, "ValidationError");

    expect((await call(server, "DELETE", `${EARLIER}/base`)).status).toBe(200);
    expect(server.savedStates.list()).toEqual([]);
  });

  it("keeps server.snapshots as the same object as server.savedStates", async () => {
    const { server } = await start();
    expect(server.snapshots).toBe(server.savedStates);
    await server.snapshots.save("base");
    expect(server.savedStates.list().map((s) => s.name)).toEqual(["base"]);
  });
});

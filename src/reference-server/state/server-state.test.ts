/** The server's state across restarts, over real HTTP on 127.0.0.1: state file, keys, interrupted syncs. */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SECRET_DATA_SOURCE_FIELDS } from "../../contract";
import { startReferenceServer } from "../server";
import type { SyncOutcome } from "../sync/schema-sync";
import { digestApiKey } from "./auth";
import {
  MARK,
  auditLogs,
  closeServersAfterEach,
  createDataSource,
  createOrg,
  expectError,
  secretValues,
  start,
  syncedTables,
  tempDir,
  validDataSource,
} from "../../../test/support/reference-server-harness";

closeServersAfterEach();

describe("persistence", () => {
  it("survives a restart with the same state file; the file holds key digests, never keys or credentials", async () => {
    const statePath = path.join(tempDir(), "state.json");
    const first = await start({ statePath, bootstrapUsers: ["alice", "bob"] });
    const aliceKey = first.server.apiKeys.alice!;
    const bobKey = first.server.apiKeys.bob!;
    const carolKey = await first.server.mintApiKey("carol");
    const org = await createOrg(first.server, aliceKey, "Acme");
    const ds = await createDataSource(first.server, aliceKey, org.id, { ...validDataSource, ...secretValues });
    await first.server.waitForSync(ds.json.data.id);
    await first.server.close();

    const text = fs.readFileSync(statePath, "utf8");
    for (const key of [aliceKey, bobKey, carolKey]) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(key.slice("analytics_key_".length));
      expect(text).toContain(digestApiKey(key));
    }
    expect(text).not.toContain(MARK);
    expect(fs.readdirSync(path.dirname(statePath))).toEqual(["state.json"]);

    const second = await start({ statePath, bootstrapUsers: [], inspection: true });
    const { server } = second;
    expect(server.apiKeys).toEqual({});
    expect(server.inspect.users()).toEqual(["alice", "bob", "carol"]);
    const restored = server.inspect.dataSource(ds.json.data.id);
    expect(restored).toMatchObject({
      lastSyncStatus: "SUCCEEDED",
      tables: syncedTables,
      credentialsAvailable: false,
      providedSecretFields: [...SECRET_DATA_SOURCE_FIELDS],
    });
    expect(server.inspect.organization(org.id)?.trial).not.toBeNull();
    // Old keys work; ownership and slugs carry over.
    expect((await createDataSource(server, aliceKey, org.id)).status).toBe(201);
    expectError(await createDataSource(server, bobKey, org.id), 404, "NotFound");
    expect((await createOrg(server, carolKey, "Acme")).slug).toBe("acme-2");
    auditLogs(second, [aliceKey, bobKey, carolKey]);
  });

  it("marks a sync cut short by a restart as FAILED", async () => {
    const statePath = path.join(tempDir(), "state.json");
    const first = await start({ statePath, syncSchema: () => new Promise<SyncOutcome>(() => undefined) });
    const key = first.server.apiKeys.alice!;
    const org = await createOrg(first.server, key);
    const ds = await createDataSource(first.server, key, org.id);
    await first.server.close();
    const second = await start({ statePath, bootstrapUsers: [] });
    expect(second.server.inspect.dataSource(ds.json.data.id)).toMatchObject({
      lastSyncStatus: "FAILED",
      syncErrorMessage: expect.stringMatching(/interrupted/),
    });
    expect((await second.server.waitForSync(ds.json.data.id)).lastSyncStatus).toBe("FAILED");
  });

  it("refuses to start on a corrupt state file rather than overwrite it", async () => {
    const statePath = path.join(tempDir(), "state.json");
    fs.writeFileSync(statePath, "{ not json");
    await expect(startReferenceServer({ statePath })).rejects.toThrow(/not valid JSON/);
    expect(fs.readFileSync(statePath, "utf8")).toBe("{ not json");
  });
});

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { digestApiKey, generateApiKey } from "./auth";
import { StateWriter, loadState, serializeState, writeFileAtomic } from "./state-file";
import { INTERRUPTED_SYNC_MESSAGE, ReferenceStore, StateError } from "./store";

const temps: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reference-state-"));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const now = new Date("2025-03-01T12:00:00.000Z");

function storeWithData(): ReferenceStore {
  const store = new ReferenceStore();
  store.addApiKey({ digest: digestApiKey(generateApiKey("analytics")), userName: "alice", createdAt: now.toISOString() });
  const org = store.createOrganization("alice", "Acme", now);
  store.createDataSource(org, { type: "direct", dialect: "POSTGRES", displayName: "db", password: "pw-secret-1", sslEnabled: true, sshEnabled: false }, now, 14);
  return store;
}

describe("writeFileAtomic", () => {
  it("replaces the file whole, leaves no temp file and keeps it private to its owner", async () => {
    const dir = tempDir();
    const file = path.join(dir, "state.json");
    await writeFileAtomic(file, "one");
    await writeFileAtomic(file, "two");
    expect(fs.readFileSync(file, "utf8")).toBe("two");
    expect(fs.readdirSync(dir)).toEqual(["state.json"]);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it("fails without touching the old file when the directory is gone", async () => {
    const dir = tempDir();
    await expect(writeFileAtomic(path.join(dir, "missing", "state.json"), "x")).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("loadState", () => {
  it("starts empty when the file does not exist", async () => {
    const store = await loadState(path.join(tempDir(), "none.json"), now);
    expect(store.organizations.size).toBe(0);
    expect(store.apiKeys.size).toBe(0);
  });

  it("round-trips a snapshot, without credentials, and marks interrupted syncs FAILED", async () => {
    const file = path.join(tempDir(), "state.json");
    const original = storeWithData();
    fs.writeFileSync(file, serializeState(original.snapshot()));
    expect(fs.readFileSync(file, "utf8")).not.toContain("pw-secret-1");

    const later = new Date("2025-03-02T00:00:00.000Z");
    const loaded = await loadState(file, later);
    expect([...loaded.organizations.values()]).toEqual([...original.organizations.values()]);
    const [ds] = [...loaded.dataSources.values()];
    expect(ds?.fields.lastSyncStatus).toBe("FAILED");
    expect(ds?.fields.syncErrorMessage).toBe(INTERRUPTED_SYNC_MESSAGE);
    expect(ds?.fields.updatedAt).toBe(later.toISOString());
    expect(ds?.providedSecretFields).toEqual(["password"]);
    expect(loaded.secretsOf(ds!.fields.id)).toBeUndefined();
  });

  it.each([
    ["not JSON", "{nope", /not valid JSON/],
    ["another format", JSON.stringify({ hello: 1 }), /not a reference-server state file/],
    [
      "a secret smuggled into a data source",
      (() => {
        const snapshot = storeWithData().snapshot();
        (snapshot.dataSources[0]!.fields as Record<string, unknown>).password = "x";
        return JSON.stringify(snapshot);
      })(),
      /not a reference-server state file/,
    ],
    [
      "an organization of an unknown user",
      (() => {
        const snapshot = storeWithData().snapshot();
        snapshot.organizations[0]!.ownerUserName = "mallory";
        return JSON.stringify(snapshot);
      })(),
      /unknown user/,
    ],
  ])("refuses %s", async (_, text, message) => {
    const file = path.join(tempDir(), "state.json");
    fs.writeFileSync(file, text);
    await expect(loadState(file, now)).rejects.toThrow(StateError);
    await expect(loadState(file, now)).rejects.toThrow(message);
  });
});

describe("StateWriter", () => {
  it("groups concurrent saves, and each resolves once its change is on disk", async () => {
    const file = path.join(tempDir(), "state.json");
    const store = new ReferenceStore();
    store.addApiKey({ digest: digestApiKey(generateApiKey("analytics")), userName: "alice", createdAt: now.toISOString() });
    let snapshots = 0;
    const writer = new StateWriter(file, () => {
      snapshots++;
      return store.snapshot();
    });
    const saves: Array<Promise<void>> = [];
    for (let i = 0; i < 50; i++) {
      const org = store.createOrganization("alice", `Org ${i}`, now);
      saves.push(
        writer.save().then(() => {
          const onDisk = JSON.parse(fs.readFileSync(file, "utf8")) as { organizations: Array<{ id: string }> };
          expect(onDisk.organizations.map((o) => o.id)).toContain(org.id);
        }),
      );
    }
    await Promise.all(saves);
    await writer.idle();
    expect(snapshots).toBeLessThanOrEqual(2);
    expect((JSON.parse(fs.readFileSync(file, "utf8")) as { organizations: unknown[] }).organizations).toHaveLength(50);
  });

  it("reports a failed write to the savers and recovers on the next save", async () => {
    const dir = tempDir();
    const file = path.join(dir, "sub", "state.json");
    const writer = new StateWriter(file, () => new ReferenceStore().snapshot());
    await expect(writer.save()).rejects.toMatchObject({ code: "ENOENT" });
    fs.mkdirSync(path.join(dir, "sub"));
    await writer.save();
    expect(fs.existsSync(file)).toBe(true);
  });
});

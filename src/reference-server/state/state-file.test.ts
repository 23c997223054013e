import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { digestApiKey, generateApiKey } from "./auth";
import { StateFile, journalPathOf, loadState, serializeState, writeFileAtomic } from "./state-file";
import { stateFileContents } from "./state-format";
import { INTERRUPTED_SYNC_MESSAGE, ReferenceStore, StateError } from "./store";

const temps: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reference-state-"));
  temps.push(dir);
  return dir;
}
/**
 * Every state file a test opened. Many leave theirs open, as a killed server leaves its journal;
 * the files after them in this worker share the process, so each is closed once its test ends,
 * before its folder goes (a close may find that folder or its journal as the test left them).
 */
const opened: StateFile[] = [];
async function openState(...args: Parameters<typeof StateFile.open>): Promise<StateFile> {
  const state = await StateFile.open(...args);
  opened.push(state);
  return state;
}
afterEach(async () => {
  await Promise.allSettled(opened.splice(0).map((state) => state.close()));
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const now = new Date("2025-03-01T12:00:00.000Z");

function storeWithData(): ReferenceStore {
  const store = new ReferenceStore();
  store.addApiKey({ digest: digestApiKey(generateApiKey("analytics")), userName: "alice", createdAt: now.toISOString() });
  const org = store.createOrganization("alice", "Acme", now);
  store.createDataSource(
    org,
    { type: "direct", dialect: "POSTGRES", displayName: "db", password: "pw-secret-1", sslEnabled: true, sshEnabled: false },
    now,
    14,
  );
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

  it("round-trips the contents, without credentials, and marks interrupted syncs FAILED", async () => {
    const file = path.join(tempDir(), "state.json");
    const original = storeWithData();
    fs.writeFileSync(file, serializeState(stateFileContents(original)));
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
        const contents = stateFileContents(storeWithData());
        (contents.dataSources[0]!.fields as Record<string, unknown>).password = "x";
        return JSON.stringify(contents);
      })(),
      /not a reference-server state file/,
    ],
    [
      "an organization of an unknown user",
      (() => {
        const contents = stateFileContents(storeWithData());
        contents.organizations[0]!.ownerUserName = "mallory";
        return JSON.stringify(contents);
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

describe("StateFile", () => {
  const key = (user: string): { digest: string; userName: string; createdAt: string } => ({
    digest: digestApiKey(generateApiKey("analytics")),
    userName: user,
    createdAt: now.toISOString(),
  });

  it("groups concurrent saves into one append, and each resolves once its change is in the journal", async () => {
    const file = path.join(tempDir(), "state.json");
    const state = await openState(file, now);
    state.store.addApiKey(key("alice"));
    await state.save(); // first save: no state file of version 2 yet, so a whole one
    const saves: Array<Promise<void>> = [];
    for (let i = 0; i < 50; i++) {
      const org = state.store.createOrganization("alice", `Org ${i}`, now);
      saves.push(state.save().then(async () => expect([...(await loadState(file, now)).organizations.keys()]).toContain(org.id)));
    }
    await Promise.all(saves);
    const lines = fs.readFileSync(journalPathOf(file), "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(50);
    expect(lines.map((l) => (JSON.parse(l) as { seq: number }).seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(fs.statSync(journalPathOf(file)).mode & 0o777).toBe(0o600);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    await state.close();
    expect(fs.readdirSync(path.dirname(file))).toEqual(["state.json"]);
    expect((await loadState(file, now)).organizations.size).toBe(50);
  });

  it("compacts once the journal outgrows its bound: a new state file, an emptied journal, nothing lost", async () => {
    const file = path.join(tempDir(), "state.json");
    const state = await openState(file, now, { compactMinBytes: 2000 });
    state.store.addApiKey(key("alice"));
    const org = state.store.createOrganization("alice", "Acme", now);
    let compactions = 0;
    for (let i = 0; i < 40; i++) {
      const before = fs.existsSync(file) ? fs.statSync(file).mtimeMs + fs.statSync(file).size : 0;
      state.store.createDataSource(
        org,
        { type: "direct", dialect: "POSTGRES", displayName: `db ${i}`, password: "pw-secret-1", sslEnabled: true, sshEnabled: false },
        now,
        14,
      );
      await state.save();
      if (fs.statSync(file).mtimeMs + fs.statSync(file).size !== before) compactions++;
      expect((await loadState(file, now)).dataSources.size).toBe(i + 1);
    }
    expect(compactions).toBeGreaterThan(2);
    expect(compactions).toBeLessThan(20);
    for (const f of [file, journalPathOf(file)]) expect(fs.readFileSync(f, "utf8")).not.toContain("pw-secret-1");
    await state.close();
  });

  it("makes a reset durable by writing the whole state at once", async () => {
    const file = path.join(tempDir(), "state.json");
    const state = await openState(file, now);
    state.store.addApiKey(key("alice"));
    state.store.createOrganization("alice", "Acme", now);
    await state.save();
    state.store.createOrganization("alice", "Beta", now);
    await state.save();
    expect(fs.statSync(journalPathOf(file)).size).toBeGreaterThan(0);
    state.store.clearResources();
    await state.save();
    expect(fs.statSync(journalPathOf(file)).size).toBe(0);
    const loaded = await loadState(file, now);
    expect(loaded.organizations.size).toBe(0);
    expect(loaded.apiKeys.size).toBe(1);
  });

  it("reports a failed write to the savers and recovers on the next save", async () => {
    const dir = tempDir();
    const file = path.join(dir, "sub", "state.json");
    const state = await openState(file, now);
    state.store.addApiKey(key("alice"));
    await expect(state.save()).rejects.toMatchObject({ code: "ENOENT" });
    fs.mkdirSync(path.join(dir, "sub"));
    await state.save();
    expect((await loadState(file, now)).apiKeys.size).toBe(1);
  });

  it("upgrades a version 1 file on its first save and ignores a journal beside it", async () => {
    const file = path.join(tempDir(), "state.json");
    const v1 = { ...stateFileContents(storeWithData()), version: 1 } as Record<string, unknown>;
    delete v1.journalSeq;
    fs.writeFileSync(file, JSON.stringify(v1));
    fs.writeFileSync(journalPathOf(file), "garbage that is not this file's\n");
    const state = await openState(file, now);
    expect(state.store.dataSources.size).toBe(1);
    expect(fs.statSync(journalPathOf(file)).size).toBe(0);
    state.store.createOrganization("alice", "Beta", now);
    await state.save();
    expect((JSON.parse(fs.readFileSync(file, "utf8")) as { version: number }).version).toBe(2);
    expect((await loadState(file, now)).organizations.size).toBe(2);
  });
});

describe("journal recovery", () => {
  /** A state file of version 2 (journalSeq 0) and a journal of `lines`, as written by a server. */
  async function withJournal(): Promise<{ file: string; lines: string[] }> {
    const file = path.join(tempDir(), "state.json");
    const state = await openState(file, now);
    state.store.addApiKey(key());
    await state.save();
    const org = state.store.createOrganization("alice", "Acme", now);
    await state.save();
    for (let i = 0; i < 3; i++) {
      state.store.createDataSource(
        org,
        { type: "direct", dialect: "POSTGRES", displayName: `db ${i}`, password: "pw-secret-1", sslEnabled: true, sshEnabled: false },
        now,
        14,
      );
      await state.save();
    }
    const lines = fs.readFileSync(journalPathOf(file), "utf8").trimEnd().split("\n");
    return { file, lines };
  }
  function key(): { digest: string; userName: string; createdAt: string } {
    return { digest: digestApiKey(generateApiKey("analytics")), userName: "alice", createdAt: now.toISOString() };
  }

  it("replays every line over the state file, in order", async () => {
    const { file, lines } = await withJournal();
    expect(lines.map((l) => (JSON.parse(l) as { op: string }).op)).toEqual(["organization", "organization", "dataSource", "dataSource", "dataSource"]);
    const loaded = await loadState(file, now);
    expect(loaded.organizations.size).toBe(1);
    expect([...loaded.dataSources.values()].map((d) => d.fields.displayName)).toEqual(["db 0", "db 1", "db 2"]);
    expect([...loaded.organizations.values()][0]!.trial).not.toBeNull();
  });

  it.each([
    ["a torn last line (crash mid-append)", (lines: string[]) => `${lines.join("\n")}\n${lines[4]!.slice(0, 40)}`, 3],
    ["a last line cut right before its newline", (lines: string[]) => lines.join("\n"), 2],
    ["lines the state file already includes", (lines: string[]) => `${lines.join("\n")}\n`, 3],
  ])("accepts %s", async (_, journal, dataSources) => {
    const { file, lines } = await withJournal();
    fs.writeFileSync(journalPathOf(file), journal(lines));
    expect((await loadState(file, now)).dataSources.size).toBe(dataSources);
  });

  it("cuts a torn last line off before appending", async () => {
    const { file, lines } = await withJournal();
    fs.writeFileSync(journalPathOf(file), `${lines.join("\n")}\n{"seq":6,"op":"orga`);
    const state = await openState(file, now);
    state.store.createOrganization("alice", "Later", now);
    await state.save();
    const loaded = await loadState(file, now);
    expect(loaded.organizations.size).toBe(2);
    expect(loaded.dataSources.size).toBe(3);
  });

  it.each([
    ["a line that is not JSON", (lines: string[]) => [lines[0], "{oops", ...lines.slice(1)], /line 2: not valid JSON/],
    ["a line out of sequence", (lines: string[]) => [lines[0], lines[2], lines[1], ...lines.slice(3)], /line 2: seq 3 follows 1/],
    ["a missing first line", (lines: string[]) => lines.slice(1), /line 1: seq 2 follows the state file's 0/],
    ["an unknown op", (lines: string[]) => [lines[0], lines[1]!.replace('"op":"organization"', '"op":"user"'), ...lines.slice(2)], /line 2: unknown op/],
    [
      "a secret smuggled into a record",
      (lines: string[]) => [...lines.slice(0, 2), lines[2]!.replace('"fields":{', '"fields":{"password":"x",'), ...lines.slice(3)],
      /line 3: not a valid dataSource record/,
    ],
  ])("refuses %s in the middle, naming the file and line", async (_, edit, message) => {
    const { file, lines } = await withJournal();
    fs.writeFileSync(journalPathOf(file), `${edit(lines).join("\n")}\n`);
    await expect(loadState(file, now)).rejects.toThrow(StateError);
    await expect(loadState(file, now)).rejects.toThrow(message);
    await expect(loadState(file, now)).rejects.toThrow(journalPathOf(file));
  });

  it("skips lines a compaction already folded in (a crash between its two steps)", async () => {
    const { file, lines } = await withJournal();
    const state = await openState(file, now);
    state.store.clearResources();
    await state.save(); // compaction: the state file now says journalSeq 5 and holds nothing
    fs.writeFileSync(journalPathOf(file), `${lines.join("\n")}\n`); // as if the journal was not emptied yet
    const loaded = await loadState(file, now);
    expect(loaded.organizations.size).toBe(0);
  });
});

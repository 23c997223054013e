import { describe, expect, it } from "vitest";
import type { CreateDataSourceRequest } from "../../contract";
import { parseStateSnapshot, stateSnapshot } from "./state-format";
import { ReferenceStore, StateError } from "./store";

const now = new Date("2025-01-01T00:00:00.000Z");
const minimal: CreateDataSourceRequest = { type: "direct", dialect: "POSTGRES", displayName: "db", sslEnabled: true, sshEnabled: false };

describe("parseStateSnapshot", () => {
  function snapshot(): Record<string, unknown> {
    const store = new ReferenceStore();
    store.addApiKey({ digest: "a".repeat(64), userName: "alice", createdAt: now.toISOString() });
    const org = store.createOrganization("alice", "Acme", now);
    const ds = store.createDataSource(org, { ...minimal, password: "pw" }, now, 14);
    ds.tables = [{ schema: "public", name: "t", columns: [{ name: "id", type: "integer", nullable: false }] }];
    return JSON.parse(JSON.stringify(stateSnapshot(store))) as Record<string, unknown>;
  }
  type Edit = (s: any) => void; // eslint-disable-line @typescript-eslint/no-explicit-any

  it("accepts both versions, and agrees with the zod schema on every valid file", () => {
    expect(parseStateSnapshot(snapshot()).version).toBe(2);
    const v1: Record<string, unknown> = { ...snapshot(), version: 1 };
    delete v1.journalSeq;
    expect(parseStateSnapshot(v1).version).toBe(1);
  });

  // The zod-free check must never accept what the schema refuses: each of these falls through to zod and is refused.
  it.each<[string, Edit]>([
    ["an extra top-level key", (s) => (s.extra = 1)],
    ["a journalSeq in version 1", (s) => (s.version = 1)],
    ["no journalSeq in version 2", (s) => delete s.journalSeq],
    ["a negative journalSeq", (s) => (s.journalSeq = -1)],
    ["version 3", (s) => (s.version = 3)],
    ["a bad digest", (s) => (s.apiKeys[0].digest = "xyz")],
    ["an extra key field", (s) => (s.apiKeys[0].key = "analytics_key_x")],
    ["an organization without slug", (s) => delete s.organizations[0].slug],
    ["a trial with an extra field", (s) => (s.organizations[0].trial.x = 1)],
    ["a secret in a data source", (s) => (s.dataSources[0].fields.password = "x")],
    ["a port that is not an integer", (s) => (s.dataSources[0].fields.port = 1.5)],
    ["a string boolean", (s) => (s.dataSources[0].fields.sslEnabled = "true")],
    ["a null that may not be", (s) => (s.dataSources[0].fields.id = null)],
    ["an unknown secret field name", (s) => (s.dataSources[0].providedSecretFields = ["apiToken"])],
    ["a column without nullable", (s) => delete s.dataSources[0].tables[0].columns[0].nullable],
    ["an array for a record", (s) => (s.dataSources[0] = [])],
  ])("refuses %s", (_, edit) => {
    const s = snapshot();
    edit(s);
    expect(() => parseStateSnapshot(s)).toThrow(StateError);
  });
});

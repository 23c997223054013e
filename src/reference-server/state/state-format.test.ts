import { describe, expect, it } from "vitest";
import type { CreateDataSourceRequest } from "../../contract";
import { dataSourceSpec, outputNames } from "../../kinds";
import { RELEASE, compareReleases, parseStateRecord, parseStateFileContents, stateFileContents } from "./state-format";
import { ReferenceStore, StateError } from "./store";

const now = new Date("2025-01-01T00:00:00.000Z");
const minimal: CreateDataSourceRequest = { type: "direct", dialect: "POSTGRES", displayName: "db", sslEnabled: true, sshEnabled: false };

describe("parseStateFileContents", () => {
  function contents(): Record<string, unknown> {
    const store = new ReferenceStore();
    store.addApiKey({ digest: "a".repeat(64), userName: "alice", createdAt: now.toISOString() });
    const org = store.createOrganization("alice", "Acme", now);
    const ds = store.createDataSource(org, { ...minimal, password: "pw" }, now, 14);
    ds.tables = [{ schema: "public", name: "t", columns: [{ name: "id", type: "integer", nullable: false }] }];
    return JSON.parse(JSON.stringify(stateFileContents(store))) as Record<string, unknown>;
  }
  type Edit = (s: any) => void;

  it("accepts both versions, a file of this release or an earlier one, and one from before files named their release", () => {
    expect(parseStateFileContents(contents())).toMatchObject({ version: 2, release: RELEASE });
    const v1: Record<string, unknown> = { ...contents(), version: 1 };
    delete v1.journalSeq;
    delete v1.release;
    expect(parseStateFileContents(v1).version).toBe(1);
    const unnamed = contents();
    delete unnamed.release;
    expect(parseStateFileContents(unnamed).release).toBeUndefined();
    expect(parseStateFileContents({ ...contents(), release: "0.0.1" }).release).toBe("0.0.1");
  });

  it("gives a record the fields it lacks that have a default, null for a nullable output, and refuses one without", () => {
    const s = contents() as any;
    delete s.dataSources[0].fields.description;
    delete s.organizations[0].customAiContext;
    const parsed = parseStateFileContents(s);
    expect(parsed.dataSources[0]!.fields.description).toBeNull();
    expect(parsed.organizations[0]!.customAiContext).toBeNull();
    // In the spec's order, as records this release creates are.
    expect(Object.keys(parsed.dataSources[0]!.fields)).toEqual(outputNames(dataSourceSpec));
    delete s.dataSources[0].fields.isDemo;
    expect(() => parseStateFileContents(s)).toThrow(
      "state file is not a reference-server state file (first problem at dataSources.0.fields.isDemo: missing, and it has no default)",
    );
  });

  it("checks a journal line's record by the same rules", () => {
    const record = (contents() as any).dataSources[0];
    delete record.fields.syncErrorMessage;
    expect(parseStateRecord("dataSource", record)).toMatchObject({ fields: { syncErrorMessage: null } });
    expect(() => parseStateRecord("dataSource", { ...record, fields: { ...record.fields, port: "5432" } })).toThrow(
      "not a valid dataSource record (first problem at fields.port: not an integer or null)",
    );
  });

  it("refuses a file of a newer release, naming both, before reading its records", () => {
    const newer = `${Number(RELEASE.split(".")[0]) + 1}.0.0`;
    const s = { ...contents(), release: newer, version: 3, dataSources: [{ fields: { aFieldOfTheNextRelease: 1 } }] };
    expect(() => parseStateFileContents(s)).toThrow(StateError);
    expect(() => parseStateFileContents(s)).toThrow(`written by pulumi-analytics ${newer}, a newer release than this reference server (${RELEASE})`);
    expect(() => parseStateFileContents({ ...contents(), release: "next" })).toThrow("(first problem at release: not a release version such as 0.1.0)");
  });

  it("orders releases by major, minor and patch, a prerelease before its release", () => {
    const ordered = ["0.1.0", "0.1.1", "0.2.0-rc.1", "0.2.0-rc.2", "0.2.0", "0.10.0", "1.0.0"];
    for (let i = 1; i < ordered.length; i++) {
      expect(compareReleases(ordered[i - 1]!, ordered[i]!)).toBeLessThan(0);
      expect(compareReleases(ordered[i]!, ordered[i - 1]!)).toBeGreaterThan(0);
    }
    expect(compareReleases("0.2.0", "0.2.0")).toBe(0);
  });

  it.each<[string, Edit, string]>([
    ["an extra top-level key", (s) => (s.extra = 1), "extra: an unknown field"],
    ["a journalSeq in version 1", (s) => (s.version = 1), "journalSeq: an unknown field"],
    ["no journalSeq in version 2", (s) => delete s.journalSeq, "journalSeq: missing, and it has no default"],
    ["a negative journalSeq", (s) => (s.journalSeq = -1), "journalSeq: not an integer >= 0"],
    ["version 3", (s) => (s.version = 3), "version: not 1 or 2, the layouts this release reads"],
    ["a release that is not a version", (s) => (s.release = 2), "release: not a release version such as 0.1.0"],
    ["a bad digest", (s) => (s.apiKeys[0].digest = "xyz"), "apiKeys.0.digest: not a SHA-256 digest in hex"],
    ["an extra key field", (s) => (s.apiKeys[0].key = "analytics_key_x"), "apiKeys.0.key: an unknown field"],
    ["a missing key field", (s) => delete s.apiKeys[0].createdAt, "apiKeys.0.createdAt: missing, and it has no default"],
    ["an organization without slug", (s) => delete s.organizations[0].slug, "organizations.0.slug: missing, and it has no default"],
    ["a trial with an extra field", (s) => (s.organizations[0].trial.x = 1), "organizations.0.trial.x: an unknown field"],
    ["a secret in a data source", (s) => (s.dataSources[0].fields.password = "x"), "dataSources.0.fields.password: an unknown field"],
    [
      "a field of a newer release in a file that does not say so",
      (s) => (s.dataSources[0].fields.archived = false),
      "dataSources.0.fields.archived: an unknown field",
    ],
    ["a port that is not an integer", (s) => (s.dataSources[0].fields.port = 1.5), "dataSources.0.fields.port: not an integer or null"],
    ["a string boolean", (s) => (s.dataSources[0].fields.sslEnabled = "true"), "dataSources.0.fields.sslEnabled: not a boolean"],
    ["a null that may not be", (s) => (s.dataSources[0].fields.id = null), "dataSources.0.fields.id: not a string"],
    [
      "an unknown secret field name",
      (s) => (s.dataSources[0].providedSecretFields = ["apiToken"]),
      'dataSources.0.providedSecretFields.0: not one of "snowflakePrivateKey"',
    ],
    [
      "a column without nullable",
      (s) => delete s.dataSources[0].tables[0].columns[0].nullable,
      "dataSources.0.tables.0.columns.0.nullable: missing, and it has no default",
    ],
    ["an array for a record", (s) => (s.dataSources[0] = []), "dataSources.0: not an object"],
  ])("refuses %s, naming where and why", (_, edit, problem) => {
    const s = contents();
    edit(s);
    expect(() => parseStateFileContents(s)).toThrow(StateError);
    expect(() => parseStateFileContents(s)).toThrow(`(first problem at ${problem}`);
  });
});

import { describe, expect, it } from "vitest";
import { SECRET_DATA_SOURCE_FIELDS, type CreateDataSourceRequest } from "../../contract";
import { parseStateRecord, stateFileContents } from "./state-format";
import { ReferenceStore } from "./store";

const now = new Date("2025-01-01T00:00:00.000Z");
const minimal: CreateDataSourceRequest = { type: "direct", dialect: "POSTGRES", displayName: "db", sslEnabled: true, sshEnabled: false };

describe("ReferenceStore", () => {
  it("gives organizations unique slugs and ids", () => {
    const store = new ReferenceStore();
    const a = store.createOrganization("alice", "Acme", now);
    const b = store.createOrganization("bob", "acme", now);
    expect([a.slug, b.slug]).toEqual(["acme", "acme-2"]);
    expect(a.id).not.toBe(b.id);
    expect(a).toMatchObject({ customAiContext: null, onboardingStatus: "STARTED", ownerUserName: "alice", trial: null });
  });

  it("finds an organization only for its owner", () => {
    const store = new ReferenceStore();
    const org = store.createOrganization("alice", "Acme", now);
    expect(store.organizationOwnedBy(org.id, "alice")).toBe(org);
    expect(store.organizationOwnedBy(org.id, "bob")).toBeUndefined();
    expect(store.organizationOwnedBy("org_missing", "alice")).toBeUndefined();
  });

  it("creates a PENDING data source with nulls for unset fields and the stated defaults", () => {
    const store = new ReferenceStore();
    const org = store.createOrganization("alice", "Acme", now);
    const record = store.createDataSource(org, minimal, now, 14);
    const { fields } = record;
    // Every field of the kind, each of its type, and nothing else: the state file takes it as it is.
    expect(parseStateRecord("dataSource", structuredClone(record))).toStrictEqual(structuredClone(record));
    expect(fields).toMatchObject({
      description: null,
      host: null,
      port: null,
      databaseName: null,
      sslEnabled: true,
      sshEnabled: false,
      sslCustomCertificatesEnabled: false,
      isDemo: false,
      isServiceWarehouse: false,
      hasCompletedFirstSync: false,
      lastSyncStatus: "PENDING",
      lastHealthStatus: "HEALTHY",
      lastSyncAttemptAt: null,
      lastSuccessfulSyncAt: null,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    });
  });

  it("lists the secret fields given, in the spec's order, in one frozen list per set that records share", () => {
    const store = new ReferenceStore();
    const org = store.createOrganization("alice", "Acme", now);
    const withKey = store.createDataSource(org, { ...minimal, sshPrivateKey: "k", password: "p" }, now, 14);
    const again = store.createDataSource(org, { ...minimal, password: "q", sshPrivateKey: "l" }, now, 14);
    const passwordOnly = store.createDataSource(org, { ...minimal, password: "p" }, now, 14);
    expect(withKey.providedSecretFields).toEqual(["password", "sshPrivateKey"]);
    expect(again.providedSecretFields).toBe(withKey.providedSecretFields);
    expect(passwordOnly.providedSecretFields).toEqual(["password"]);
    expect(store.createDataSource(org, minimal, now, 14).providedSecretFields).toEqual([]);
    // Shared, so nobody may change one in place.
    expect(Object.isFrozen(withKey.providedSecretFields)).toBe(true);
  });

  it("keeps credentials in memory only, out of fields and the state file", () => {
    const store = new ReferenceStore();
    const org = store.createOrganization("alice", "Acme", now);
    const secrets = Object.fromEntries(SECRET_DATA_SOURCE_FIELDS.map((f) => [f, `secret-${f}-value`]));
    const record = store.createDataSource(org, { ...minimal, ...secrets }, now, 14);
    expect(store.secretsOf(record.fields.id)).toEqual(secrets);
    expect(record.providedSecretFields).toEqual([...SECRET_DATA_SOURCE_FIELDS]);
    const text = JSON.stringify(stateFileContents(store)) + JSON.stringify(record);
    for (const value of Object.values(secrets)) expect(text).not.toContain(value);
  });

  it("starts the trial at the first data source only", () => {
    const store = new ReferenceStore();
    const org = store.createOrganization("alice", "Acme", now);
    store.createDataSource(org, minimal, now, 14);
    expect(org.trial).toEqual({ startedAt: now.toISOString(), endsAt: "2025-01-15T00:00:00.000Z" });
    store.createDataSource(org, minimal, new Date("2025-01-05T00:00:00.000Z"), 14);
    expect(org.trial?.startedAt).toBe(now.toISOString());
  });

  it("clears resources but keeps keys", () => {
    const store = new ReferenceStore();
    store.addApiKey({ digest: "a".repeat(64), userName: "alice", createdAt: now.toISOString() });
    const org = store.createOrganization("alice", "Acme", now);
    store.createDataSource(org, minimal, now, 14);
    store.clearResources();
    expect(store.organizations.size + store.dataSources.size).toBe(0);
    expect(store.userNames()).toEqual(["alice"]);
    expect(store.createOrganization("alice", "Acme", now).slug).toBe("acme");
  });
  it("captures resources as a deep copy and replaces them in place, slugs and credentials included", () => {
    const store = new ReferenceStore();
    const org = store.createOrganization("alice", "Acme", now);
    const ds = store.createDataSource(org, { ...minimal, password: "S3CRET-pw" }, now, 14);
    const saved = store.captureResources();
    ds.fields.lastSyncStatus = "SUCCEEDED";
    org.trial = null;
    store.createOrganization("alice", "Acme", now);
    expect(saved.organizations.map((o) => o.slug)).toEqual(["acme"]);
    expect(saved.dataSources[0]!.fields.lastSyncStatus).toBe("PENDING");

    store.replaceResources(saved);
    expect([...store.organizations.values()].map((o) => o.slug)).toEqual(["acme"]);
    expect(store.dataSources.get(ds.fields.id)).not.toBe(ds);
    expect(store.dataSources.get(ds.fields.id)!.fields.lastSyncStatus).toBe("PENDING");
    expect(store.organizations.get(org.id)!.trial).not.toBeNull();
    expect(store.secretsOf(ds.fields.id)).toEqual({ password: "S3CRET-pw" });
    // The slug set was rebuilt: the next "Acme" is acme-2 again, never a second acme.
    expect(store.createOrganization("alice", "Acme", now).slug).toBe("acme-2");
    // Restoring does not hand out the saved objects: changing the store later leaves them alone.
    store.dataSources.get(ds.fields.id)!.fields.lastSyncStatus = "FAILED";
    expect(saved.dataSources[0]!.fields.lastSyncStatus).toBe("PENDING");
  });
});

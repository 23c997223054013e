/** What a create stores and answers, over real HTTP on 127.0.0.1: fields, defaults, secrets, slugs, trial. */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SECRET_DATA_SOURCE_FIELDS } from "../../contract";
import {
  MARK,
  call,
  closeServersAfterEach,
  createDataSource,
  createOrg,
  secretValues,
  start,
  tempDir,
  validDataSource,
} from "../../../test/support/reference-server-harness";

closeServersAfterEach();

describe("resources", () => {
  it("applies the defaults sslEnabled true and sshEnabled false, and keeps explicit values", async () => {
    const { server } = await start();
    const key = server.apiKeys.alice!;
    const org = await createOrg(server, key);
    const defaulted = await createDataSource(server, key, org.id, { type: "direct", dialect: "POSTGRES", displayName: "d" });
    expect(defaulted.json.data).toMatchObject({ sslEnabled: true, sshEnabled: false });
    const explicit = await createDataSource(server, key, org.id, { ...validDataSource, sslEnabled: false, sshEnabled: true, sshHost: "bastion" });
    expect(explicit.json.data).toMatchObject({ sslEnabled: false, sshEnabled: true, sshHost: "bastion" });
  });

  it("returns unset optional fields as null and the stated initial state", async () => {
    const { server } = await start();
    const key = server.apiKeys.alice!;
    const org = await createOrg(server, key);
    const { json } = await createDataSource(server, key, org.id, { type: "direct", dialect: "POSTGRES", displayName: "d" });
    const data = json.data;
    for (const field of [
      "description",
      "databaseName",
      "username",
      "host",
      "port",
      "sshHost",
      "sshPort",
      "sshUsername",
      "bigQueryProjectId",
      "spannerInstanceId",
      "snowflakeAccountId",
      "snowflakeWarehouse",
      "snowflakeRole",
      "lastSuccessfulSyncAt",
      "lastSyncAttemptAt",
      "syncErrorMessage",
      "lastHealthyAt",
      "lastHealthCheckAttemptAt",
    ]) {
      expect(data[field], field).toBeNull();
    }
    expect(data).toMatchObject({
      sslCustomCertificatesEnabled: false,
      isDemo: false,
      isServiceWarehouse: false,
      hasCompletedFirstSync: false,
      lastSyncStatus: "PENDING",
      lastHealthStatus: "HEALTHY",
    });
    expect(new Date(data.createdAt).toISOString()).toBe(data.createdAt);
    expect(data.updatedAt).toBe(data.createdAt);
  });

  it("echoes the non-secret fields it was sent", async () => {
    const { server } = await start();
    const key = server.apiKeys.alice!;
    const org = await createOrg(server, key);
    const sent = {
      ...validDataSource,
      sshHost: "bastion",
      sshPort: 22,
      sshUsername: "tunnel",
      bigQueryProjectId: "bq",
      spannerInstanceId: "sp",
      snowflakeAccountId: "sf",
      snowflakeWarehouse: "wh",
      snowflakeRole: "role",
    };
    const { json } = await createDataSource(server, key, org.id, sent);
    const { type: _type, password: _password, ...echoed } = sent;
    expect(json.data).toMatchObject(echoed);
  });

  it("never returns, shows, logs or saves a secret field", async () => {
    const dir = tempDir();
    const statePath = path.join(dir, "state.json");
    const started = await start({ inspection: true, statePath });
    const { server } = started;
    const key = server.apiKeys.alice!;
    const org = await createOrg(server, key);
    const reply = await createDataSource(server, key, org.id, { ...validDataSource, ...secretValues });
    expect(reply.status).toBe(201);
    for (const field of SECRET_DATA_SOURCE_FIELDS) expect(reply.json.data).not.toHaveProperty(field);
    const synced = await server.waitForSync(reply.json.data.id);
    expect(synced.providedSecretFields).toEqual([...SECRET_DATA_SOURCE_FIELDS]);
    expect(started.syncTargets[0]?.password).toBe(secretValues.password);

    const surfaces = [
      reply.text,
      JSON.stringify(synced),
      JSON.stringify(server.inspect.organization(org.id)),
      JSON.stringify(server.inspect.dataSources()),
      JSON.stringify(server.inspect.requests()),
      (await call(server, "GET", `/_reference/data-sources/${reply.json.data.id}`)).text,
      (await call(server, "GET", `/_reference/organizations/${org.id}`)).text,
      (await call(server, "GET", "/_reference/organizations")).text,
      (await call(server, "GET", "/_reference/data-sources")).text,
      (await call(server, "GET", "/_reference/requests")).text,
      started.logs.join("\n"),
    ];
    await server.close();
    surfaces.push(fs.readFileSync(statePath, "utf8"));
    for (const text of surfaces) {
      expect(text).not.toContain(MARK);
      for (const field of SECRET_DATA_SOURCE_FIELDS) expect(text).not.toMatch(new RegExp(`"${field}"\\s*:`));
    }
  });

  it("derives unique slugs, across users too", async () => {
    const { server } = await start();
    const slugs = [];
    for (const [user, name] of [
      ["alice", "Acme"],
      ["bob", "ACME"],
      ["alice", "acme!"],
      ["bob", "  Ünïcödé  Org "],
      ["bob", "💥"],
    ] as const) {
      slugs.push((await createOrg(server, server.apiKeys[user]!, name)).slug);
    }
    expect(slugs).toEqual(["acme", "acme-2", "acme-3", "unicode-org", "organization"]);
  });

  it("starts the trial at the first data source, once", async () => {
    const { server } = await start({ trialDays: 30 });
    const key = server.apiKeys.alice!;
    const org = await createOrg(server, key);
    expect(server.inspect.organization(org.id)?.trial).toBeNull();
    await createDataSource(server, key, org.id);
    const trial = server.inspect.organization(org.id)?.trial;
    expect(trial).not.toBeNull();
    expect(Date.parse(trial!.endsAt) - Date.parse(trial!.startedAt)).toBe(30 * 86_400_000);
    await createDataSource(server, key, org.id);
    expect(server.inspect.organization(org.id)?.trial).toEqual(trial);
    expect(server.inspect.organization(org.id)?.dataSources).toHaveLength(2);
    // A failed create does not start a trial either.
    const other = await createOrg(server, key, "Other");
    await createDataSource(server, key, other.id, { ...validDataSource, port: -1 });
    expect(server.inspect.organization(other.id)?.trial).toBeNull();
  });
});

/** The server's background schema sync end to end: HTTP create, then a real connection to a real database. */
import * as net from "node:net";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dataSourcesPath, ORGANIZATIONS_PATH } from "../contract";
import { startReferenceServer, type ReferenceServer } from "./server";
import { connectTestPostgres, type TestPostgres } from "../../test/support/test-postgres";

let server: ReferenceServer;
let postgres: TestPostgres;
const schema = `sync_e2e_${randomBytes(4).toString("hex")}`;

async function post(path: string, body: unknown): Promise<{ status: number; json: { data?: { id: string } } }> {
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.apiKeys.alice}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as { data?: { id: string } } };
}

/** A server that speaks just enough of the Postgres protocol to reject any login as a wrong password. */
function rejectingPostgres(): Promise<net.Server> {
  const server = net.createServer((socket) => {
    socket.once("data", () => {
      const fields = Buffer.from('SFATAL\0C28P01\0Mpassword authentication failed for user "reader"\0\0');
      const header = Buffer.alloc(5);
      header.write("E", 0);
      header.writeInt32BE(fields.length + 4, 1);
      socket.end(Buffer.concat([header, fields]));
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

beforeAll(async () => {
  postgres = await connectTestPostgres();
  await postgres.admin(`CREATE SCHEMA ${schema}`);
  await postgres.admin(`CREATE TABLE ${schema}.accounts (id bigint PRIMARY KEY, email text NOT NULL, created_at timestamptz)`);
  await postgres.admin(`CREATE TABLE ${schema}.invoices (id serial PRIMARY KEY, account_id bigint, amount numeric(10,2) NOT NULL)`);
  server = await startReferenceServer({ port: 0, bootstrapUsers: ["alice"] });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await postgres?.admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await postgres?.close();
});

describe("background schema sync through the API", () => {
  it("syncs the tables and columns of a real Postgres to SUCCEEDED and records health", async () => {
    const org = await post(ORGANIZATIONS_PATH, { name: "Sync Org" });
    const created = await post(dataSourcesPath(org.json.data!.id), {
      type: "direct",
      dialect: "POSTGRES",
      displayName: "Real warehouse",
      host: postgres.host,
      port: postgres.port,
      databaseName: postgres.databaseName,
      username: postgres.username,
      ...(postgres.password ? { password: postgres.password } : {}),
      sslEnabled: false,
    });
    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({ lastSyncStatus: "PENDING", lastHealthStatus: "HEALTHY" });

    const synced = await server.waitForSync(created.json.data!.id);
    expect(synced).toMatchObject({ lastSyncStatus: "SUCCEEDED", hasCompletedFirstSync: true, syncErrorMessage: null, lastHealthStatus: "HEALTHY" });
    expect(synced.lastSuccessfulSyncAt).toEqual(expect.any(String));
    expect(synced.lastHealthyAt).toEqual(expect.any(String));
    const ours = (synced.tables ?? []).filter((t) => t.schema === schema);
    expect(ours).toEqual([
      {
        schema,
        name: "accounts",
        columns: [
          { name: "id", type: "bigint", nullable: false },
          { name: "email", type: "text", nullable: false },
          { name: "created_at", type: "timestamp with time zone", nullable: true },
        ],
      },
      {
        schema,
        name: "invoices",
        columns: [
          { name: "id", type: "integer", nullable: false },
          { name: "account_id", type: "bigint", nullable: true },
          { name: "amount", type: "numeric(10,2)", nullable: false },
        ],
      },
    ]);
  });

  it("syncs a data source with port 0 against port 0: FAILED with a clear message, never against 5432", async () => {
    const org = await post(ORGANIZATIONS_PATH, { name: "Port Zero Org" });
    const created = await post(dataSourcesPath(org.json.data!.id), {
      type: "direct",
      dialect: "POSTGRES",
      displayName: "Port zero",
      host: "127.0.0.1",
      port: 0,
      databaseName: postgres.databaseName,
      username: postgres.username,
      ...(postgres.password ? { password: postgres.password } : {}),
      sslEnabled: false,
    });
    expect(created.status).toBe(201);
    const synced = await server.waitForSync(created.json.data!.id);
    expect(synced).toMatchObject({
      port: 0,
      lastSyncStatus: "FAILED",
      lastHealthStatus: "UNHEALTHY",
      syncErrorMessage: "could not connect to 127.0.0.1:0: port 0 cannot be connected to (TCP reserves it); set the database's real port",
    });
  });

  it("ends FAILED and UNHEALTHY with a clear message, free of the password, when the login is refused", async () => {
    const rejecting = await rejectingPostgres();
    try {
      const org = await post(ORGANIZATIONS_PATH, { name: "Refused Org" });
      const password = "wrong-password-5d41402a";
      const created = await post(dataSourcesPath(org.json.data!.id), {
        type: "direct",
        dialect: "POSTGRES",
        displayName: "Refused",
        host: "127.0.0.1",
        port: (rejecting.address() as net.AddressInfo).port,
        databaseName: "analytics",
        username: "reader",
        password,
        sslEnabled: false,
      });
      const synced = await server.waitForSync(created.json.data!.id);
      expect(synced).toMatchObject({
        lastSyncStatus: "FAILED",
        lastHealthStatus: "UNHEALTHY",
        hasCompletedFirstSync: false,
        lastSuccessfulSyncAt: null,
        tables: null,
      });
      expect(synced.syncErrorMessage).toMatch(/password authentication failed for user "reader"/);
      expect(JSON.stringify(synced)).not.toContain(password);
    } finally {
      await new Promise((resolve) => rejecting.close(resolve));
    }
  });
});

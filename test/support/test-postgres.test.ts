import { randomBytes } from "node:crypto";
import * as net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { syncSchema } from "../../src/reference-server";
import { connectTestPostgres, type TestPostgres } from "./test-postgres";

const ENV = "ANALYTICS_TEST_POSTGRES";
const original = process.env[ENV];
afterEach(() => {
  if (original === undefined) delete process.env[ENV];
  else process.env[ENV] = original;
});

/** Creates a throwaway table through admin and checks syncSchema, pointed at the same coordinates, sees it. */
async function expectSyncSeesAdminTables(db: TestPostgres): Promise<void> {
  const schema = `test_pg_${randomBytes(5).toString("hex")}`;
  await db.admin(`CREATE SCHEMA ${schema}`);
  try {
    await db.admin(`CREATE TABLE ${schema}.probe (id integer NOT NULL, label text)`);
    const outcome = await syncSchema({
      host: db.host,
      port: db.port,
      databaseName: db.databaseName,
      username: db.username,
      password: db.password,
      sslEnabled: false,
    });
    expect(outcome.ok && outcome.tables.filter((table) => table.schema === schema)).toEqual([
      {
        schema,
        name: "probe",
        columns: [
          { name: "id", type: "integer", nullable: false },
          { name: "label", type: "text", nullable: true },
        ],
      },
    ]);
  } finally {
    await db.admin(`DROP SCHEMA ${schema} CASCADE`);
  }
}

/** Resolves true when something accepts TCP connections on host:port. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("connectTestPostgres", () => {
  it("gives a database whose admin session and coordinates reach the same server", async () => {
    delete process.env[ENV];
    const db = await connectTestPostgres();
    try {
      if (db.kind === "system") expect({ host: db.host, port: db.port }).toEqual({ host: "127.0.0.1", port: 5432 });
      await expectSyncSeesAdminTables(db);
    } finally {
      await db.close();
    }
  });

  it("uses the embedded warehouse when told to, and close() stops it", async () => {
    process.env[ENV] = "embedded";
    const db = await connectTestPostgres();
    try {
      expect(db.kind).toBe("embedded");
      expect(db.port).not.toBe(5432);
      await expectSyncSeesAdminTables(db);
    } finally {
      await db.close();
    }
    expect(await accepts(db.host, db.port)).toBe(false);
  });

  it("rejects an unknown ANALYTICS_TEST_POSTGRES value", async () => {
    process.env[ENV] = "sometimes";
    await expect(connectTestPostgres()).rejects.toThrow('ANALYTICS_TEST_POSTGRES must be "system" or "embedded", not "sometimes"');
  });
});

import * as net from "node:net";
import { Client } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_TABLES, startDemoWarehouse, type DemoWarehouse } from "./demo-warehouse";
import { syncSchema, type SyncTarget, type SyncedTable } from "../src/reference-server";

function targetOf(warehouse: DemoWarehouse): SyncTarget {
  return {
    host: warehouse.host,
    port: warehouse.port,
    databaseName: warehouse.databaseName,
    username: warehouse.username,
    password: warehouse.password,
    sslEnabled: false,
  };
}

async function tablesOf(target: SyncTarget): Promise<SyncedTable[]> {
  const outcome = await syncSchema(target);
  if (!outcome.ok) throw new Error(`expected a successful sync, got: ${outcome.message}`);
  return outcome.tables;
}

async function withClient<T>(warehouse: DemoWarehouse, use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ ...connection(warehouse), ssl: false });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

function connection(warehouse: DemoWarehouse) {
  return { host: warehouse.host, port: warehouse.port, user: warehouse.username, database: warehouse.databaseName, password: warehouse.password };
}

/** Resolves true when a TCP server can bind host:port, i.e. nothing holds the port. */
function canBind(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** A port the OS just handed out and released. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("a seeded demo warehouse", () => {
  let warehouse: DemoWarehouse;
  beforeAll(async () => {
    warehouse = await startDemoWarehouse();
  });
  afterAll(async () => {
    await warehouse?.close();
  });

  it("listens on 127.0.0.1 on an OS-assigned port with postgres/postgres", () => {
    expect(warehouse.host).toBe("127.0.0.1");
    expect(warehouse.port).toBeGreaterThan(0);
    expect(warehouse.username).toBe("postgres");
    expect(warehouse.databaseName).toBe("postgres");
    expect(warehouse.tables).toEqual([...DEMO_TABLES]);
  });

  it("is read by syncSchema as exactly the seeded tables, with their columns", async () => {
    const tables = await tablesOf(targetOf(warehouse));
    expect(tables.map((table) => `${table.schema}.${table.name}`)).toEqual(warehouse.tables);
    expect(tables.find((table) => table.name === "customers")?.columns).toEqual([
      { name: "id", type: "integer", nullable: false },
      { name: "email", type: "character varying(254)", nullable: false },
      { name: "full_name", type: "text", nullable: false },
      { name: "country", type: "character(2)", nullable: true },
      { name: "signed_up_at", type: "timestamp with time zone", nullable: false },
      { name: "is_active", type: "boolean", nullable: false },
      { name: "attributes", type: "jsonb", nullable: true },
    ]);
    expect(tables.find((table) => table.name === "order_items")?.columns).toEqual([
      { name: "order_id", type: "integer", nullable: false },
      { name: "line_no", type: "smallint", nullable: false },
      { name: "sku", type: "character varying(32)", nullable: false },
      { name: "quantity", type: "integer", nullable: false },
      { name: "unit_price", type: "numeric(10,2)", nullable: false },
    ]);
    expect(tables.find((table) => table.schema === "analytics")?.columns).toEqual([
      { name: "day", type: "date", nullable: true },
      { name: "orders", type: "bigint", nullable: true },
      { name: "revenue", type: "numeric", nullable: true },
    ]);
  });

  it("holds demo rows, queryable through the view", async () => {
    const rows = await withClient(warehouse, async (client) => {
      const counts = await client.query<{ customers: number; orders: number; items: number }>(
        "SELECT (SELECT count(*) FROM customers)::int AS customers, (SELECT count(*) FROM orders)::int AS orders, (SELECT count(*) FROM order_items)::int AS items",
      );
      const revenue = await client.query<{ day: string; revenue: string }>(
        "SELECT to_char(day, 'YYYY-MM-DD') AS day, revenue::text AS revenue FROM analytics.daily_revenue ORDER BY day",
      );
      return { counts: counts.rows[0], revenue: revenue.rows };
    });
    expect(rows.counts).toEqual({ customers: 5, orders: 5, items: 7 });
    expect(rows.revenue).toEqual([
      { day: "2024-04-01", revenue: "72.30" },
      { day: "2024-04-02", revenue: "120.00" },
      { day: "2024-04-03", revenue: "24.90" },
    ]);
  });

  it("serves concurrent syncs, each with the whole schema", async () => {
    const outcomes = await Promise.all([1, 2, 3].map(() => syncSchema(targetOf(warehouse))));
    const expected = await tablesOf(targetOf(warehouse));
    expect(outcomes).toEqual([1, 2, 3].map(() => ({ ok: true, tables: expected })));
  });

  it("accepts any user, database and password (PGlite has no authentication and one database)", async () => {
    const tables = await tablesOf({ ...targetOf(warehouse), username: "someone", databaseName: "elsewhere", password: "anything" });
    expect(tables.map((table) => `${table.schema}.${table.name}`)).toEqual(warehouse.tables);
  });

  it("refuses TLS, and the sync says to set sslEnabled: false", async () => {
    expect(await syncSchema({ ...targetOf(warehouse), sslEnabled: true })).toEqual({
      ok: false,
      message: `the server at 127.0.0.1:${warehouse.port} does not support SSL connections; set sslEnabled: false to connect without TLS (for example to a local Postgres without TLS)`,
    });
  });
});

describe("starting and closing", () => {
  it("starts empty without seed", async () => {
    const warehouse = await startDemoWarehouse({ seed: false });
    try {
      expect(warehouse.tables).toEqual([]);
      expect(await syncSchema(targetOf(warehouse))).toEqual({ ok: true, tables: [] });
    } finally {
      await warehouse.close();
    }
  });

  it("listens on the port asked for, and close() releases it (twice is fine)", async () => {
    const port = await freePort();
    const warehouse = await startDemoWarehouse({ port, seed: false });
    let closed = false;
    try {
      expect(warehouse.port).toBe(port);
      expect(await canBind("127.0.0.1", port)).toBe(false);
      await warehouse.close();
      closed = true;
      await warehouse.close();
      expect(await canBind("127.0.0.1", port)).toBe(true);
      expect(await syncSchema(targetOf(warehouse))).toEqual({
        ok: false,
        message: `could not connect to 127.0.0.1:${port}: connection refused`,
      });
    } finally {
      if (!closed) await warehouse.close();
    }
  });

  it("closes while a client holds an open transaction, dropping that client", async () => {
    const warehouse = await startDemoWarehouse({ seed: false });
    const client = new Client({ ...connection(warehouse), ssl: false });
    const clientErrors: Error[] = [];
    client.on("error", (error) => clientErrors.push(error));
    try {
      await client.connect();
      await client.query("BEGIN");
      await client.query("CREATE TABLE pending (x integer)");
      await warehouse.close();
      await expect(client.query("SELECT 1")).rejects.toThrow();
      expect(await canBind("127.0.0.1", warehouse.port)).toBe(true);
    } finally {
      await client.end().catch(() => undefined);
      await warehouse.close();
    }
  });

  it("rejects a port already in use", async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", () => resolve()));
    try {
      const { port } = holder.address() as net.AddressInfo;
      await expect(startDemoWarehouse({ port, seed: false })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });
});

/**
 * The demo warehouse: an embedded Postgres (PGlite, Postgres compiled to WebAssembly) served over
 * the Postgres wire protocol by pglite-socket, so demos and machines without a system Postgres
 * still have a database for data sources to point at and for the schema sync to read.
 *
 * PGlite's limits, as found in pglite-socket 0.2.17 / PGlite 0.5.14:
 * - No authentication: any user name and any password are accepted (no password is even asked
 *   for), and the session always runs as `postgres` in database `postgres`, whatever the client
 *   names. Bind it to loopback only.
 * - No TLS: an SSL request is refused, so clients must connect with `sslEnabled: false`.
 * - One backend: PGlite is a single-session database. pglite-socket multiplexes up to
 *   {@link DEMO_WAREHOUSE_MAX_CONNECTIONS} connections onto it one message at a time, so session
 *   state (SET, temporary tables, prepared statements) is shared between connections, an open
 *   transaction holds every other connection's queries until it ends, and two clients running
 *   parameterized (extended-protocol) queries at the same moment may interleave. Connections
 *   beyond the limit are closed at once.
 * - In memory: everything is lost on close().
 */
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

/** A running demo warehouse and the connection fields a data source needs to reach it. */
export interface DemoWarehouse {
  /** Address to connect to. */
  host: string;
  /** Port the server is bound to (the OS-assigned one when started on port 0). */
  port: number;
  /** Database name to put on a data source (PGlite serves `postgres` whatever is asked). */
  databaseName: string;
  /** User name to put on a data source (PGlite runs every session as `postgres`). */
  username: string;
  /** Password to put on a data source; PGlite never checks it. */
  password: string;
  /** Qualified names (`schema.table`) of the seeded relations, in schema-sync order; empty without seed. */
  tables: string[];
  /** Stops the server, drops every connection and shuts PGlite down; safe to call twice. */
  close(): Promise<void>;
}

/** Options for {@link startDemoWarehouse}. */
export interface DemoWarehouseOptions {
  /** Port to listen on; default 0 (any free port). */
  port?: number;
  /** Address to listen on; default 127.0.0.1. */
  host?: string;
  /** Whether to create and fill the demo tables; default true. */
  seed?: boolean;
}

/** Connections served at once (see the module comment for what sharing one backend implies). */
export const DEMO_WAREHOUSE_MAX_CONNECTIONS = 8;

/** Qualified names of the relations {@link DEMO_SEED_SQL} creates, ordered by schema then name. */
export const DEMO_TABLES = ["analytics.daily_revenue", "public.customers", "public.order_items", "public.orders"] as const;

/** A small shop: customers, orders and their lines, plus a revenue view in a second schema. */
export const DEMO_SEED_SQL = `
CREATE TABLE public.customers (
  id integer PRIMARY KEY,
  email varchar(254) NOT NULL UNIQUE,
  full_name text NOT NULL,
  country char(2),
  signed_up_at timestamptz NOT NULL,
  is_active boolean NOT NULL DEFAULT true,
  attributes jsonb
);

CREATE TABLE public.orders (
  id integer PRIMARY KEY,
  customer_id integer NOT NULL REFERENCES public.customers (id),
  status text NOT NULL CHECK (status IN ('placed', 'shipped', 'delivered', 'cancelled')),
  ordered_at timestamptz NOT NULL,
  total numeric(12,2) NOT NULL,
  coupon_code text
);

CREATE TABLE public.order_items (
  order_id integer NOT NULL REFERENCES public.orders (id),
  line_no smallint NOT NULL,
  sku varchar(32) NOT NULL,
  quantity integer NOT NULL CHECK (quantity > 0),
  unit_price numeric(10,2) NOT NULL,
  PRIMARY KEY (order_id, line_no)
);

INSERT INTO public.customers (id, email, full_name, country, signed_up_at, is_active, attributes) VALUES
  (1, 'ada@example.com', 'Ada Lovelace', 'GB', '2024-01-03T09:15:00Z', true, '{"plan": "pro"}'),
  (2, 'grace@example.com', 'Grace Hopper', 'US', '2024-01-11T14:02:00Z', true, '{"plan": "free"}'),
  (3, 'alan@example.com', 'Alan Turing', 'GB', '2024-02-20T08:40:00Z', false, NULL),
  (4, 'edsger@example.com', 'Edsger Dijkstra', 'NL', '2024-03-05T17:25:00Z', true, '{"plan": "pro"}'),
  (5, 'barbara@example.com', 'Barbara Liskov', NULL, '2024-03-18T11:00:00Z', true, NULL);

INSERT INTO public.orders (id, customer_id, status, ordered_at, total, coupon_code) VALUES
  (101, 1, 'delivered', '2024-04-01T10:00:00Z', 59.80, NULL),
  (102, 2, 'delivered', '2024-04-01T16:30:00Z', 12.50, 'WELCOME'),
  (103, 1, 'shipped', '2024-04-02T09:12:00Z', 120.00, NULL),
  (104, 4, 'cancelled', '2024-04-02T11:45:00Z', 35.00, NULL),
  (105, 5, 'placed', '2024-04-03T08:05:00Z', 24.90, 'SPRING');

INSERT INTO public.order_items (order_id, line_no, sku, quantity, unit_price) VALUES
  (101, 1, 'BOOK-001', 2, 19.90),
  (101, 2, 'MUG-010', 1, 20.00),
  (102, 1, 'PEN-100', 5, 2.50),
  (103, 1, 'LAMP-042', 1, 120.00),
  (104, 1, 'BOOK-002', 1, 35.00),
  (105, 1, 'MUG-010', 1, 20.00),
  (105, 2, 'PEN-100', 2, 2.45);

CREATE SCHEMA analytics;

CREATE VIEW analytics.daily_revenue AS
SELECT (ordered_at AT TIME ZONE 'UTC')::date AS day, count(*) AS orders, sum(total) AS revenue
FROM public.orders
WHERE status <> 'cancelled'
GROUP BY 1;
`;

const DEMO_USER = "postgres";
const DEMO_DATABASE = "postgres";
/** Conventional; PGlite accepts any password, this one only fills the data source's field. */
const DEMO_PASSWORD = "postgres";

/** Starts PGlite in memory, seeds it (unless `seed: false`) and serves it on host:port. */
export async function startDemoWarehouse(options: DemoWarehouseOptions = {}): Promise<DemoWarehouse> {
  const host = options.host ?? "127.0.0.1";
  const seed = options.seed ?? true;
  const db = await PGlite.create({ username: DEMO_USER, database: DEMO_DATABASE });
  const server = new PGLiteSocketServer({
    db,
    host,
    port: options.port ?? 0,
    maxConnections: DEMO_WAREHOUSE_MAX_CONNECTIONS,
  });
  let port: number;
  try {
    if (seed) await db.exec(DEMO_SEED_SQL);
    await server.start();
    port = boundPort(server);
  } catch (error) {
    await server.stop().catch(() => undefined);
    await db.close().catch(() => undefined);
    throw error;
  }

  let closing: Promise<void> | undefined;
  return {
    // A wildcard bind is reachable on loopback; a client cannot connect to "0.0.0.0" everywhere.
    host: host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host,
    port,
    databaseName: DEMO_DATABASE,
    username: DEMO_USER,
    password: DEMO_PASSWORD,
    tables: seed ? [...DEMO_TABLES] : [],
    close() {
      closing ??= (async () => {
        await server.stop();
        // stop() detaches each connection without awaiting it, and a detach may still roll back
        // that connection's transaction; let those finish before PGlite goes away.
        await new Promise((resolve) => setImmediate(resolve));
        await db.close();
      })();
      return closing;
    },
  };
}

/** The bound port: pglite-socket keeps it private and shows it only in `host:port` form. */
function boundPort(server: PGLiteSocketServer): number {
  const connection = server.getServerConn();
  const port = Number(connection.slice(connection.lastIndexOf(":") + 1));
  if (!Number.isInteger(port) || port <= 0) throw new Error(`cannot read the demo warehouse's port from "${connection}"`);
  return port;
}

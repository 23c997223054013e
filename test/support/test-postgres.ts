/**
 * A real Postgres for tests: the machine's own on 127.0.0.1:5432 when it answers without a
 * password (trust auth, user and database `postgres`), else the embedded demo warehouse, so
 * tests that need a database run everywhere instead of being skipped.
 * Set ANALYTICS_TEST_POSTGRES=system to require the machine's server (fail when unreachable)
 * or =embedded to use the demo warehouse even when a system Postgres is there.
 */
import { Client, type QueryResult, type QueryResultRow } from "pg";
import { startDemoWarehouse } from "../../demo/demo-warehouse";

/** Which database {@link connectTestPostgres} found. */
export type TestPostgresKind = "system" | "embedded";

/** A Postgres to run sync tests against, with an administrator session for fixtures. */
export interface TestPostgres {
  /** The machine's server or the embedded demo warehouse (no TLS, one shared backend). */
  kind: TestPostgresKind;
  /** Address to connect to. */
  host: string;
  /** Port to connect to. */
  port: number;
  /** Superuser name. */
  username: string;
  /** Database the fixtures live in. */
  databaseName: string;
  /** Password to send; undefined for trust auth. */
  password: string | undefined;
  /** Runs SQL on one long-lived superuser session (so locks and transactions persist between calls). */
  admin<R extends QueryResultRow = QueryResultRow>(sql: string, values?: unknown[]): Promise<QueryResult<R>>;
  /** Ends the admin session and stops the embedded warehouse if one was started. */
  close(): Promise<void>;
}

/** The machine's Postgres as the tests expect it. */
const SYSTEM = { host: "127.0.0.1", port: 5432, username: "postgres", databaseName: "postgres" } as const;
/** How long to wait for the machine's Postgres before falling back. */
const PROBE_TIMEOUT_MS = 3_000;

/** A Postgres to run real sync tests against: the machine's 127.0.0.1:5432 (trust auth) when reachable, else the embedded demo warehouse. */
export async function connectTestPostgres(): Promise<TestPostgres> {
  const wanted = process.env.ANALYTICS_TEST_POSTGRES;
  if (wanted !== undefined && wanted !== "" && wanted !== "system" && wanted !== "embedded") {
    throw new Error(`ANALYTICS_TEST_POSTGRES must be "system" or "embedded", not "${wanted}"`);
  }
  if (wanted !== "embedded") {
    const client = adminClient(SYSTEM.host, SYSTEM.port, SYSTEM.username, SYSTEM.databaseName, PROBE_TIMEOUT_MS);
    try {
      await client.connect();
      await client.query("SELECT 1");
      return session("system", { ...SYSTEM, password: undefined }, client, async () => undefined);
    } catch (error) {
      await client.end().catch(() => undefined);
      if (wanted === "system") {
        throw new Error(`ANALYTICS_TEST_POSTGRES=system but ${SYSTEM.host}:${SYSTEM.port} is not usable: ${String(error)}`, { cause: error });
      }
    }
  }
  const warehouse = await startDemoWarehouse({ seed: false });
  const client = adminClient(warehouse.host, warehouse.port, warehouse.username, warehouse.databaseName, PROBE_TIMEOUT_MS);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    await warehouse.close();
    throw error;
  }
  return session("embedded", { ...warehouse, password: warehouse.password }, client, () => warehouse.close());
}

function adminClient(host: string, port: number, user: string, database: string, timeoutMs: number): Client {
  // Explicit everything (ssl false included) so PG* variables of the developer's shell do not redirect the tests.
  const client = new Client({ host, port, user, database, ssl: false, connectionTimeoutMillis: timeoutMs });
  client.on("error", () => undefined);
  return client;
}

function session(
  kind: TestPostgresKind,
  where: { host: string; port: number; username: string; databaseName: string; password: string | undefined },
  client: Client,
  stop: () => Promise<void>,
): TestPostgres {
  let closing: Promise<void> | undefined;
  return {
    kind,
    host: where.host,
    port: where.port,
    username: where.username,
    databaseName: where.databaseName,
    password: where.password,
    admin: <R extends QueryResultRow>(sql: string, values?: unknown[]) => client.query<R>(sql, values),
    close() {
      closing ??= (async () => {
        try {
          await client.end();
        } finally {
          await stop();
        }
      })();
      return closing;
    },
  };
}

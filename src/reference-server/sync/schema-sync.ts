/**
 * The schema-sync job (the API specification's "Side effects"): after a data source is
 * created, connect to the Postgres it declares and read its tables and columns. It never throws;
 * every failure comes back as a readable message without credentials.
 */
import type { Client, ClientConfig } from "pg";
import { redact } from "../../redact";
import { loadPg, PgNotInstalledError } from "./pg-loader";
import type { SyncedTable } from "../state/synced-table";

/** The connection fields of a data source the sync needs; nulls are fields the request left unset. */
export interface SyncTarget {
  /** Host name or address; required. */
  host: string | null;
  /** TCP port; null means {@link DEFAULT_POSTGRES_PORT}; 0 is tried as 0 (and fails), never replaced. */
  port: number | null;
  /** Database; null means the one named like the user (Postgres's own default); an empty name fails. */
  databaseName: string | null;
  /** Role to log in as; required. */
  username: string | null;
  /** Password, sent only when the server asks for one. */
  password: string | undefined;
  /** Whether to require TLS (encrypted, certificate not verified: see {@link syncSchema}). */
  sslEnabled: boolean;
}

/** Either the whole schema or why the sync failed; never a partial schema. */
export type SyncOutcome = { ok: true; tables: SyncedTable[] } | { ok: false; message: string };

/** Limits for one sync. */
export interface SyncOptions {
  /** Time allowed for TCP connect, TLS and authentication; default {@link DEFAULT_CONNECT_TIMEOUT_MS}. */
  connectTimeoutMs?: number;
  /** Time allowed for each catalog statement; default {@link DEFAULT_QUERY_TIMEOUT_MS}. */
  queryTimeoutMs?: number;
}

/** Port used when the data source sets none. */
export const DEFAULT_POSTGRES_PORT = 5432;
/** Default {@link SyncOptions.connectTimeoutMs}. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** Default {@link SyncOptions.queryTimeoutMs}. */
export const DEFAULT_QUERY_TIMEOUT_MS = 30_000;

/** How long `end()` may wait for the server's goodbye before the socket is destroyed. */
const CLOSE_GRACE_MS = 1_000;

/**
 * Relations worth showing to an analyst: tables, partitioned tables (but not their partitions,
 * which the parent already covers), views, materialized views and foreign tables. System schemas
 * are left out: pg_catalog, information_schema and every `pg_*` one (toast, other sessions' temp
 * schemas; users cannot create `pg_*` schemas). pg_catalog rather than information_schema
 * because the latter hides materialized views and anything the role holds no privilege on;
 * privileges are the query-time concern of whoever reads the data. Needs Postgres 10 or later.
 */
const RELATION_FILTER = `
  c.relkind IN ('r', 'p', 'v', 'm', 'f')
  AND NOT c.relispartition
  AND n.nspname <> 'information_schema'
  AND n.nspname !~ '^pg_'`;

const RELATIONS_SQL = `
SELECT c.oid::text AS oid, n.nspname AS schema, c.relname AS name
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE ${RELATION_FILTER}
ORDER BY n.nspname, c.relname`;

const COLUMNS_SQL = `
SELECT a.attrelid::text AS oid, a.attname AS name,
       pg_catalog.format_type(a.atttypid, a.atttypmod) AS type, NOT a.attnotnull AS nullable
FROM pg_catalog.pg_attribute a
JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE ${RELATION_FILTER}
  AND a.attnum > 0
  AND NOT a.attisdropped
ORDER BY n.nspname, c.relname, a.attnum`;

interface RelationRow {
  oid: string;
  schema: string;
  name: string;
}

interface ColumnRow {
  oid: string;
  name: string;
  type: string;
  nullable: boolean;
}

/** Raised from pg's password callback when the server wants a password the data source lacks. */
class MissingPasswordError extends Error {}

/** The step a sync failed in: opening the connection, or reading the catalog. */
type Phase = "connect" | "query";

/** `host:port` of a target, bracketing IPv6 literals. */
function hostPort(target: Pick<SyncTarget, "host" | "port">): string {
  const host = target.host ?? "(no host)";
  const shown = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return `${shown}:${target.port ?? DEFAULT_POSTGRES_PORT}`;
}

/** `host:port/database` of a target, for messages and logs; never includes the password. */
export function describeTarget(target: Pick<SyncTarget, "host" | "port" | "databaseName" | "username">): string {
  return `${hostPort(target)}/${target.databaseName ?? target.username ?? "(default database)"}`;
}

/**
 * Connects to the target's Postgres with one `pg.Client`, reads every relation's columns inside
 * one read-only REPEATABLE READ transaction (one view of the database, so the result is consistent) and
 * returns the whole schema, ordered by schema, table and column position, or `{ ok: false }`.
 *
 * `sslEnabled: true` means TLS is required but the certificate is not verified (libpq's
 * `sslmode=require`): the API offers no way to supply a CA, and most managed Postgres services
 * present certificates from private CAs. A server that refuses TLS yields a message suggesting
 * `sslEnabled: false`.
 *
 * Only values from the target are used: pg's fallbacks to PG* environment variables, ~/.pgpass
 * and its defaults for "unset" values (port 0, empty strings) are bypassed, since the machine
 * running the sync is not the data source's owner (see {@link unusableTarget}).
 */
export async function syncSchema(target: SyncTarget, options: SyncOptions = {}): Promise<SyncOutcome> {
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  for (const [name, value] of [
    ["connectTimeoutMs", connectTimeoutMs],
    ["queryTimeoutMs", queryTimeoutMs],
  ] as const) {
    if (!Number.isSafeInteger(value) || value <= 0) return { ok: false, message: `${name} must be a positive integer` };
  }
  const unusable = unusableTarget(target);
  if (unusable !== undefined) return { ok: false, message: unusable };

  let client: Client | undefined;
  let phase: Phase = "connect";
  try {
    const config = clientConfig(target, target.host!, target.username!, connectTimeoutMs, queryTimeoutMs);
    const pg = loadPg();
    client = withoutPgEnvironment(() => new pg.Client(config));
    // A socket error while no call is pending is emitted as an event; without a listener it
    // would crash the process. Pending calls reject with the same error, so it is handled there.
    client.on("error", () => undefined);
    await client.connect();
    phase = "query";
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    // Server-side too, so a blocked catalog query stops on the server, not only in this client.
    // SET LOCAL rather than a startup parameter, which poolers such as PgBouncer reject.
    await client.query(`SET LOCAL statement_timeout = ${queryTimeoutMs}`);
    const relations = await client.query<RelationRow>(RELATIONS_SQL);
    const columns = await client.query<ColumnRow>(COLUMNS_SQL);
    await client.query("COMMIT");
    return { ok: true, tables: assemble(relations.rows, columns.rows) };
  } catch (error) {
    const message = describeFailure(error, { target, phase, connectTimeoutMs, queryTimeoutMs });
    return { ok: false, message: redact(message, [target.password]) };
  } finally {
    if (client !== undefined) await closeQuietly(client);
  }
}

/**
 * Why the target cannot be synced as stored, or undefined. pg treats 0 and empty strings as
 * "unset" and would quietly use localhost, 5432, $USER or PG* variables instead; a sync must use
 * exactly what the data source says, so those values fail here with words.
 */
export function unusableTarget(target: SyncTarget): string | undefined {
  for (const field of ["host", "username"] as const) {
    if (target[field] === null) return `${field} is not set on the data source`;
    if (target[field] === "") return `${field} is an empty string on the data source; set the ${field === "host" ? "database host" : "role to log in as"}`;
  }
  if (target.databaseName === "") {
    return "databaseName is an empty string on the data source; set a database name, or null for the database named like the user";
  }
  if (target.port === 0) {
    return `could not connect to ${hostPort(target)}: port 0 cannot be connected to (TCP reserves it); set the database's real port`;
  }
  return undefined;
}

/**
 * Builds a pg client with every PG* variable hidden: pg reads PGHOST, PGPORT, PGUSER, PGDATABASE,
 * PGPASSWORD, PGOPTIONS, PGSSLMODE, PGCLIENT_ENCODING and more for anything it considers unset,
 * and it reads them only here, synchronously, so nothing else can observe the gap.
 */
function withoutPgEnvironment<T>(build: () => T): T {
  const hidden = Object.entries(process.env).filter(([name]) => name.startsWith("PG"));
  for (const [name] of hidden) delete process.env[name];
  try {
    return build();
  } finally {
    for (const [name, value] of hidden) process.env[name] = value;
  }
}

function clientConfig(target: SyncTarget, host: string, user: string, connectTimeoutMs: number, queryTimeoutMs: number): ClientConfig {
  const password = target.password;
  return {
    host,
    port: target.port ?? DEFAULT_POSTGRES_PORT,
    user,
    // Null means Postgres's own default, the database named like the user; written out so pg never guesses.
    database: target.databaseName ?? user,
    // A function so pg asks only when the server requests a password and never reads ~/.pgpass.
    password: () => {
      if (password === undefined) throw new MissingPasswordError();
      return password;
    },
    // Explicit `false` so PGSSLMODE cannot switch TLS on or off behind the data source's back.
    ssl: target.sslEnabled ? { rejectUnauthorized: false } : false,
    connectionTimeoutMillis: connectTimeoutMs,
    // Client-side limit as well, for a server or network that stops answering altogether.
    query_timeout: queryTimeoutMs,
    application_name: "pulumi-analytics schema sync",
  };
}

function assemble(relations: RelationRow[], columns: ColumnRow[]): SyncedTable[] {
  const byOid = new Map<string, SyncedTable>();
  const tables = relations.map((row) => {
    const table: SyncedTable = { schema: row.schema, name: row.name, columns: [] };
    byOid.set(row.oid, table);
    return table;
  });
  for (const row of columns) {
    byOid.get(row.oid)?.columns.push({ name: row.name, type: row.type, nullable: row.nullable === true });
  }
  return tables;
}

/** Ends the client, destroying the socket if the server does not finish the goodbye in time. */
async function closeQuietly(client: Client): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.end(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CLOSE_GRACE_MS);
      }),
    ]);
  } catch {
    // The sync's outcome is already decided; a failing goodbye changes nothing.
  } finally {
    clearTimeout(timer);
    client.connection.stream.destroy();
  }
}

interface FailureContext {
  target: SyncTarget;
  phase: Phase;
  connectTimeoutMs: number;
  queryTimeoutMs: number;
}

/** Fields read off whatever pg or node rejected with. */
interface ErrorFields {
  message: string;
  code: string | undefined;
}

function errorFields(error: unknown): ErrorFields {
  if (!(error instanceof Error)) return { message: String(error), code: undefined };
  let code = (error as { code?: unknown }).code;
  // Node's happy-eyeballs connect (several addresses for one name) reports an AggregateError.
  if (code === undefined && error instanceof AggregateError) {
    code = (error.errors[0] as { code?: unknown } | undefined)?.code;
  }
  const message = error.message !== "" ? error.message : error instanceof AggregateError ? String(code) : error.name;
  return { message, code: typeof code === "string" ? code : undefined };
}

const DNS_FAILURES: Record<string, string> = {
  ENOTFOUND: "host name could not be resolved (DNS lookup failed)",
  EAI_AGAIN: "host name could not be resolved (temporary DNS failure)",
  EAI_NONAME: "host name could not be resolved (DNS lookup failed)",
  EAI_FAIL: "host name could not be resolved (DNS lookup failed)",
};

const SOCKET_FAILURES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "connection timed out",
  EADDRNOTAVAIL: "address not available",
};

const CONNECTION_LOST = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED"]);

/** Turns pg's or node's error into one readable sentence (credentials are scrubbed afterwards). */
function describeFailure(error: unknown, context: FailureContext): string {
  const { target, phase } = context;
  const where = hostPort(target);
  const database = target.databaseName ?? target.username ?? "";
  if (error instanceof MissingPasswordError) {
    return `the server at ${where} requested a password but none is set on the data source`;
  }
  if (error instanceof PgNotInstalledError) return error.message;
  const { message, code } = errorFields(error);

  if (message === "The server does not support SSL connections") {
    return `the server at ${where} does not support SSL connections; set sslEnabled: false to connect without TLS (for example to a local Postgres without TLS)`;
  }
  if (message === "timeout expired" || message.startsWith("Connection terminated due to connection timeout")) {
    return `connection to ${where} timed out after ${context.connectTimeoutMs} ms`;
  }
  if (message === "Query read timeout" || (code === "57014" && message.includes("statement timeout"))) {
    return `schema query on ${describeTarget(target)} timed out after ${context.queryTimeoutMs} ms`;
  }
  if (code !== undefined && code in DNS_FAILURES) {
    return `could not connect to ${where}: ${DNS_FAILURES[code]}`;
  }
  if (code !== undefined && code in SOCKET_FAILURES) {
    return `could not connect to ${where}: ${SOCKET_FAILURES[code]}`;
  }
  if (message.startsWith("Connection terminated") || (code !== undefined && CONNECTION_LOST.has(code))) {
    return phase === "connect"
      ? `connection to ${where} was closed unexpectedly while connecting`
      : `connection to ${where} was closed unexpectedly during the schema sync`;
  }
  if (code === "28P01") return `password authentication failed for user "${target.username ?? ""}"`;
  if (code === "3D000") return `database "${database}" does not exist on ${where}`;
  if (code !== undefined && /^[0-9A-Z]{5}$/.test(code)) {
    // Any other server error: its own text is the clearest explanation (e.g. pg_hba rejections).
    return `${describeTarget(target)}: ${message} (SQLSTATE ${code})`;
  }
  if ((code !== undefined && code.startsWith("ERR_SSL")) || code === "EPROTO" || /\b(SSL|TLS)\b/.test(message)) {
    return `TLS connection to ${where} failed: ${message}`;
  }
  return `schema sync against ${describeTarget(target)} failed: ${message}`;
}

import { randomBytes } from "node:crypto";
import * as net from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { SyncedTable } from "../state/synced-table";
import { describeTarget, syncSchema, type SyncOutcome, type SyncTarget } from "./schema-sync";
import { startTcpServer, unusedPort, type TcpTestServer } from "../../../test/support/tcp-server";
import { connectTestPostgres, type TestPostgres } from "../../../test/support/test-postgres";

// ---------------------------------------------------------------------------------------------
// Helpers: fake Postgres servers speaking just enough of the wire protocol, and a cutting proxy.
// ---------------------------------------------------------------------------------------------

const SSL_REQUEST_CODE = 80877103;

/** A message a client sent: the untyped SSLRequest or StartupMessage, or a typed one (p, Q, X...). */
type ClientMessage = { kind: "ssl" } | { kind: "startup"; params: Record<string, string> } | { kind: "typed"; type: string; body: Buffer };

/** One backend message: type byte, int32 length (self-inclusive), body. */
function backendMessage(type: string, body: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, "latin1");
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

function int32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeInt32BE(value);
  return buffer;
}

const authenticationOk = (): Buffer => backendMessage("R", int32(0));
const authenticationCleartextPassword = (): Buffer => backendMessage("R", int32(3));
const readyForQuery = (): Buffer => backendMessage("Z", Buffer.from("I"));

function errorResponse(code: string, message: string, severity = "FATAL"): Buffer {
  const fields = [`S${severity}`, `V${severity}`, `C${code}`, `M${message}`].map((field) => Buffer.from(`${field}\0`, "utf8"));
  return backendMessage("E", Buffer.concat([...fields, Buffer.from([0])]));
}

/** Splits what a client sends into protocol messages. */
function onClientMessages(socket: net.Socket, handle: (message: ClientMessage) => void): void {
  let buffer = Buffer.alloc(0);
  let started = false;
  socket.on("data", (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      if (!started) {
        if (buffer.length < 8 || buffer.length < buffer.readInt32BE(0)) return;
        const length = buffer.readInt32BE(0);
        const code = buffer.readInt32BE(4);
        const body = buffer.subarray(8, length);
        buffer = buffer.subarray(length);
        if (code === SSL_REQUEST_CODE) {
          handle({ kind: "ssl" });
          continue;
        }
        started = true;
        const parts = body.toString("utf8").split("\0");
        const params: Record<string, string> = {};
        for (let i = 0; i + 1 < parts.length && parts[i] !== ""; i += 2) params[parts[i]!] = parts[i + 1]!;
        handle({ kind: "startup", params });
      } else {
        if (buffer.length < 5 || buffer.length < 1 + buffer.readInt32BE(1)) return;
        const length = 1 + buffer.readInt32BE(1);
        handle({ kind: "typed", type: buffer.toString("latin1", 0, 1), body: buffer.subarray(5, length) });
        buffer = buffer.subarray(length);
      }
    }
  });
}

const openServers: TcpTestServer[] = [];
afterEach(async () => {
  await Promise.all(openServers.splice(0).map((server) => server.close()));
});

/** A TCP server on 127.0.0.1, closed after the test. */
async function listen(onSocket: (socket: net.Socket) => void): Promise<TcpTestServer> {
  const handle = await startTcpServer(onSocket);
  openServers.push(handle);
  return handle;
}

/** A fake Postgres whose reply to each client message is scripted by the test. */
function fakePostgres(script: (message: ClientMessage, socket: net.Socket) => void): Promise<TcpTestServer> {
  return listen((socket) => onClientMessages(socket, (message) => script(message, socket)));
}

/**
 * A proxy in front of a real Postgres that counts the server's messages on each connection and,
 * when `cutAt` is set, forwards only half of message number `cutAt` and then kills both sockets.
 */
interface CuttingProxy extends TcpTestServer {
  /** Messages the server sent on the last connection (all of them when nothing was cut). */
  lastMessageCount: number;
  /** Connections the proxy has killed. */
  cuts: number;
}

async function cuttingProxy(upstreamHost: string, upstreamPort: number, cutAt: number | undefined): Promise<CuttingProxy> {
  const state = { lastMessageCount: 0, cuts: 0 };
  const server = await listen((client) => {
    const upstream = net.connect(upstreamPort, upstreamHost);
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.on("data", (chunk) => upstream.write(chunk));
    let pending = Buffer.alloc(0);
    let count = 0;
    state.lastMessageCount = 0;
    upstream.on("data", (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 5 && pending.length >= 1 + pending.readInt32BE(1)) {
        const length = 1 + pending.readInt32BE(1);
        const message = pending.subarray(0, length);
        pending = pending.subarray(length);
        if (count === cutAt) {
          state.cuts += 1;
          client.write(message.subarray(0, Math.ceil(length / 2)), () => {
            client.destroy();
            upstream.destroy();
          });
          return;
        }
        count += 1;
        state.lastMessageCount = count;
        client.write(message);
      }
    });
  });
  return Object.assign(state, server);
}

function expectFailure(outcome: SyncOutcome): string {
  expect(outcome.ok).toBe(false);
  // Never a partial schema alongside the failure.
  expect(Object.keys(outcome).sort()).toEqual(["message", "ok"]);
  return (outcome as { message: string }).message;
}

function tablesOf(outcome: SyncOutcome): SyncedTable[] {
  if (!outcome.ok) throw new Error(`expected a successful sync, got: ${outcome.message}`);
  return outcome.tables;
}

const randomSuffix = (): string => randomBytes(5).toString("hex");

// ---------------------------------------------------------------------------------------------
// Against a real Postgres: the machine's (127.0.0.1:5432) or, without one, the embedded warehouse.
// ---------------------------------------------------------------------------------------------

describe("syncSchema against a real Postgres", () => {
  let db: TestPostgres;
  const schema = `sync_test_${randomSuffix()}`;
  const tempTable = `sync_temp_${randomSuffix()}`;
  let target: SyncTarget;

  beforeAll(async () => {
    db = await connectTestPostgres();
    target = {
      host: db.host,
      port: db.port,
      databaseName: db.databaseName,
      username: db.username,
      password: db.password,
      sslEnabled: false,
    };
    await db.admin(`CREATE SCHEMA ${schema}`);
    await db.admin(`
      CREATE TABLE ${schema}.accounts (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        email text NOT NULL,
        display_name varchar(80),
        balance numeric(12,2) NOT NULL DEFAULT 0,
        tags text[],
        created_at timestamptz NOT NULL DEFAULT now(),
        is_admin boolean
      )`);
    await db.admin(`
      CREATE TABLE ${schema}.events (
        account_id bigint NOT NULL REFERENCES ${schema}.accounts (id),
        obsolete integer,
        payload jsonb,
        happened_on date,
        id uuid
      )`);
    // A dropped column stays in pg_attribute (attisdropped); it must not be reported.
    await db.admin(`ALTER TABLE ${schema}.events DROP COLUMN obsolete`);
    await db.admin(`CREATE TABLE ${schema}."Mixed Case" ("Quoted Col" integer NOT NULL)`);
    await db.admin(`CREATE VIEW ${schema}.account_emails AS SELECT id, email FROM ${schema}.accounts`);
    await db.admin(`CREATE TABLE ${schema}.readings (taken_on date NOT NULL, value double precision) PARTITION BY RANGE (taken_on)`);
    await db.admin(`CREATE TABLE ${schema}.readings_2024 PARTITION OF ${schema}.readings FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')`);
    // Temporary tables live in pg_temp_N schemas and are another session's business.
    await db.admin(`CREATE TEMPORARY TABLE ${tempTable} (x integer)`);
  });

  afterAll(async () => {
    if (db === undefined) return;
    try {
      await db.admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await db.admin(`DROP TABLE IF EXISTS pg_temp.${tempTable}`);
    } finally {
      await db.close();
    }
  });

  it("returns exactly the schema's tables, views and columns with types and nullability, in order", async () => {
    const tables = tablesOf(await syncSchema(target));
    expect(tables.filter((table) => table.schema === schema)).toEqual([
      { schema, name: "Mixed Case", columns: [{ name: "Quoted Col", type: "integer", nullable: false }] },
      {
        schema,
        name: "account_emails",
        columns: [
          { name: "id", type: "bigint", nullable: true },
          { name: "email", type: "text", nullable: true },
        ],
      },
      {
        schema,
        name: "accounts",
        columns: [
          { name: "id", type: "bigint", nullable: false },
          { name: "email", type: "text", nullable: false },
          { name: "display_name", type: "character varying(80)", nullable: true },
          { name: "balance", type: "numeric(12,2)", nullable: false },
          { name: "tags", type: "text[]", nullable: true },
          { name: "created_at", type: "timestamp with time zone", nullable: false },
          { name: "is_admin", type: "boolean", nullable: true },
        ],
      },
      {
        schema,
        name: "events",
        columns: [
          { name: "account_id", type: "bigint", nullable: false },
          { name: "payload", type: "jsonb", nullable: true },
          { name: "happened_on", type: "date", nullable: true },
          { name: "id", type: "uuid", nullable: true },
        ],
      },
      // The partitioned parent only: its partition readings_2024 is left out.
      {
        schema,
        name: "readings",
        columns: [
          { name: "taken_on", type: "date", nullable: false },
          { name: "value", type: "double precision", nullable: true },
        ],
      },
    ]);
  });

  it("leaves out system schemas and temporary tables, and orders everything by schema then name", async () => {
    const tables = tablesOf(await syncSchema(target));
    expect(tables.filter((table) => table.schema === "pg_catalog" || table.schema === "information_schema")).toEqual([]);
    expect(tables.filter((table) => table.schema.startsWith("pg_") || table.name === tempTable)).toEqual([]);
    const keys = tables.map((table) => [table.schema, table.name] as const);
    const sorted = [...keys].sort(([s1, n1], [s2, n2]) => (s1 === s2 ? compareBytes(n1, n2) : compareBytes(s1, s2)));
    expect(keys).toEqual(sorted);
  });

  it("uses the user's name as the database when databaseName is null", async () => {
    // On the machine's Postgres the user `postgres` has a database `postgres`; PGlite serves one database anyway.
    const tables = tablesOf(await syncSchema({ ...target, databaseName: null, username: db.username }));
    expect(tables.some((table) => table.schema === schema && table.name === "accounts")).toBe(true);
  });

  it("returns the whole schema or fails, never part of it, when the connection drops at any point", async () => {
    const baseline = await cuttingProxy(db.host, db.port, undefined);
    const complete = tablesOf(await syncSchema({ ...target, port: baseline.port }));
    expect(complete.filter((table) => table.schema === schema).map((table) => table.name)).toEqual([
      "Mixed Case",
      "account_emails",
      "accounts",
      "events",
      "readings",
    ]);
    const total = baseline.lastMessageCount;
    expect(total).toBeGreaterThan(complete.length);
    // Cut inside ~30 messages spread from the first startup reply to the last reply.
    const samples = 30;
    const cutPoints = [...new Set(Array.from({ length: samples }, (_, i) => Math.round((i * (total - 1)) / (samples - 1))))];
    for (const cutAt of cutPoints) {
      const proxy = await cuttingProxy(db.host, db.port, cutAt);
      const outcome = await syncSchema({ ...target, port: proxy.port });
      expect(proxy.cuts, `cut at message ${cutAt} of ${total}`).toBe(1);
      expect(expectFailure(outcome), `cut at message ${cutAt} of ${total}`).toMatch(
        new RegExp(`^connection to 127\\.0\\.0\\.1:${proxy.port} was closed unexpectedly (while connecting|during the schema sync)$`),
      );
      await proxy.close();
    }
  });

  it("fails clearly when the database does not exist", async () => {
    const missing = `no_such_db_${randomSuffix()}`;
    // PGlite serves one database whatever name is asked, so without a system Postgres a fake
    // server gives Postgres's own reply to an unknown database.
    const port =
      db.kind === "system"
        ? db.port
        : (
            await fakePostgres((message, socket) => {
              if (message.kind === "startup") socket.end(errorResponse("3D000", `database "${missing}" does not exist`));
            })
          ).port;
    const message = expectFailure(await syncSchema({ ...target, port, databaseName: missing }));
    expect(message).toBe(`database "${missing}" does not exist on 127.0.0.1:${port}`);
  });

  it("connects over TLS when the server offers it, or says the server refuses SSL", async () => {
    const { rows } = await db.admin<{ ssl: string }>("SELECT current_setting('ssl') AS ssl");
    const outcome = await syncSchema({ ...target, sslEnabled: true });
    if (rows[0]?.ssl === "on") {
      expect(tablesOf(outcome).some((table) => table.schema === schema && table.name === "events")).toBe(true);
    } else {
      expect(expectFailure(outcome)).toContain("does not support SSL connections; set sslEnabled: false");
    }
  });

  /** Runs `fn` with PG* variables pointing at the test database, so any fallback to them would succeed. */
  async function withDecoyEnvironment<T>(extra: Record<string, string>, fn: () => Promise<T>): Promise<T> {
    const vars: Record<string, string> = {
      PGHOST: db.host,
      PGPORT: String(db.port),
      PGUSER: db.username,
      PGDATABASE: db.databaseName,
      PGPASSWORD: db.password ?? "unused",
      ...extra,
    };
    const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
    Object.assign(process.env, vars);
    try {
      return await fn();
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  }

  it.each([
    ["port 0", { port: 0 }, "could not connect to 127.0.0.1:0: port 0 cannot be connected to (TCP reserves it); set the database's real port"],
    [
      "an empty databaseName",
      { databaseName: "" },
      "databaseName is an empty string on the data source; set a database name, or null for the database named like the user",
    ],
    ["an empty host", { host: "" }, "host is an empty string on the data source; set the database host"],
    ["an empty username", { username: "" }, "username is an empty string on the data source; set the role to log in as"],
  ])("syncs %s as stored, a clear failure, never pg's default or a PG* variable", async (_what, patch, message) => {
    const outcome = await withDecoyEnvironment({}, () => syncSchema({ ...target, host: "127.0.0.1", ...patch }));
    expect(outcome).toEqual({ ok: false, message });
  });

  it("uses only the data source's values: PGOPTIONS, PGDATABASE and the other PG* variables are ignored", async () => {
    // A setting the server rejects at login: read from the environment, it would fail the sync.
    const decoys = { PGOPTIONS: "-c no_such_setting_for_sync_test=1", PGDATABASE: `missing_${randomSuffix()}`, PGSSLMODE: "require", PGAPPNAME: "decoy" };
    const outcome = await withDecoyEnvironment(decoys, () => syncSchema({ ...target, databaseName: null, username: db.username }));
    // A null databaseName is the database named like the user (Postgres's own default), not $PGDATABASE.
    if (db.databaseName === db.username) expect(tablesOf(outcome).some((table) => table.schema === schema)).toBe(true);
    else expect(tablesOf(outcome)).toEqual(expect.any(Array));
  });

  it("defaults a null port to 5432", async () => {
    const outcome = await syncSchema({ ...target, host: "127.0.0.1", port: null });
    if (db.kind === "system") {
      expect(tablesOf(outcome).some((table) => table.schema === schema)).toBe(true);
    } else if (!outcome.ok) {
      // Nothing on 5432 (why the embedded warehouse is in use); the message names the port tried.
      expect(outcome.message).toBe("could not connect to 127.0.0.1:5432: connection refused");
    } else {
      // ANALYTICS_TEST_POSTGRES=embedded on a machine with a Postgres on 5432: that one was reached, not the warehouse.
      expect(outcome.tables.some((table) => table.schema === schema)).toBe(false);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Failures that need no database.
// ---------------------------------------------------------------------------------------------

const base: SyncTarget = {
  host: "127.0.0.1",
  port: 5432,
  databaseName: "app",
  username: "alice",
  password: "s3cr3t-Pa55word",
  sslEnabled: false,
};

describe("syncSchema failures", () => {
  it("refuses a target without host or username before connecting", async () => {
    expect(await syncSchema({ ...base, host: null })).toEqual({ ok: false, message: "host is not set on the data source" });
    expect(await syncSchema({ ...base, username: null })).toEqual({ ok: false, message: "username is not set on the data source" });
  });

  it("refuses timeouts that are not positive integers", async () => {
    expect(await syncSchema(base, { connectTimeoutMs: 0 })).toEqual({ ok: false, message: "connectTimeoutMs must be a positive integer" });
    expect(await syncSchema(base, { queryTimeoutMs: 1.5 })).toEqual({ ok: false, message: "queryTimeoutMs must be a positive integer" });
  });

  it("reports a refused connection", async () => {
    const port = await unusedPort();
    expect(await syncSchema({ ...base, port })).toEqual({
      ok: false,
      message: `could not connect to 127.0.0.1:${port}: connection refused`,
    });
  });

  it("reports a host name that does not resolve", async () => {
    // .invalid is reserved (RFC 2606): it never resolves.
    const host = `sync-test-${randomSuffix()}.invalid`;
    const message = expectFailure(await syncSchema({ ...base, host }));
    expect(message).toMatch(new RegExp(`^could not connect to ${host.replace(/\./g, "\\.")}:5432: host name could not be resolved`));
  });

  it("reports a server that refuses SSL and suggests sslEnabled: false", async () => {
    const server = await fakePostgres((message, socket) => {
      if (message.kind === "ssl") socket.write("N");
    });
    expect(await syncSchema({ ...base, port: server.port, sslEnabled: true })).toEqual({
      ok: false,
      message: `the server at 127.0.0.1:${server.port} does not support SSL connections; set sslEnabled: false to connect without TLS (for example to a local Postgres without TLS)`,
    });
  });

  it("times out a server that accepts the connection and never answers", async () => {
    const server = await listen(() => undefined);
    expect(await syncSchema({ ...base, port: server.port }, { connectTimeoutMs: 200 })).toEqual({
      ok: false,
      message: `connection to 127.0.0.1:${server.port} timed out after 200 ms`,
    });
  });

  it("times out a catalog query the server never answers", async () => {
    const server = await fakePostgres((message, socket) => {
      if (message.kind === "startup") socket.write(Buffer.concat([authenticationOk(), readyForQuery()]));
    });
    expect(await syncSchema({ ...base, port: server.port }, { queryTimeoutMs: 200 })).toEqual({
      ok: false,
      message: `schema query on 127.0.0.1:${server.port}/app timed out after 200 ms`,
    });
  });

  it("reports the server's statement timeout as a timeout", async () => {
    const server = await fakePostgres((message, socket) => {
      if (message.kind === "startup") socket.write(Buffer.concat([authenticationOk(), readyForQuery()]));
      if (message.kind === "typed" && message.type === "Q") {
        socket.write(Buffer.concat([errorResponse("57014", "canceling statement due to statement timeout", "ERROR"), readyForQuery()]));
      }
    });
    expect(await syncSchema({ ...base, port: server.port }, { queryTimeoutMs: 1234 })).toEqual({
      ok: false,
      message: `schema query on 127.0.0.1:${server.port}/app timed out after 1234 ms`,
    });
  });

  it("connects as the target's user to its database (the user's name when null), reads in one read-only transaction and says goodbye", async () => {
    const startups: Array<Record<string, string>> = [];
    const queries: string[] = [];
    const seen: string[] = [];
    let closed: Promise<void> | undefined;
    const server = await fakePostgres((message, socket) => {
      if (message.kind === "startup") {
        startups.push(message.params);
        closed = new Promise((resolve) => socket.once("close", () => resolve()));
        socket.write(Buffer.concat([authenticationOk(), readyForQuery()]));
      }
      if (message.kind !== "typed") return;
      seen.push(message.type);
      if (message.type === "Q") {
        queries.push(message.body.toString("utf8").replace(/\0$/, ""));
        // Every statement succeeds with no rows: an empty database.
        socket.write(Buffer.concat([backendMessage("C", Buffer.from("SELECT 0\0")), readyForQuery()]));
      }
    });
    const outcome = await syncSchema({ ...base, port: server.port, databaseName: null }, { queryTimeoutMs: 4321 });
    expect(outcome).toEqual({ ok: true, tables: [] });
    expect(startups).toEqual([expect.objectContaining({ user: "alice", database: "alice" })]);
    // A startup parameter would be refused by poolers; the timeout is set inside the transaction.
    expect(startups[0]).not.toHaveProperty("statement_timeout");
    expect(queries).toEqual([
      "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
      "SET LOCAL statement_timeout = 4321",
      expect.stringContaining("FROM pg_catalog.pg_class c"),
      expect.stringContaining("FROM pg_catalog.pg_attribute a"),
      "COMMIT",
    ]);
    await closed;
    expect(seen.at(-1)).toBe("X");
  });

  it("closes the connection after a failure too, and passes on other server errors", async () => {
    let closed: Promise<void> | undefined;
    const server = await fakePostgres((message, socket) => {
      if (message.kind === "startup") {
        closed = new Promise((resolve) => socket.once("close", () => resolve()));
        socket.write(Buffer.concat([authenticationOk(), readyForQuery()]));
      }
      if (message.kind === "typed" && message.type === "Q") {
        socket.write(Buffer.concat([errorResponse("XX000", "stop here", "ERROR"), readyForQuery()]));
      }
    });
    const message = expectFailure(await syncSchema({ ...base, port: server.port }));
    expect(message).toBe(`127.0.0.1:${server.port}/app: stop here (SQLSTATE XX000)`);
    // Resolves only once the client has closed its connection.
    await closed;
  });

  it("says a password is needed when the server asks for one and the data source has none", async () => {
    const server = await fakePostgres((message, socket) => {
      if (message.kind === "startup") socket.write(authenticationCleartextPassword());
    });
    expect(await syncSchema({ ...base, port: server.port, password: undefined })).toEqual({
      ok: false,
      message: `the server at 127.0.0.1:${server.port} requested a password but none is set on the data source`,
    });
  });
});

// The machine's Postgres trusts every local connection (pg_hba.conf: `host all all 127.0.0.1/32
// trust`), so a wrong password cannot fail there; a fake server plays Postgres's part instead.
describe("syncSchema never reveals credentials", () => {
  it("reports a wrong password without the password, even when the server's message contains it", async () => {
    const received: string[] = [];
    const server = await fakePostgres((message, socket) => {
      if (message.kind === "startup") socket.write(authenticationCleartextPassword());
      if (message.kind === "typed" && message.type === "p") {
        const password = message.body.toString("utf8").replace(/\0$/, "");
        received.push(password);
        socket.end(errorResponse("28P01", `password authentication failed for user "alice" (password "${password}" is wrong)`));
      }
    });
    const message = expectFailure(await syncSchema({ ...base, port: server.port }));
    // The password really went over the wire, so the server could have echoed it.
    expect(received).toEqual([base.password]);
    expect(message).toBe('password authentication failed for user "alice"');
    expect(message).not.toContain(base.password);
  });

  it("scrubs the password and connection-string credentials from any other server error", async () => {
    const password = base.password!;
    const server = await fakePostgres((message, socket) => {
      if (message.kind === "startup") socket.write(authenticationCleartextPassword());
      if (message.kind === "typed" && message.type === "p") {
        socket.end(
          errorResponse(
            "XX000",
            `proxy could not reach postgres://alice:${encodeURIComponent(password)}@10.0.0.7:5432/app (password=${password}, raw ${password})`,
          ),
        );
      }
    });
    const message = expectFailure(await syncSchema({ ...base, port: server.port, password }));
    expect(message).not.toContain(password);
    expect(message).not.toContain(encodeURIComponent(password));
    expect(message).toBe(
      `127.0.0.1:${server.port}/app: proxy could not reach postgres://alice:[redacted]@10.0.0.7:5432/app (password=[redacted], raw [redacted]) (SQLSTATE XX000)`,
    );
  });

  it("describeTarget shows host, port and database but no password", () => {
    expect(describeTarget(base)).toBe("127.0.0.1:5432/app");
    expect(describeTarget({ host: "::1", port: null, databaseName: null, username: "bob" })).toBe("[::1]:5432/bob");
    expect(JSON.stringify(describeTarget({ ...base }))).not.toContain(base.password);
  });
});

/** Byte-wise (C collation) comparison, the order Postgres sorts `name` values in. */
function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

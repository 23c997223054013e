import { parseArgs } from "node:util";
import { KINDS } from "../kinds";
import { CONSOLE_PATH } from "./control/console";
import { INSPECTION_PREFIX } from "./control/inspection";
import { OPENAPI_PATH, openApiJson } from "./control/openapi";
import { assertUserName, startReferenceServer, type ReferenceServer, type ReferenceServerOptions } from "./server";
import { DEFAULT_KEY_PREFIX, assertKeyPrefix, digestApiKey, generateApiKey } from "./state/auth";
import { StateFile } from "./state/state-file";
import { PG_MISSING_MESSAGE, pgInstalled } from "./sync/pg-loader";

/** Port of the standalone server unless `--port` says otherwise. */
export const DEFAULT_CLI_PORT = 8080;

/** The command-line help. */
export const USAGE = `Usage:
  analytics-reference-server [--port 8080] [--host 127.0.0.1] [--state file.json] [--inspection]
                             [--key-prefix analytics] [--bootstrap-user alice]...
  analytics-reference-server mint-key --user alice --state file.json [--key-prefix analytics]
  analytics-reference-server openapi
  analytics-reference-server --help

Runs the reference server of the analytics public API (${Object.values(KINDS)
  .map((spec) => `POST ${spec.endpoint.pattern}`)
  .join(",\n")}), logging one line per request.

  --port            TCP port (default ${DEFAULT_CLI_PORT}; 0 picks a free one)
  --host            interface to listen on (default 127.0.0.1)
  --state           JSON file holding organizations, data sources and API key digests across
                    restarts (credentials are never written to it); in memory when omitted
  --inspection      serve the non-public ${INSPECTION_PREFIX}/ routes (state, request counts, faults)
                    and the console page at ${CONSOLE_PATH}; no key needed: anyone who can
                    reach the port sees the state and can switch faults
  --key-prefix      service prefix of API keys: <prefix>_key_<32 characters> (default ${DEFAULT_KEY_PREFIX})
  --bootstrap-user  mint a key for this user at start and print it once (repeatable)

mint-key adds a key for --user to the state file and prints it once; the file keeps only its
SHA-256 digest. Stop a server using the same state file first, or it will overwrite the file.

openapi prints the OpenAPI 3.1 document of the public API, which the server also serves at
GET ${OPENAPI_PATH}.
`;

/** Where the CLI writes. */
export interface CliOutput {
  /** Normal output: URLs, keys, request lines. */
  stdout: (text: string) => void;
  /** Notices and errors. */
  stderr: (text: string) => void;
}

/** What {@link runCli} ended with: an exit code, or a server left running. */
export type CliResult = { kind: "exit"; code: number } | { kind: "serving"; server: ReferenceServer };

/** Adds a new key for `userName` to the state file at `statePath` (created if missing) and returns it. */
export async function mintKeyIntoStateFile(statePath: string, userName: string, keyPrefix: string = DEFAULT_KEY_PREFIX): Promise<string> {
  assertUserName(userName);
  const file = await StateFile.open(statePath, new Date());
  const key = generateApiKey(keyPrefix);
  file.store.addApiKey({ digest: digestApiKey(key), userName, createdAt: new Date().toISOString() });
  // Closing writes the whole state file, the new digest included, and removes the journal.
  await file.close();
  return key;
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new RangeError(`--port must be an integer from 0 to 65535, got ${JSON.stringify(text)}`);
  return port;
}

/**
 * Runs the command line: `--help`, `mint-key`, or the server (left running in the result; the
 * caller decides when to close it). Bad usage ends with code 2, failures with code 1.
 */
export async function runCli(argv: readonly string[], out: CliOutput): Promise<CliResult> {
  const [first, ...rest] = argv;
  if (first === "openapi" && rest.length === 0) {
    out.stdout(openApiJson());
    return { kind: "exit", code: 0 };
  }
  const minting = first === "mint-key";
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    values = parseArgs({
      args: minting ? rest : [...argv],
      strict: true,
      allowPositionals: false,
      options: minting
        ? { user: { type: "string" }, state: { type: "string" }, "key-prefix": { type: "string" }, help: { type: "boolean", short: "h" } }
        : {
            port: { type: "string" },
            host: { type: "string" },
            state: { type: "string" },
            inspection: { type: "boolean" },
            "key-prefix": { type: "string" },
            "bootstrap-user": { type: "string", multiple: true },
            help: { type: "boolean", short: "h" },
          },
    }).values;
  } catch (err) {
    out.stderr(`${(err as Error).message}\n\n${USAGE}`);
    return { kind: "exit", code: 2 };
  }
  if (values.help === true) {
    out.stdout(USAGE);
    return { kind: "exit", code: 0 };
  }
  const keyPrefix = (values["key-prefix"] as string | undefined) ?? DEFAULT_KEY_PREFIX;
  const statePath = values.state as string | undefined;

  try {
    assertKeyPrefix(keyPrefix);
    if (minting) {
      const user = values.user as string | undefined;
      if (user === undefined || statePath === undefined) {
        out.stderr(`mint-key needs --user and --state (a key kept nowhere could never be used).\n\n${USAGE}`);
        return { kind: "exit", code: 2 };
      }
      const key = await mintKeyIntoStateFile(statePath, user, keyPrefix);
      out.stderr(`API key for ${user} (shown once; ${statePath} keeps only its digest):\n`);
      out.stdout(`${key}\n`);
      return { kind: "exit", code: 0 };
    }

    const options: ReferenceServerOptions = {
      port: values.port === undefined ? DEFAULT_CLI_PORT : parsePort(values.port as string),
      keyPrefix,
      inspection: values.inspection === true,
      bootstrapUsers: (values["bootstrap-user"] as string[] | undefined) ?? [],
      logger: (line) => out.stdout(`${line}\n`),
    };
    if (values.host !== undefined) options.host = values.host as string;
    if (statePath !== undefined) options.statePath = statePath;
    const server = await startReferenceServer(options);
    out.stdout(`Reference server listening on ${server.url}\n`);
    if (options.inspection) out.stdout(`Inspection surface: ${server.url}${INSPECTION_PREFIX}/\n`);
    if (server.consoleUrl !== undefined) out.stdout(`Console: ${server.consoleUrl}\n`);
    out.stdout(statePath === undefined ? "State: in memory\n" : `State file: ${statePath}\n`);
    for (const [user, key] of Object.entries(server.apiKeys)) out.stdout(`API key for ${user} (shown once): ${key}\n`);
    if (!pgInstalled()) out.stderr(`Note: ${PG_MISSING_MESSAGE}; until then every data source's schema sync fails.\n`);
    return { kind: "serving", server };
  } catch (err) {
    out.stderr(`${err instanceof Error ? err.message : String(err)}\n`);
    return { kind: "exit", code: err instanceof RangeError ? 2 : 1 };
  }
}

/** Something that delivers process signals (the process, or a stand-in in tests). */
export interface SignalSource {
  /** Registers a signal handler. */
  once(signal: "SIGINT" | "SIGTERM", listener: () => void): unknown;
}

/**
 * Closes `server` on the first SIGINT or SIGTERM and resolves with the exit code: 0 after a
 * clean close, 1 if closing failed.
 */
export function closeOnSignal(server: ReferenceServer, signals: SignalSource, out: CliOutput): Promise<number> {
  return new Promise((resolve) => {
    let stopping = false;
    const stop = (signal: string): void => {
      if (stopping) return;
      stopping = true;
      out.stderr(`${signal} received, shutting down\n`);
      server.close().then(
        () => resolve(0),
        (err: unknown) => {
          out.stderr(`shutdown failed: ${err instanceof Error ? err.name : "error"}\n`);
          resolve(1);
        },
      );
    };
    signals.once("SIGINT", () => stop("SIGINT"));
    signals.once("SIGTERM", () => stop("SIGTERM"));
  });
}

import * as http from "node:http";
import { parseArgs } from "node:util";
import { KINDS, providerConfigSpec } from "../kinds";
import { schemaVersion } from "../native/package-schema";
import { ANSWER_PROFILE_NAMES, DEFAULT_ANSWER_PROFILE, isAnswerProfile, type AnswerProfile } from "./control/answer-profiles";
import { CONSOLE_PATH } from "./control/console";
import { INSPECTION_PREFIX } from "./control/inspection";
import { OPENAPI_PATH, openApiJson } from "./control/openapi";
import { READY_PATH } from "./control/ready";
import { ALLOWED_HOSTS_ENV, allowedHostsFromEnv, assertAllowedHostName } from "./http/allowed-hosts";
import { assertUserName, startReferenceServer, type ReferenceServer, type ReferenceServerOptions } from "./server";
import { DEFAULT_KEY_PREFIX, assertKeyPrefix, digestApiKey, generateApiKey, isApiKeyShaped } from "./state/auth";
import { StateFile } from "./state/state-file";
import { PG_MISSING_MESSAGE, pgInstalled } from "./sync/pg-loader";

/** Port of the standalone server unless `--port` says otherwise. */
export const DEFAULT_CLI_PORT = 8080;

/** The environment variable holding the API key `--key-user` registers: the one the provider reads its key from. */
export const API_KEY_ENV = providerConfigSpec.apiKey.env;

/** How long `ready` waits for an answer. */
export const READY_TIMEOUT_MS = 3000;

/** The command-line help. */
export const USAGE = `Usage:
  analytics-reference-server [--port 8080] [--host 127.0.0.1] [--state file.json] [--inspection]
                             [--allowed-host name]... [--key-prefix analytics]
                             [--bootstrap-user alice]... [--key-user ci] [--answer-profile spec]
  analytics-reference-server mint-key --user alice --state file.json [--key-prefix analytics]
  analytics-reference-server ready [--url http://127.0.0.1:${DEFAULT_CLI_PORT}]
  analytics-reference-server openapi
  analytics-reference-server --version
  analytics-reference-server --help

Runs the reference server of the analytics public API (${Object.values(KINDS)
  .map((spec) => `POST ${spec.endpoint.pattern}`)
  .join(",\n")}), logging one line per request.

  --port            TCP port (default ${DEFAULT_CLI_PORT}; 0 picks a free one)
  --host            interface to listen on (default 127.0.0.1); a name given here is also served
  --allowed-host    a host name the server answers to, e.g. a container service name (repeatable;
                    ${ALLOWED_HOSTS_ENV}=name,name adds more); besides these and --host, only
                    localhost, *.localhost and IP addresses are served: any other Host header gets
                    403, so that a web page cannot reach the server through DNS rebinding
  --state           JSON file holding organizations, data sources and API key digests across
                    restarts (credentials are never written to it); in memory when omitted
  --inspection      serve the non-public ${INSPECTION_PREFIX}/ routes (state, request counts, faults)
                    and the console page at ${CONSOLE_PATH}; no key needed: anyone who can
                    reach the port sees the state and can switch faults
  --key-prefix      service prefix of API keys: <prefix>_key_<32 characters> (default ${DEFAULT_KEY_PREFIX})
  --bootstrap-user  mint a key for this user at start and print it once (repeatable)
  --key-user        with ${API_KEY_ENV} set, register that key for this user (its digest, once);
                    without it, mint a key and print it once when the user has none yet
  --answer-profile  how create answers look, of the ways the spec allows: ${ANSWER_PROFILE_NAMES.join(", ")}
                    (default ${DEFAULT_ANSWER_PROFILE}); with --inspection, POST ${INSPECTION_PREFIX}/faults
                    {"answerProfile": …} switches it, and a reset returns to ${DEFAULT_ANSWER_PROFILE}
  --version         print the version and the Node.js version

mint-key adds a key for --user to the state file and prints it once; the file keeps only its
SHA-256 digest. Stop a server using the same state file first, or it will overwrite the file.

ready exits 0 when the server at --url answers GET ${READY_PATH} with 200 within
${READY_TIMEOUT_MS / 1000} seconds, 1 otherwise with the reason on stderr (a container's health check).

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

const SERVE_OPTIONS = {
  port: { type: "string" },
  host: { type: "string" },
  "allowed-host": { type: "string", multiple: true },
  state: { type: "string" },
  inspection: { type: "boolean" },
  "key-prefix": { type: "string" },
  "bootstrap-user": { type: "string", multiple: true },
  "key-user": { type: "string" },
  "answer-profile": { type: "string" },
  version: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

const MINT_OPTIONS = { user: { type: "string" }, state: { type: "string" }, "key-prefix": { type: "string" }, help: { type: "boolean", short: "h" } } as const;

type Values = Record<string, string | boolean | string[] | undefined>;

/** `<version> (Node.js <version>)`: the package version, as the plugin reports it (compiled in, not read from a file). */
export function versionLine(): string {
  return `${schemaVersion()} (Node.js ${process.version})\n`;
}

/**
 * Runs the command line: `--help`, `--version`, `openapi`, `ready`, `mint-key`, or the server
 * (left running in the result; the caller decides when to close it). Bad usage ends with code 2,
 * failures with code 1. `env` supplies `ANALYTICS_ALLOWED_HOSTS` and `ANALYTICS_API_KEY`.
 */
export async function runCli(argv: readonly string[], out: CliOutput, env: NodeJS.ProcessEnv = process.env): Promise<CliResult> {
  const [first, ...rest] = argv;
  if (first === "openapi" && rest.length === 0) {
    out.stdout(openApiJson());
    return { kind: "exit", code: 0 };
  }
  if (first === "ready") return { kind: "exit", code: await runReady(rest, out) };
  const minting = first === "mint-key";
  let values: Values;
  try {
    const args = minting ? rest : [...argv];
    values = minting
      ? parseArgs({ args, strict: true, allowPositionals: false, options: MINT_OPTIONS }).values
      : parseArgs({ args, strict: true, allowPositionals: false, options: SERVE_OPTIONS }).values;
  } catch (err) {
    out.stderr(`${(err as Error).message}\n\n${USAGE}`);
    return { kind: "exit", code: 2 };
  }
  if (values.help === true) {
    out.stdout(USAGE);
    return { kind: "exit", code: 0 };
  }
  if (values.version === true) {
    out.stdout(versionLine());
    return { kind: "exit", code: 0 };
  }
  try {
    assertKeyPrefix(keyPrefixOf(values));
    return minting ? await runMintKey(values, out) : await serve(values, out, env);
  } catch (err) {
    out.stderr(`${err instanceof Error ? err.message : String(err)}\n`);
    return { kind: "exit", code: err instanceof RangeError ? 2 : 1 };
  }
}

const keyPrefixOf = (values: Values): string => (values["key-prefix"] as string | undefined) ?? DEFAULT_KEY_PREFIX;

async function runMintKey(values: Values, out: CliOutput): Promise<CliResult> {
  const user = values.user as string | undefined;
  const statePath = values.state as string | undefined;
  if (user === undefined || statePath === undefined) {
    out.stderr(`mint-key needs --user and --state (a key kept nowhere could never be used).\n\n${USAGE}`);
    return { kind: "exit", code: 2 };
  }
  const key = await mintKeyIntoStateFile(statePath, user, keyPrefixOf(values));
  out.stderr(`API key for ${user} (shown once; ${statePath} keeps only its digest):\n`);
  out.stdout(`${key}\n`);
  return { kind: "exit", code: 0 };
}

/** `--allowed-host` names and {@link ALLOWED_HOSTS_ENV}'s, each checked under the name it came from. */
function allowedHostNames(values: Values, env: NodeJS.ProcessEnv): string[] {
  const flags = (values["allowed-host"] as string[] | undefined) ?? [];
  const fromEnv = allowedHostsFromEnv(env[ALLOWED_HOSTS_ENV]);
  for (const name of flags) assertAllowedHostName(name, "--allowed-host");
  for (const name of fromEnv) assertAllowedHostName(name, `each name of ${ALLOWED_HOSTS_ENV}`);
  return [...flags, ...fromEnv];
}

/** `--answer-profile`, checked: a RangeError naming the profiles there are. */
function answerProfileOf(values: Values): AnswerProfile | undefined {
  const name = values["answer-profile"] as string | undefined;
  if (name === undefined || isAnswerProfile(name)) return name;
  throw new RangeError(`--answer-profile must be one of ${ANSWER_PROFILE_NAMES.join(", ")}, got ${JSON.stringify(name)}`);
}

/** `--key-user` with {@link API_KEY_ENV}'s key when set (checked here so that the error names the variable, never the value). */
function keyUserOf(values: Values, env: NodeJS.ProcessEnv): ReferenceServerOptions["keyUser"] {
  const userName = values["key-user"] as string | undefined;
  if (userName === undefined) return undefined;
  assertUserName(userName);
  const apiKey = env[API_KEY_ENV];
  if (apiKey === undefined || apiKey === "") return { userName };
  const prefix = keyPrefixOf(values);
  if (!isApiKeyShaped(apiKey, prefix)) {
    throw new RangeError(
      `${API_KEY_ENV} must be an API key of this server: ${prefix}_key_ followed by 32 letters and digits (the value is not shown); unset it to have a key minted for ${userName}`,
    );
  }
  return { userName, apiKey };
}

async function serve(values: Values, out: CliOutput, env: NodeJS.ProcessEnv): Promise<CliResult> {
  const statePath = values.state as string | undefined;
  const options: ReferenceServerOptions = {
    port: values.port === undefined ? DEFAULT_CLI_PORT : parsePort(values.port as string),
    keyPrefix: keyPrefixOf(values),
    inspection: values.inspection === true,
    bootstrapUsers: (values["bootstrap-user"] as string[] | undefined) ?? [],
    allowedHosts: allowedHostNames(values, env),
    logger: (line) => out.stdout(`${line}\n`),
  };
  const keyUser = keyUserOf(values, env);
  if (keyUser !== undefined) options.keyUser = keyUser;
  const profile = answerProfileOf(values);
  if (profile !== undefined) options.faults = { answerProfile: profile };
  if (values.host !== undefined) options.host = values.host as string;
  if (statePath !== undefined) options.statePath = statePath;
  const server = await startReferenceServer(options);
  if (profile !== undefined) out.stdout(`Answer profile: ${profile}\n`);
  out.stdout(`Reference server listening on ${server.url}\n`);
  if (options.inspection) out.stdout(`Inspection surface: ${server.url}${INSPECTION_PREFIX}/\n`);
  if (server.consoleUrl !== undefined) out.stdout(`Console: ${server.consoleUrl}\n`);
  out.stdout(statePath === undefined ? "State: in memory\n" : `State file: ${statePath}\n`);
  for (const [user, key] of Object.entries(server.apiKeys)) out.stdout(`API key for ${user} (shown once): ${key}\n`);
  if (!pgInstalled()) out.stderr(`Note: ${PG_MISSING_MESSAGE}; until then every data source's schema sync fails.\n`);
  return { kind: "serving", server };
}

/**
 * `ready [--url <base>]`: 0 when `<base>/_reference/ready` answers 200 within
 * {@link READY_TIMEOUT_MS}, 1 otherwise (bad usage included: health checks know only 0 and 1),
 * with one line on stderr saying why.
 */
export async function runReady(args: readonly string[], out: CliOutput): Promise<number> {
  let target: URL;
  try {
    const { values } = parseArgs({ args: [...args], strict: true, allowPositionals: false, options: { url: { type: "string" } } });
    target = new URL(READY_PATH, values.url ?? `http://127.0.0.1:${DEFAULT_CLI_PORT}`);
    if (target.protocol !== "http:") throw new RangeError(`--url must be an http:// address, got ${JSON.stringify(values.url)}`);
  } catch (err) {
    out.stderr(`not ready: ${(err as Error).message} (usage: analytics-reference-server ready [--url http://127.0.0.1:${DEFAULT_CLI_PORT}])\n`);
    return 1;
  }
  const answer = await statusOf(target);
  if (answer === 200) return 0;
  out.stderr(typeof answer === "number" ? `not ready: ${target.href} answered ${answer}\n` : `not ready: ${target.href} could not be reached (${answer})\n`);
  return 1;
}

/** The status `url` answers a GET with on a connection of its own, or why there is none (an error code, or the timeout). */
function statusOf(url: URL): Promise<number | string> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: READY_TIMEOUT_MS }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("timeout", () => req.destroy(Object.assign(new Error("timeout"), { code: `no answer within ${READY_TIMEOUT_MS} ms` })));
    req.on("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
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

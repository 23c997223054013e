/**
 * The server scenario's load: create-data-source throughput and latency of the reference server
 * against Prism, its peer, and a bare node:http server, the limit, with autocannon.
 */
import autocannon from "autocannon";
import * as path from "node:path";
import { expectCreated, spawnGroup, type Spawned } from "./spawned";
import { PRISM_FLAGS, startPrism, type PrismServer } from "./prism";

/** One autocannon run: mean requests per second, median and 99th-percentile latency in ms, and connection errors, timeouts and non-2xx answers (all must be 0). */
export interface LoadRun {
  rps: number;
  p50: number;
  p99: number;
  failures: number;
}

/** The load at one connection count: one run per repetition of each server (Prism's only at the counts it runs at). */
export interface LoadComparison {
  connections: number;
  reference: LoadRun[];
  bare: LoadRun[];
  prism?: LoadRun[];
}

/** Everything the load measured: seconds per run, each connection count, the bodies' sizes (Prism answers its static example) and the exact commands. */
export interface HttpResult {
  durationS: number;
  comparisons: LoadComparison[];
  requestBytes: number;
  responseBytes: number;
  prismResponseBytes?: number;
  prismCommand?: string;
  command: string;
}

/** The create-data-source body used everywhere: the same fields the Pulumi fixture declares. */
export const DATA_SOURCE_BODY = {
  type: "direct",
  dialect: "POSTGRES",
  displayName: "Bench warehouse",
  host: "127.0.0.1",
  port: 5432,
  databaseName: "analytics",
  username: "bench_reader",
  password: "bench-password-not-a-secret",
  sslEnabled: false,
  sshEnabled: false,
} as const;

/** A create target on a running server: the create-data-source URL in an organization of the bench user, the headers, {@link DATA_SOURCE_BODY} serialized. */
interface CreateTarget {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A server of bench/servers/ listening on 127.0.0.1: where, and the bench user's key (empty for the bare one). */
interface ServerChild extends Spawned {
  url: string;
  apiKey: string;
}

/** Starts bench/servers/<name>.js in a process of its own (so it and the load generator each get a core) and waits for its ready line. */
async function startServerChild(name: "reference" | "bare", env: NodeJS.ProcessEnv = {}): Promise<ServerChild> {
  const child = spawnGroup(process.execPath, [path.join(__dirname, "..", "servers", `${name}.js`)], { ...env, ...extraFlags() });
  const ready = JSON.parse((await child.stdoutMatch(/^ready (.+)$/m))[1]!) as { url: string; apiKey: string };
  return { ...child, ...ready };
}

/** Node.js flags for the server children, e.g. `--cpu-prof` via BENCH_SERVER_NODE_OPTIONS. */
const extraFlags = (): NodeJS.ProcessEnv => (process.env.BENCH_SERVER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVER_NODE_OPTIONS } : {});

/** Creates an organization on `server` and returns where to create data sources in it. */
async function createTarget(server: ServerChild): Promise<CreateTarget> {
  const headers = { authorization: `Bearer ${server.apiKey}`, "content-type": "application/json", accept: "application/json" };
  const created = await expectCreated(
    { url: `${server.url}/api/public/organizations`, headers, body: JSON.stringify({ name: "Bench" }) },
    "the bench organization's create",
  );
  const orgId = (JSON.parse(created) as { data: { id: string } }).data.id;
  return { url: `${server.url}/api/public/organizations/${orgId}/data-sources`, headers, body: JSON.stringify(DATA_SOURCE_BODY) };
}

async function load(target: CreateTarget, connections: number, duration: number): Promise<LoadRun> {
  const result = await autocannon({ url: target.url, method: "POST", headers: target.headers, body: target.body, connections, duration, timeout: 10 });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.errors + result.timeouts + result.non2xx,
  };
}

/** The servers loaded, each with its create target (same path, headers and body). */
type Side = "reference" | "bare" | "prism";
type Loaded = Record<Side, CreateTarget>;

/** Options of {@link runHttpScenario}. */
export interface HttpOptions {
  /** Connection counts for the reference and bare servers. */
  connections: number[];
  /** Connection counts at which Prism runs too. */
  peerConnections: number[];
  /** Repetitions. */
  reps: number;
  /** Seconds per autocannon run. */
  durationS: number;
  /** The OpenAPI document Prism serves. */
  document: string;
}

/** Each repetition runs the sides back to back in ABC, then CBA order (alternating with the connection count too). */
async function measure(loaded: Loaded, options: HttpOptions, log: (line: string) => void): Promise<LoadComparison[]> {
  const comparisons: LoadComparison[] = options.connections.map((connections) => ({
    connections,
    reference: [],
    bare: [],
    ...(options.peerConnections.includes(connections) ? { prism: [] } : {}),
  }));
  for (let rep = 0; rep < options.reps; rep++) {
    for (const comparison of comparisons) {
      const sides: Side[] = comparison.prism ? ["reference", "prism", "bare"] : ["reference", "bare"];
      if ((rep + comparison.connections) % 2 === 1) sides.reverse();
      for (const side of sides) {
        const run = await load(loaded[side], comparison.connections, options.durationS);
        comparison[side]!.push(run);
        log(
          `load c=${comparison.connections} rep ${rep + 1}/${options.reps} ${side}: ${run.rps.toFixed(0)} req/s, p50 ${run.p50} ms, p99 ${run.p99} ms${run.failures ? `, ${run.failures} FAILURES` : ""}`,
        );
      }
    }
  }
  return comparisons;
}

/**
 * Runs the load: the reference server, the bare server and (at `peerConnections`) Prism serving
 * the reference server's OpenAPI document, all taking the same create, interleaved per repetition.
 */
export async function runHttpScenario(options: HttpOptions, log: (line: string) => void): Promise<HttpResult> {
  const reference = await startServerChild("reference");
  let bare: ServerChild | undefined;
  let prism: PrismServer | undefined;
  try {
    const refTarget = await createTarget(reference);
    const responseText = await expectCreated(refTarget, "the reference server's create");
    bare = await startServerChild("bare", { BENCH_BARE_RESPONSE: responseText });
    prism = await startPrism(options.document);
    const on = (url: string): CreateTarget => ({ ...refTarget, url: refTarget.url.replace(reference.url, url) });
    const loaded: Loaded = { reference: refTarget, bare: on(bare.url), prism: on(prism.url) };
    const prismText = await expectCreated(loaded.prism, "Prism's create");
    // Warm-up: JIT, connection setup paths.
    for (const side of ["reference", "bare", "prism"] as const) await load(loaded[side], 8, 2);
    const comparisons = await measure(loaded, options, log);
    return {
      durationS: options.durationS,
      comparisons,
      requestBytes: Buffer.byteLength(refTarget.body),
      responseBytes: Buffer.byteLength(responseText),
      prismResponseBytes: Buffer.byteLength(prismText),
      prismCommand: `prism mock openapi.json --host 127.0.0.1 --port <port> ${PRISM_FLAGS.join(" ")}`,
      command: `autocannon -m POST -c <${options.connections.join("|")}> -d ${options.durationS} -H "authorization: Bearer <key>" -H "content-type: application/json" -b '${refTarget.body}' http://127.0.0.1:<port>/api/public/organizations/<orgId>/data-sources`,
    };
  } finally {
    await prism?.stop();
    await bare?.stop();
    await reference.stop();
  }
}

/**
 * The server scenario's load: create-data-source throughput and latency of the reference server
 * against Prism, its peer, and a bare node:http server, the limit, with autocannon.
 */
import autocannon from "autocannon";
import { request } from "undici";
import { startServerChild, type ServerChild } from "./children";
import { PRISM_FLAGS, startPrism, type PrismServer } from "./prism";

/** One autocannon run. */
export interface LoadRun {
  /** Mean requests per second. */
  rps: number;
  /** Median latency, ms. */
  p50: number;
  /** 99th percentile latency, ms. */
  p99: number;
  /** Connection errors, timeouts and non-2xx answers (all must be 0). */
  failures: number;
}

/** The load at one connection count. */
export interface LoadComparison {
  /** Concurrent connections. */
  connections: number;
  /** Reference server runs, one per repetition. */
  reference: LoadRun[];
  /** Bare node:http runs, one per repetition. */
  bare: LoadRun[];
  /** Prism runs, one per repetition, at the connection counts Prism runs at. */
  prism?: LoadRun[];
}

/** Everything the load measured. */
export interface HttpResult {
  /** Seconds per autocannon run. */
  durationS: number;
  /** One entry per connection count. */
  comparisons: LoadComparison[];
  /** Bytes of the request body. */
  requestBytes: number;
  /** Bytes of the 201 response body the reference and bare servers send. */
  responseBytes: number;
  /** Bytes of Prism's 201 response body (its static example of the response schema). */
  prismResponseBytes?: number;
  /** How Prism was started. */
  prismCommand?: string;
  /** The exact load, as an autocannon command line. */
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

/** A create target on a running reference server: an organization of the bench user. */
export interface CreateTarget {
  /** Full URL of the create-data-source endpoint. */
  url: string;
  /** The organization's id. */
  orgId: string;
  /** Headers every create sends. */
  headers: Record<string, string>;
  /** Serialized {@link DATA_SOURCE_BODY}. */
  body: string;
}

/** Creates an organization on `server` and returns where to create data sources in it. */
export async function createTarget(server: Pick<ServerChild, "url" | "apiKey">): Promise<CreateTarget> {
  const headers = { authorization: `Bearer ${server.apiKey}`, "content-type": "application/json", accept: "application/json" };
  const res = await request(`${server.url}/api/public/organizations`, { method: "POST", headers, body: JSON.stringify({ name: "Bench" }) });
  const org = (await res.body.json()) as { data?: { id?: string } };
  if (res.statusCode !== 201 || !org.data?.id) throw new Error(`could not create the bench organization (HTTP ${res.statusCode})`);
  const orgId = org.data.id;
  return { url: `${server.url}/api/public/organizations/${orgId}/data-sources`, orgId, headers, body: JSON.stringify(DATA_SOURCE_BODY) };
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

/** Throws unless `target` answers a create with 201 and a body; returns the body. */
async function createdBody(target: CreateTarget, who: string): Promise<string> {
  const res = await request(target.url, { method: "POST", headers: target.headers, body: target.body });
  const text = await res.body.text();
  if (res.statusCode !== 201 || text.length === 0) throw new Error(`${who} answered the bench's create with HTTP ${res.statusCode}: ${text.slice(0, 300)}`);
  return text;
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
        log(`load c=${comparison.connections} rep ${rep + 1}/${options.reps} ${side}: ${run.rps.toFixed(0)} req/s, p50 ${run.p50} ms, p99 ${run.p99} ms${run.failures ? `, ${run.failures} FAILURES` : ""}`);
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
    const responseText = await createdBody(refTarget, "the reference server");
    bare = await startServerChild("bare", { BENCH_BARE_RESPONSE: responseText });
    prism = await startPrism(options.document);
    const on = (url: string): CreateTarget => ({ ...refTarget, url: refTarget.url.replace(reference.url, url) });
    const loaded: Loaded = { reference: refTarget, bare: on(bare.url), prism: on(prism.url) };
    const prismText = await createdBody(loaded.prism, "Prism");
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

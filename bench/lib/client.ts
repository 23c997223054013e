/**
 * Scenario E: create latency through the provider's client (AnalyticsClient over its undici
 * transport) against raw `undici.request` with an identically configured Agent, sequential and
 * 8 at a time, against the reference server in its own process.
 */
import { performance } from "node:perf_hooks";
import { Agent, request } from "undici";
import { AnalyticsClient } from "pulumi-analytics/client";
import { startServerChild } from "./children";
import { DATA_SOURCE_BODY, createTarget, type CreateTarget } from "./http";
import { median, percentile } from "./stats";

/** Ways of sending one create. */
export type ClientMode = "client" | "raw" | "clientPerCreate";

/** One run of one mode at one concurrency. */
export interface ClientRun {
  /** Median latency of a create, ms. */
  p50: number;
  /** 99th percentile latency, ms. */
  p99: number;
  /** Creates per second over the run. */
  rps: number;
}

/** Scenario E at one concurrency. */
export interface ClientComparison {
  /** Creates in flight at once. */
  concurrency: number;
  /** Creates per run. */
  requests: number;
  /** Runs by mode, one per repetition. */
  runs: Record<ClientMode, ClientRun[]>;
}

type Sender = { send: () => Promise<void>; close: () => Promise<void> };

/** The raw baseline: undici.request with the client transport's Agent settings, JSON body read. */
function rawSender(target: CreateTarget): Sender {
  // Same settings as the client's DEFAULT_TRANSPORT_OPTIONS, so only the client's own work differs.
  const agent = new Agent({ connect: { timeout: 10_000 }, headersTimeout: 60_000, bodyTimeout: 60_000, keepAliveTimeout: 4_000, keepAliveMaxTimeout: 4_000 });
  return {
    send: async () => {
      const res = await request(target.url, { method: "POST", headers: target.headers, body: target.body, dispatcher: agent });
      await res.body.json();
      if (res.statusCode !== 201) throw new Error(`raw create answered ${res.statusCode}`);
    },
    close: () => agent.close(),
  };
}

function clientSender(baseUrl: string, apiKey: string, orgId: string): Sender {
  const client = new AnalyticsClient({ baseUrl, apiKey });
  return {
    send: async () => {
      await client.createDataSource(orgId, DATA_SOURCE_BODY);
    },
    close: () => client.close(),
  };
}

/** As provider-impl's create does it: a new client (new keep-alive pool) per create, closed after. */
function clientPerCreateSender(baseUrl: string, apiKey: string, orgId: string): Sender {
  return {
    send: async () => {
      const client = new AnalyticsClient({ baseUrl, apiKey });
      try {
        await client.createDataSource(orgId, DATA_SOURCE_BODY);
      } finally {
        await client.close();
      }
    },
    close: async () => undefined,
  };
}

async function measure(sender: Sender, concurrency: number, requests: number): Promise<ClientRun> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < requests) {
      next++;
      const t0 = performance.now();
      await sender.send();
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { p50: median(latencies), p99: percentile(latencies, 99), rps: requests / seconds };
}

/** Runs scenario E; modes alternate order between repetitions. */
export async function runClientScenario(
  options: { concurrencies: number[]; requests: number; reps: number },
  log: (line: string) => void,
): Promise<ClientComparison[]> {
  const server = await startServerChild("reference");
  try {
    const target = await createTarget(server);
    const make: Record<ClientMode, () => Sender> = {
      client: () => clientSender(server.url, server.apiKey, target.orgId),
      raw: () => rawSender(target),
      clientPerCreate: () => clientPerCreateSender(server.url, server.apiKey, target.orgId),
    };
    const modes: ClientMode[] = ["client", "raw", "clientPerCreate"];
    const comparisons: ClientComparison[] = [];
    for (const concurrency of options.concurrencies) {
      const comparison: ClientComparison = { concurrency, requests: options.requests, runs: { client: [], raw: [], clientPerCreate: [] } };
      for (const mode of modes) {
        const warm = make[mode]();
        await measure(warm, concurrency, Math.min(200, options.requests));
        await warm.close();
      }
      for (let rep = 0; rep < options.reps; rep++) {
        const order = rep % 2 === 0 ? modes : [...modes].reverse();
        for (const mode of order) {
          const sender = make[mode]();
          const run = await measure(sender, concurrency, options.requests);
          await sender.close();
          comparison.runs[mode].push(run);
        }
        const r = comparison.runs;
        log(`E c=${concurrency} rep ${rep + 1}/${options.reps}: client p50 ${r.client.at(-1)?.p50.toFixed(3)} ms, raw ${r.raw.at(-1)?.p50.toFixed(3)} ms, per-create client ${r.clientPerCreate.at(-1)?.p50.toFixed(3)} ms`);
      }
      comparisons.push(comparison);
    }
    return comparisons;
  } finally {
    await server.stop();
  }
}

/**
 * Scenario E: create latency through the provider's client (AnalyticsClient over its undici
 * transport) against raw `undici.request` with an identically configured Agent, sequential and
 * 8 at a time, against the reference server in its own process.
 *
 * Both senders live for the whole scenario, as the provider's client lives for its process, and
 * they take turns in short blocks (ABBA order) so drift of the machine or the server's growing
 * store falls on both alike.
 */
import { performance } from "node:perf_hooks";
import { Agent, request } from "undici";
import { AnalyticsClient } from "pulumi-analytics/client";
import { startServerChild } from "./children";
import { DATA_SOURCE_BODY, createTarget, type CreateTarget } from "./http";
import { median, percentile } from "./stats";

/** Ways of sending one create. */
export type ClientMode = "client" | "raw";

/** Both modes, in the order of the first block. */
export const CLIENT_MODES: readonly ClientMode[] = ["client", "raw"];

/** One repetition of one mode at one concurrency. */
export interface ClientRun {
  /** Mean latency of a create, ms (at a fixed concurrency: concurrency ÷ throughput). */
  mean: number;
  /** Median latency of a create, ms. */
  p50: number;
  /** 99th percentile latency, ms. */
  p99: number;
  /** Creates per second over the repetition's blocks. */
  rps: number;
}

/** Scenario E at one concurrency. */
export interface ClientComparison {
  /** Creates in flight at once. */
  concurrency: number;
  /** Creates per mode per repetition. */
  requests: number;
  /** Blocks each repetition's creates are split into, per mode. */
  blocksPerRep: number;
  /** Creates of warm-up per mode before the first block. */
  warmup: number;
  /** Runs by mode, one per repetition. */
  runs: Record<ClientMode, ClientRun[]>;
}

type Sender = { send: () => Promise<void>; close: () => Promise<void> };

/**
 * The raw baseline: undici.request with the client transport's Agent settings, sending the bytes
 * the client sends (same headers, body serialized per create as any create must) and reading the
 * JSON answer. What remains different is the client's own work: request building, retry policy,
 * error mapping and the contract check of the answer.
 */
function rawSender(target: CreateTarget): Sender {
  // Same settings as the client's DEFAULT_TRANSPORT_OPTIONS.
  const agent = new Agent({ connect: { timeout: 10_000 }, headersTimeout: 60_000, bodyTimeout: 60_000, keepAliveTimeout: 4_000, keepAliveMaxTimeout: 4_000 });
  const headers = { ...target.headers, "user-agent": "pulumi-analytics" };
  return {
    send: async () => {
      const res = await request(target.url, { method: "POST", headers, body: JSON.stringify(DATA_SOURCE_BODY), dispatcher: agent });
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

/** Sends `requests` creates, `concurrency` at a time; returns each latency and the wall time. */
async function measureBlock(sender: Sender, concurrency: number, requests: number): Promise<{ latencies: number[]; seconds: number }> {
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
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

/** Runs scenario E on a fresh reference server. */
export async function runClientScenario(
  options: { concurrencies: number[]; requests: number; reps: number; blocksPerRep: number; warmup: number },
  log: (line: string) => void,
): Promise<ClientComparison[]> {
  const server = await startServerChild("reference");
  const senders: Partial<Record<ClientMode, Sender>> = {};
  try {
    const target = await createTarget(server);
    senders.client = clientSender(server.url, server.apiKey, target.orgId);
    senders.raw = rawSender(target);
    const blockSize = Math.ceil(options.requests / options.blocksPerRep);
    const comparisons: ClientComparison[] = [];
    for (const concurrency of options.concurrencies) {
      const comparison: ClientComparison = { concurrency, requests: blockSize * options.blocksPerRep, blocksPerRep: options.blocksPerRep, warmup: options.warmup, runs: { client: [], raw: [] } };
      for (const mode of CLIENT_MODES) await measureBlock(senders[mode]!, concurrency, options.warmup);
      let block = 0;
      for (let rep = 0; rep < options.reps; rep++) {
        const samples: Record<ClientMode, { latencies: number[]; seconds: number }> = { client: { latencies: [], seconds: 0 }, raw: { latencies: [], seconds: 0 } };
        for (let b = 0; b < options.blocksPerRep; b++, block++) {
          // ABBA: client first in blocks 0 and 3 of every 4, raw first in 1 and 2.
          const order = block % 4 === 0 || block % 4 === 3 ? CLIENT_MODES : [...CLIENT_MODES].reverse();
          for (const mode of order) {
            const { latencies, seconds } = await measureBlock(senders[mode]!, concurrency, blockSize);
            samples[mode].latencies.push(...latencies);
            samples[mode].seconds += seconds;
          }
        }
        for (const mode of CLIENT_MODES) {
          const { latencies, seconds } = samples[mode];
          comparison.runs[mode].push({ mean: latencies.reduce((sum, x) => sum + x, 0) / latencies.length, p50: median(latencies), p99: percentile(latencies, 99), rps: latencies.length / seconds });
        }
        const r = comparison.runs;
        const last = (mode: ClientMode): string => `mean ${r[mode].at(-1)?.mean.toFixed(3)} ms, p50 ${r[mode].at(-1)?.p50.toFixed(3)} ms`;
        log(`E c=${concurrency} rep ${rep + 1}/${options.reps}: client ${last("client")}; raw ${last("raw")}`);
      }
      comparisons.push(comparison);
    }
    return comparisons;
  } finally {
    for (const sender of Object.values(senders)) await sender.close();
    await server.stop();
  }
}

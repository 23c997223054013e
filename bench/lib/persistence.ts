/**
 * Scenario P: the persistent state (`--state`) as it grows. The create rate of the reference
 * server with a state file against the same server in memory, on an empty state and once it holds
 * 10,000 data sources (8 connections, autocannon), and the bin's start-up on a state file of
 * 100,000 data sources.
 */
import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import autocannon from "autocannon";
import { startServerChild, type ServerChild } from "./children";
import { createTarget, DATA_SOURCE_BODY, type CreateTarget } from "./http";
import { askOnceListening, freePort, spawnGroup } from "./spawned";
import { repoRoot } from "./workspace";

/** Where the state lives. */
export type PersistenceMode = "memory" | "state";

/** One create-rate measurement. */
export interface PersistenceRun {
  /** In memory or with a state file. */
  mode: PersistenceMode;
  /** Data sources the server held when the run started. */
  heldAtStart: number;
  /** Mean creates per second. */
  rps: number;
  /** Median latency, ms. */
  p50: number;
  /** 99th percentile latency, ms. */
  p99: number;
  /** Errors, timeouts and non-2xx answers. */
  failures: number;
}

/** One start of the bin on a big state file. */
export interface PersistenceStartup {
  /** Data sources in the state file. */
  dataSources: number;
  /** Size of the state file, bytes. */
  stateBytes: number;
  /** Spawn to first answer, ms, one per repetition. */
  firstAnswerMs: number[];
}

/** Everything scenario P measured. */
export interface PersistenceResult {
  /**
   * The disk's floor, one per repetition, beside that repetition's runs: appends of
   * {@link FLOOR_APPEND_BYTES} each followed by an fdatasync, in a loop, per second (absent in runs before it was measured).
   */
  syncFloor?: number[];
  /** Connections of the measured runs. */
  connections: number;
  /** Seconds per measured run. */
  durationS: number;
  /** The runs, each repetition of each (mode, count). */
  runs: PersistenceRun[];
  /** Start-up on a big state file. */
  startup: PersistenceStartup;
  /** How the server was loaded. */
  command: string;
}

/** Scenario P's sizes, in `npm run bench`, `node bench/dist/run.js P` and `npm run bench:persistence` alike (`quick`: a smoke run). */
export function persistencePlan(quick: boolean): PersistenceOptions {
  return { held: quick ? 1000 : 10_000, startupDataSources: quick ? 10_000 : 100_000, reps: quick ? 1 : 5, durationS: quick ? 1 : 3, startupReps: quick ? 1 : 5 };
}

/** Options of {@link runPersistenceScenario}. */
export interface PersistenceOptions {
  /** Data sources held before the second measurement (10,000). */
  held: number;
  /** Data sources in the start-up state file (100,000). */
  startupDataSources: number;
  /** Repetitions. */
  reps: number;
  /** Seconds per measured run. */
  durationS: number;
  /** Start-ups timed. */
  startupReps: number;
}

const CONNECTIONS = 8;

/** Bytes per append of the floor loop: about one commit of a group of creates (three journal lines of ~0.75 KB per create). */
export const FLOOR_APPEND_BYTES = 8192;

/**
 * The disk's floor for a committed create: a bare loop of one append and one fdatasync in `dir`
 * (the state files' filesystem) for `ms`, counting loops per second. Synchronous: nothing else runs meanwhile.
 */
export function measureSyncFloor(dir: string, ms: number): number {
  const file = path.join(dir, "sync-floor");
  const fd = fs.openSync(file, "a", 0o600);
  const bytes = Buffer.alloc(FLOOR_APPEND_BYTES, 0x61);
  let loops = 0;
  const started = performance.now();
  try {
    while (performance.now() - started < ms) {
      fs.writeSync(fd, bytes);
      fs.fdatasyncSync(fd);
      loops++;
    }
  } finally {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
  }
  return loops / ((performance.now() - started) / 1000);
}

async function measure(target: CreateTarget, mode: PersistenceMode, heldAtStart: number, durationS: number): Promise<PersistenceRun> {
  const result = await autocannon({ url: target.url, method: "POST", headers: target.headers, body: target.body, connections: CONNECTIONS, duration: durationS, timeout: 30 });
  return { mode, heldAtStart, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, failures: result.errors + result.timeouts + result.non2xx };
}

/** Creates data sources until the organization's server holds `count` of them (64 connections). */
async function fill(target: CreateTarget, count: number): Promise<void> {
  if (count <= 0) return;
  const result = await autocannon({ url: target.url, method: "POST", headers: target.headers, body: target.body, connections: 64, amount: count, timeout: 60 });
  if (result["2xx"] !== count) throw new Error(`the fill created ${result["2xx"]} of ${count} data sources`);
}

/** A fresh server (with a state file in a new folder for `state`), its target, and its cleanup. */
async function freshServer(mode: PersistenceMode): Promise<{ server: ServerChild; target: CreateTarget; dispose: () => Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-persistence-"));
  const env = mode === "state" ? { BENCH_STATE_PATH: path.join(dir, "state.json") } : {};
  const server = await startServerChild("reference", env);
  const target = await createTarget(server);
  return {
    server,
    target,
    dispose: async () => {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A state file (version 2, with no journal yet: what a server leaves at a clean stop) holding `count` data sources in one
 * organization of user `bench`, built from a real create answer.
 */
export async function writeBigStateFile(file: string, count: number): Promise<number> {
  const { server, target, dispose } = await freshServer("memory");
  let template: Record<string, unknown>;
  try {
    const res = await fetch(target.url, { method: "POST", headers: target.headers, body: target.body });
    template = ((await res.json()) as { data: Record<string, unknown> }).data;
  } finally {
    await dispose();
  }
  void server;
  const now = new Date().toISOString();
  const orgId = target.orgId;
  const id = (prefix: string, i: number): string => `${prefix}_${String(i).padStart(20, "0")}`;
  const out = fs.openSync(file, "w", 0o600);
  const write = (text: string): void => void fs.writeSync(out, text);
  const digest = createHash("sha256").update(randomBytes(16)).digest("hex");
  write(`{"format":"pulumi-analytics/reference-server-state","version":2,"journalSeq":0,"apiKeys":[{"digest":"${digest}","userName":"bench","createdAt":"${now}"}],`);
  write(`"organizations":[${JSON.stringify({ id: orgId, name: "Bench", slug: "bench", customAiContext: null, onboardingStatus: "STARTED", ownerUserName: "bench", createdAt: now, trial: null })}],"dataSources":[`);
  for (let i = 0; i < count; i++) {
    const fields = { ...template, id: id("ds", i), lastSyncStatus: "SUCCEEDED", hasCompletedFirstSync: true, lastSuccessfulSyncAt: now, lastSyncAttemptAt: now };
    write(`${i === 0 ? "" : ","}\n${JSON.stringify({ organizationId: orgId, fields, tables: [], providedSecretFields: ["password"] })}`);
  }
  write("]}\n");
  fs.closeSync(out);
  return fs.statSync(file).size;
}

/** Times the bin's start to its first answer on `file`, `reps` times (plus one untimed start). */
async function timeStartups(file: string, reps: number, log: (line: string) => void): Promise<number[]> {
  const bin = path.join(repoRoot, "dist", "reference-server", "bin.js");
  const times: number[] = [];
  for (let rep = -1; rep < reps; rep++) {
    // A copy each time: the server may compact the file it was given.
    const copy = path.join(path.dirname(file), `start-${rep + 1}.json`);
    fs.copyFileSync(file, copy);
    const port = await freePort();
    const started = performance.now();
    const child = spawnGroup(process.execPath, [bin, "--port", String(port), "--state", copy, "--bootstrap-user", "bench"]);
    try {
      const body = JSON.stringify(DATA_SOURCE_BODY);
      await askOnceListening({ url: `http://127.0.0.1:${port}/api/public/organizations/startup/data-sources`, headers: { "content-type": "application/json" }, body });
      const ms = performance.now() - started;
      if (rep >= 0) {
        times.push(ms);
        log(`P start-up rep ${rep + 1}/${reps}: first answer after ${ms.toFixed(0)} ms`);
      }
    } catch (error) {
      throw new Error(`start on ${copy}: ${(error as Error).message} ${child.stderr().slice(0, 500)}`);
    } finally {
      await child.stop();
      for (const leftover of fs.readdirSync(path.dirname(copy)).filter((name) => name.startsWith(path.basename(copy)))) {
        fs.rmSync(path.join(path.dirname(copy), leftover), { force: true });
      }
    }
  }
  return times;
}

/** Runs scenario P. */
export async function runPersistenceScenario(options: PersistenceOptions, log: (line: string) => void): Promise<PersistenceResult> {
  const runs: PersistenceRun[] = [];
  const syncFloor: number[] = [];
  for (let rep = 0; rep < options.reps; rep++) {
    const floorDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-persistence-floor-"));
    syncFloor.push(measureSyncFloor(floorDir, options.durationS * 1000));
    fs.rmSync(floorDir, { recursive: true, force: true });
    log(`P rep ${rep + 1}/${options.reps} floor: ${syncFloor.at(-1)!.toFixed(0)} appends + fdatasyncs/s (${FLOOR_APPEND_BYTES} B each)`);
    const modes: PersistenceMode[] = rep % 2 === 0 ? ["memory", "state"] : ["state", "memory"];
    for (const mode of modes) {
      const { target, dispose } = await freshServer(mode);
      try {
        const empty = await measure(target, mode, 0, options.durationS);
        runs.push(empty);
        log(`P rep ${rep + 1}/${options.reps} ${mode}, empty: ${empty.rps.toFixed(0)} creates/s, p50 ${empty.p50} ms, p99 ${empty.p99} ms${empty.failures ? `, ${empty.failures} FAILURES` : ""}`);
        // The first run created some already; fill up to the count from a second, fresh server.
      } finally {
        await dispose();
      }
      const second = await freshServer(mode);
      try {
        const started = performance.now();
        await fill(second.target, options.held);
        log(`P rep ${rep + 1}/${options.reps} ${mode}: filled ${options.held} data sources in ${((performance.now() - started) / 1000).toFixed(1)} s`);
        const full = await measure(second.target, mode, options.held, options.durationS);
        runs.push(full);
        log(`P rep ${rep + 1}/${options.reps} ${mode}, ${options.held} held: ${full.rps.toFixed(0)} creates/s, p50 ${full.p50} ms, p99 ${full.p99} ms${full.failures ? `, ${full.failures} FAILURES` : ""}`);
      } finally {
        await second.dispose();
      }
    }
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-persistence-startup-"));
  try {
    const file = path.join(dir, "big.json");
    const stateBytes = await writeBigStateFile(file, options.startupDataSources);
    log(`P start-up: state file of ${options.startupDataSources} data sources, ${(stateBytes / 2 ** 20).toFixed(0)} MiB`);
    const firstAnswerMs = await timeStartups(file, options.startupReps, log);
    return {
      connections: CONNECTIONS,
      durationS: options.durationS,
      runs,
      syncFloor,
      startup: { dataSources: options.startupDataSources, stateBytes, firstAnswerMs },
      command: `autocannon -m POST -c ${CONNECTIONS} -d ${options.durationS} … (server child with statePath, or in memory); start-up: node dist/reference-server/bin.js --state <file of ${options.startupDataSources} data sources> --bootstrap-user bench`,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

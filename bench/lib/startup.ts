/**
 * The server scenario's start-up. Each subject is started as a fresh process; the bench sends its first
 * request as soon as the port accepts a connection (polled every millisecond) and times, from
 * just before the spawn, the first answer of a cheap request and the first successful create.
 */
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { DATA_SOURCE_BODY } from "./http";
import { prismCommand } from "./prism";
import { askOnceListening, expectCreated, freePort, spawnGroup, type Spawned } from "./spawned";
import { repoRoot } from "./workspace";

/** What is started: the bin with node, Prism, and a bare node:http server (the floor). Older results also hold "npx". */
export type StartupSubject = "ours" | "prism" | "bare";

/** One start: ms from the spawn to the first answer of a cheap request (a create without a key; 401, or 201 from the bare server), its status, and ms to the first 201 of a create with a valid key. */
export interface StartupSample {
  firstAnswerMs: number;
  firstAnswerStatus: number;
  firstCreateMs: number;
}

/** Everything the start-up measured: starts per subject, one sample per start, each subject's command line (`<port>` and `<document>` standing for the values used). */
export interface StartupResult {
  reps: number;
  samples: Record<StartupSubject, StartupSample[]>;
  commands: Record<StartupSubject, string>;
}

const JSON_HEADERS = { "content-type": "application/json", accept: "application/json" };
const BODY = JSON.stringify(DATA_SOURCE_BODY);
/** A well-formed key for Prism, which checks that a Bearer key is present but knows no keys. */
const PRISM_KEY = `analytics_key_${"0".repeat(32)}`;

/** How to start one subject and make its first create. */
interface Subject {
  /** Its command line listening on `port`, with the environment it runs in. */
  command(port: string): { argv: [string, ...string[]]; env?: NodeJS.ProcessEnv };
  /** Performs the first successful create against a started subject; throws unless it gets 201. */
  create(base: string, child: Spawned): Promise<void>;
}

/** Ours: the key printed at start, then an organization and a data source in it. */
async function createOnOurs(base: string, child: Spawned): Promise<void> {
  const key = (await child.stdoutMatch(/API key for bench \(shown once\): (\S+)/))[1]!;
  const headers = { ...JSON_HEADERS, authorization: `Bearer ${key}` };
  const org = JSON.parse(
    await expectCreated({ url: `${base}/api/public/organizations`, headers, body: JSON.stringify({ name: "Start" }) }, "create organization"),
  ) as { data: { id: string } };
  await expectCreated({ url: `${base}/api/public/organizations/${org.data.id}/data-sources`, headers, body: BODY }, "create data source");
}

function subjects(document: string): Record<StartupSubject, Subject> {
  const bin = path.join(repoRoot, "dist", "reference-server", "bin.js");
  const serverArgs = (port: string): string[] => ["--port", port, "--bootstrap-user", "bench"];
  const createPlain = async (base: string, key?: string): Promise<void> => {
    const headers = key === undefined ? JSON_HEADERS : { ...JSON_HEADERS, authorization: `Bearer ${key}` };
    await expectCreated({ url: `${base}/api/public/organizations/startup/data-sources`, headers, body: BODY }, "create data source");
  };
  return {
    ours: { command: (port) => ({ argv: [process.execPath, bin, ...serverArgs(port)] }), create: createOnOurs },
    prism: { command: (port) => ({ argv: prismCommand(document, port) }), create: (base) => createPlain(base, PRISM_KEY) },
    bare: {
      command: (port) => ({ argv: [process.execPath, path.join(__dirname, "..", "servers", "bare.js")], env: { BENCH_BARE_PORT: port } }),
      create: (base) => createPlain(base),
    },
  };
}

async function startOnce(subject: Subject): Promise<StartupSample> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { argv, env } = subject.command(String(port));
  const started = performance.now();
  const child = spawnGroup(argv[0], argv.slice(1), env);
  try {
    const first = await askOnceListening({ url: `${base}/api/public/organizations/startup/data-sources`, headers: JSON_HEADERS, body: BODY });
    const firstAnswerMs = performance.now() - started;
    await subject.create(base, child);
    return { firstAnswerMs, firstAnswerStatus: first.status, firstCreateMs: performance.now() - started };
  } catch (error) {
    throw new Error(`${argv.join(" ")}: ${(error as Error).message} ${child.stderr().slice(0, 500)}`, { cause: error });
  } finally {
    await child.stop();
  }
}

/** Runs the start-up: one untimed start of each subject, then `reps` rounds, the order rotating each round. */
export async function runStartupScenario(document: string, reps: number, log: (line: string) => void): Promise<StartupResult> {
  const all = subjects(document);
  const names = Object.keys(all) as StartupSubject[];
  for (const name of names) await startOnce(all[name]);
  const samples = Object.fromEntries(names.map((n) => [n, [] as StartupSample[]])) as Record<StartupSubject, StartupSample[]>;
  for (let rep = 0; rep < reps; rep++) {
    const order = names.map((_, i) => names[(i + rep) % names.length]!);
    for (const name of order) {
      const sample = await startOnce(all[name]);
      samples[name].push(sample);
      log(
        `start rep ${rep + 1}/${reps} ${name}: first answer ${sample.firstAnswerMs.toFixed(0)} ms (${sample.firstAnswerStatus}), first create ${sample.firstCreateMs.toFixed(0)} ms`,
      );
    }
  }
  const line = (name: StartupSubject): string => {
    const { argv, env } = all[name].command("<port>");
    const words = argv.map((a) => (a === process.execPath ? "node" : path.isAbsolute(a) ? path.relative(repoRoot, a) : a));
    return [...Object.entries(env ?? {}).map(([k, v]) => `${k}=${v}`), ...words].join(" ");
  };
  return { reps, samples, commands: Object.fromEntries(names.map((n) => [n, line(n)])) as Record<StartupSubject, string> };
}

/**
 * The real `pulumi` CLI on a shared S3-compatible DIY backend (versitygw, built from
 * tools/pinned/versitygw/ into the project cache, serving a temp directory on 127.0.0.1): a stack created,
 * replaced and destroyed there with `analytics-orphans` reading its history from the bucket; two
 * stacks updated at once; the lock refusing a second `up` of a stack, surviving a killed runner
 * until `pulumi cancel`; no lock object and no credential in plain text left in the bucket.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server";
import { trackProcessTree } from "../../toolchain/src/process-group";
import { pulumiEnvironment } from "../../toolchain/src/pulumi-cli";
import { PulumiWorkspace, SETUP_UP, TEST_PASSPHRASE, repoRoot, type CommandResult } from "../support/pulumi-workspace";
import { resolveVersitygw, startS3Server, type S3Server } from "../support/s3-server";

const toolchain = inject("pulumiToolchain");
const PASSWORD = "s3-backend-password-5d1f7a";
const ROTATED = "s3-backend-rotated-8c2e4b";

let s3: S3Server;
beforeAll(async () => {
  // Built once into the cache (a couple of minutes from nothing), then found there.
  s3 = await startS3Server(await resolveVersitygw());
}, 600_000);
afterAll(async () => {
  await s3?.stop();
});

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let prefixes = 0;
/** A key prefix of the shared bucket of its own, so the tests' backends never meet. */
const freshPrefix = (): string => `t${++prefixes}-${Date.now().toString(36)}`;

interface Harness {
  ws: PulumiWorkspace;
  server: ReferenceServer;
  apiKey: string;
  backendUrl: string;
}

/** A stack of the edges fixture on `backendUrl` (a fresh prefix of the bucket unless given), against `server` (a fresh one unless given). */
async function harness(options: { stack?: string; backendUrl?: string; server?: ReferenceServer } = {}): Promise<Harness> {
  let server = options.server;
  if (!server) {
    const started = await startReferenceServer({ port: 0, bootstrapUsers: ["alice"] });
    cleanups.push(() => started.close());
    server = started;
  }
  const backendUrl = options.backendUrl ?? s3.backendUrl(freshPrefix());
  const ws = await PulumiWorkspace.create(toolchain, {
    programDir: path.join(repoRoot, "test/fixtures/edges"),
    linkPackage: true,
    stack: options.stack ?? "dev",
    env: { PULUMI_BACKEND_URL: backendUrl, ...s3.env() },
  });
  cleanups.push(() => ws.dispose());
  const apiKey = server.apiKeys.alice!;
  await ws.setConfig({ "analytics:baseUrl": server.url }, { "analytics:apiKey": apiKey, "edges:password": PASSWORD });
  return { ws, server, apiKey, backendUrl };
}

const output = (result: CommandResult): string => `${result.stdout}\n${result.stderr}`;

/** The bucket's files under a backend URL's prefix (relative to the bucket). */
function backendObjects(backendUrl: string): Map<string, string> {
  const prefix = decodeURIComponent(new URL(backendUrl).pathname).replace(/^\/+/, "");
  return new Map([...s3.files()].filter(([key]) => key.startsWith(`${prefix}/`)));
}

const locksOf = (backendUrl: string): string[] => [...backendObjects(backendUrl).keys()].filter((key) => key.includes(".pulumi/locks/"));

/** Runs the built `analytics-orphans` bin in the workspace's program directory, logged in to the S3 backend. */
function orphansBin(h: Harness, args: string[]): Promise<CommandResult> {
  const env = pulumiEnvironment(toolchain, {
    ...process.env,
    PULUMI_HOME: path.join(h.ws.root, "home"),
    PULUMI_BACKEND_URL: h.backendUrl,
    PULUMI_CONFIG_PASSPHRASE: TEST_PASSPHRASE,
    ...s3.env(),
  });
  return new Promise((resolve, reject) => {
    const child = trackProcessTree(
      spawn(process.execPath, [path.join(repoRoot, "dist/orphans/bin.js"), ...args], {
        cwd: h.ws.programDir,
        env,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      }),
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

async function until(what: string, condition: () => boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("the s3:// backend with the real engine", () => {
  it("creates, replaces and destroys a stack there; analytics-orphans lists what it left from the bucket's history; no lock and no credential left in the bucket", async () => {
    const h = await harness();
    await h.ws.pulumi(SETUP_UP);
    await h.ws.pulumi(["config", "set", "--secret", "edges:password", ROTATED]);
    const replaced = await h.ws.pulumi(["up", "--yes"]);
    expect(output(replaced)).toMatch(/replaced/);
    await h.ws.pulumi(["destroy", "--yes"]);

    const objects = backendObjects(h.backendUrl);
    expect([...objects.keys()].filter((key) => /\.pulumi\/history\/edges\/dev\/dev-\d+\.checkpoint\.json$/.test(key)).length).toBeGreaterThanOrEqual(3);
    expect(locksOf(h.backendUrl)).toEqual([]);
    for (const secret of [PASSWORD, ROTATED, h.apiKey, s3.secretAccessKey]) {
      expect(
        [...objects].filter(([, content]) => content.includes(secret)).map(([key]) => key),
        secret,
      ).toEqual([]);
    }

    const listed = await orphansBin(h, ["--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    const orphans = JSON.parse(listed.stdout) as Array<{ type: string; id: string; name: string }>;
    const everything = [...h.server.inspect.organizations().map((o) => o.id), ...h.server.inspect.dataSources().map((d) => d.id)];
    expect(everything).toHaveLength(3);
    expect(orphans.map((o) => o.id).sort()).toEqual([...everything].sort());
    expect(orphans.filter((o) => o.type === "DataSource")).toHaveLength(2);
    expect(listed.stdout).not.toContain(PASSWORD);
  }, 300_000);

  it("updates two stacks of one backend at the same time", async () => {
    const server = await startReferenceServer({ port: 0, bootstrapUsers: ["alice"] });
    cleanups.push(() => server.close());
    const backendUrl = s3.backendUrl(freshPrefix());
    const [a, b] = await Promise.all([harness({ stack: "a", backendUrl, server }), harness({ stack: "b", backendUrl, server })]);
    const results = await Promise.all([a.ws.pulumi(["up", "--yes"], { allowFailure: true }), b.ws.pulumi(["up", "--yes"], { allowFailure: true })]);
    for (const result of results) expect(result.code, output(result)).toBe(0);
    expect(server.inspect.organizations()).toHaveLength(2);
    expect(locksOf(backendUrl)).toEqual([]);
  }, 300_000);

  it("refuses a second up while the stack is locked; a killed runner keeps the lock until pulumi cancel, then up succeeds", async () => {
    const h = await harness();
    // The first up's create hangs, so it holds the lock for as long as the test wants.
    h.server.faults.set({ routes: { createOrganization: { latencyMs: 600_000 } } });
    const first = h.ws.start(["up", "--yes"]);
    cleanups.push(() => first.signal("SIGKILL"));
    await until("the hanging create", () => h.server.faults.injected().latency > 0);
    expect(locksOf(h.backendUrl)).toHaveLength(1);

    const second = await h.ws.pulumi(["up", "--yes"], { allowFailure: true });
    expect(second.code).toBe(255);
    expect(output(second)).toContain("the stack is currently locked by 1 lock(s)");
    expect(output(second)).toMatch(/\.pulumi\/locks\/organization\/edges\/dev\/[0-9a-f-]+\.json\?endpoint=.*: created by /);

    first.signal("SIGKILL");
    const killed = await first.result;
    expect(killed.code).not.toBe(0);
    expect(locksOf(h.backendUrl)).toHaveLength(1);

    await h.ws.pulumi(["cancel", "--yes"]);
    expect(locksOf(h.backendUrl)).toEqual([]);
    h.server.faults.clear();
    const after = await h.ws.pulumi(["up", "--yes"], { allowFailure: true });
    expect(after.code, output(after)).toBe(0);
    // The killed run's create is still a pending operation: the CLI says so and goes on.
    expect(output(after)).toContain("Attempting to deploy or update resources with 1 pending operations from previous deployment");
    expect(locksOf(h.backendUrl)).toEqual([]);
  }, 300_000);
});

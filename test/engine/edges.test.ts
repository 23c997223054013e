/**
 * Off the happy path with the real `pulumi` CLI: the import option, where the API key ends up,
 * verbose engine logs, the status snapshot and the list of objects a stack left in the service.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server";
import { ORPHANS_HINT } from "../../src/provider-core/notices";
import { trackProcessTree } from "../../toolchain/src/process-group";
import { pulumiEnvironment } from "../../toolchain/src/pulumi-cli";
import { PulumiWorkspace, SETUP_UP, repoRoot, resourcesOfType, type CommandResult } from "../support/pulumi-workspace";

const toolchain = inject("pulumiToolchain");
const ORG_TYPE = "pulumi-nodejs:dynamic/analytics:Organization";
const DS_TYPE = "pulumi-nodejs:dynamic/analytics:DataSource";
const PASSWORD = "edges-password-4c1e9b";
/** The marker Pulumi puts on every encrypted value in state. */
const SECRET_SIG = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" };

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Harness {
  ws: PulumiWorkspace;
  server: ReferenceServer;
  apiKey: string;
}

/** A stack of the edges fixture against a fresh reference server; the key is set only when asked. */
async function harness(config: Record<string, string> = {}, keyIn: "config" | "none" = "config"): Promise<Harness> {
  const server = await startReferenceServer({ port: 0, bootstrapUsers: ["alice"], inspection: true });
  cleanups.push(() => server.close());
  const ws = await PulumiWorkspace.create(toolchain, { programDir: path.join(repoRoot, "test/fixtures/edges"), linkPackage: true });
  cleanups.push(() => ws.dispose());
  const apiKey = server.apiKeys.alice!;
  const plain = Object.fromEntries(Object.entries(config).map(([name, value]) => [`edges:${name}`, value]));
  await ws.setConfig(
    { "analytics:baseUrl": server.url, ...plain },
    { ...(keyIn === "config" ? { "analytics:apiKey": apiKey } : {}), "edges:password": PASSWORD },
  );
  return { ws, server, apiKey };
}

const output = (result: CommandResult): string => `${result.stdout}\n${result.stderr}`;

/** Files and CLI output that contain `text`: every backend file and every command run so far. */
function placesHolding(ws: PulumiWorkspace, text: string): string[] {
  const places = [...ws.backendFiles().entries()].filter(([, content]) => content.includes(text)).map(([file]) => `backend/${file}`);
  ws.transcript.forEach((result, i) => {
    if (output(result).includes(text)) places.push(`command #${i}`);
  });
  return places;
}

/** Runs the built `analytics-orphans` bin in the workspace's program directory, with the workspace's environment (its home, backend and stack). */
function orphansBin(ws: PulumiWorkspace, args: string[]): Promise<CommandResult> {
  const env = pulumiEnvironment(toolchain, ws.env);
  return new Promise((resolve, reject) => {
    const child = trackProcessTree(
      spawn(process.execPath, [path.join(repoRoot, "dist/orphans/bin.js"), ...args], {
        cwd: ws.programDir,
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

describe("edges with the real engine", () => {
  it("refuses the import option at program time with words and no stack trace, sending nothing", async () => {
    const h = await harness({ importOrgId: "org_existing0000000000" });
    for (const command of [["preview"], ["up", "--yes"]]) {
      const result = await h.ws.pulumi(command, { allowFailure: true });
      expect(result.code).not.toBe(0);
      expect(output(result)).toContain(
        'error: Organization "org" cannot be imported: the analytics API has no read endpoint, so an existing object cannot be read or adopted into a stack. Remove the `import` option',
      );
      expect(output(result)).not.toMatch(/unhandled exception|\n\s+at .*\(.*:\d+:\d+\)|code must be a string/);
    }
    expect(h.server.inspect.requestCount()).toBe(0);
  }, 300_000);

  it("with ANALYTICS_API_KEY the key is nowhere in the backend; dates the status snapshot; inspection shows the current status", async () => {
    const h = await harness({}, "none");
    const before = new Date().toISOString();
    await h.ws.pulumi(["up", "--yes"], { env: { ANALYTICS_API_KEY: h.apiKey } });
    const after = new Date().toISOString();
    expect(placesHolding(h.ws, h.apiKey)).toEqual([]);
    const state = await h.ws.exportStack();
    const provider = (state.deployment.resources ?? []).find((r) => r.type === "pulumi:providers:pulumi-nodejs");
    expect(Object.keys(provider?.inputs ?? {})).not.toContain("analytics:apiKey");

    const [org] = resourcesOfType(state, ORG_TYPE);
    const [ds] = resourcesOfType(state, DS_TYPE);
    for (const resource of [org, ds]) {
      const observed = String(resource?.outputs?.statusObservedAt);
      expect(observed >= before && observed <= after, observed).toBe(true);
    }
    expect(ds?.outputs).toMatchObject({ lastSyncStatus: "PENDING" });
    // The documented way to see the current status: the reference server's inspection route.
    await h.server.waitForSync(ds!.id!);
    const current = (await (await fetch(`${h.server.url}/_reference/data-sources/${ds!.id!}`)).json()) as { data: { lastSyncStatus: string } };
    expect(["SUCCEEDED", "FAILED"]).toContain(current.data.lastSyncStatus);
    // The state still says PENDING, and adding the new output changes nothing on the next preview.
    await h.ws.pulumi(["preview", "--expect-no-changes"], { env: { ANALYTICS_API_KEY: h.apiKey } });
  }, 300_000);

  it("with analytics:apiKey in stack config the key is in the state only as ciphertext, never in plaintext", async () => {
    const h = await harness();
    await h.ws.pulumi(["up", "--yes"]);
    expect(placesHolding(h.ws, h.apiKey)).toEqual([]);
    const provider = ((await h.ws.exportStack()).deployment.resources ?? []).find((r) => r.type === "pulumi:providers:pulumi-nodejs");
    expect(provider?.inputs?.["analytics:apiKey"]).toEqual({ ...SECRET_SIG, ciphertext: expect.stringMatching(/^v1:/) });
    const decrypted = await h.ws.pulumi(["stack", "export", "--show-secrets"]);
    expect(decrypted.stdout).toContain(h.apiKey);
  }, 300_000);

  it("logs old secrets in plaintext from -v=7 on, and not at --debug -v=6", async () => {
    const h = await harness();
    await h.ws.pulumi(SETUP_UP);
    const logs = (name: string): string => {
      const dir = path.join(h.ws.root, name);
      return fs
        .readdirSync(dir)
        .map((file) => fs.readFileSync(path.join(dir, file), "utf8"))
        .join("\n");
    };
    const verboseUp = async (newPassword: string, tmp: string, flags: string[]): Promise<CommandResult> => {
      fs.mkdirSync(path.join(h.ws.root, tmp));
      await h.ws.pulumi(["config", "set", "--secret", "edges:password", newPassword]);
      return h.ws.pulumi(["up", "--yes", ...flags], { env: { TMPDIR: path.join(h.ws.root, tmp) } });
    };
    const quiet = await verboseUp("edges-rotated-1-7d2f0a", "tmp-quiet", ["--debug", "-v=6"]);
    for (const secret of [PASSWORD, "edges-rotated-1-7d2f0a", h.apiKey]) {
      expect(output(quiet)).not.toContain(secret);
      expect(logs("tmp-quiet")).not.toContain(secret);
    }
    const loud = await verboseUp("edges-rotated-2-9e4b1c", "tmp-loud", ["-v=7"]);
    expect(output(loud)).not.toContain("edges-rotated-1-7d2f0a");
    // The engine's own log file: the replaced data source's old password, read back from state.
    expect(logs("tmp-loud")).toContain("edges-rotated-1-7d2f0a");
  }, 300_000);

  it("analytics-orphans lists every object the stack left, by type, id, name and time, after replaces and a destroy", async () => {
    const h = await harness({ count: "3" });
    await h.ws.pulumi(SETUP_UP);
    await h.ws.pulumi(["config", "set", "--secret", "edges:password", "edges-rotated-3-1a2b3c"]);
    await h.ws.pulumi(SETUP_UP);
    const none = await orphansBin(h.ws, []);
    expect(none.stdout).toMatch(/^3 analytics objects left in the service by this stack/);
    const destroy = await h.ws.pulumi(["destroy", "--yes"]);
    const warnings = output(destroy).match(/was left in the analytics service/g) ?? [];
    expect(warnings.length).toBeGreaterThanOrEqual(4);
    // The pointer comes with the first warning only (the engine may repeat that one line).
    expect(output(destroy).split(ORPHANS_HINT).length - 1).toBeGreaterThanOrEqual(1);
    expect(output(destroy).split(ORPHANS_HINT).length - 1).toBeLessThanOrEqual(2);

    const listed = await orphansBin(h.ws, ["--json"]);
    expect(listed.code).toBe(0);
    const orphans = JSON.parse(listed.stdout) as Array<{ type: string; id: string; name: string; resourceName: string; leftAt: string }>;
    const everything = [...h.server.inspect.organizations().map((o) => o.id), ...h.server.inspect.dataSources().map((d) => d.id)];
    expect(everything).toHaveLength(7);
    expect(orphans.map((o) => o.id).sort()).toEqual([...everything].sort());
    expect(orphans.find((o) => o.type === "Organization")).toMatchObject({ name: "Edges Org", resourceName: "org" });
    expect(
      orphans
        .filter((o) => o.type === "DataSource")
        .map((o) => o.name)
        .sort(),
    ).toEqual(["Edges warehouse 0", "Edges warehouse 0", "Edges warehouse 1", "Edges warehouse 1", "Edges warehouse 2", "Edges warehouse 2"]);
    for (const orphan of orphans) expect(Number.isNaN(Date.parse(orphan.leftAt))).toBe(false);
    const table = await orphansBin(h.ws, []);
    expect(table.stdout.split("\n")).toHaveLength(7 + 3);
    expect(table.stdout).not.toContain(PASSWORD);
  }, 300_000);
});

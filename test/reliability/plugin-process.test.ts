/**
 * The native plugin as a process under the real CLI: a Pulumi YAML program of one organization
 * and 50 data sources, the plugin a shim running this repository's build, against a reference
 * server whose data-source creates are slowed so that a `pulumi up` is still going when
 * (a) the plugin is SIGKILLed, or (b) the CLI gets a SIGINT, as from Ctrl-C. Counted on the
 * server: no object recorded in the state is ever created twice, an object the state lacks is one
 * whose create was in flight at the kill, and after the next `up` there is one object per resource.
 * (c) The plugin listens on 127.0.0.1 only and exits when the engine goes.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CANCELLED_NOTICE } from "../../src/native/provider";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server";
import { findMarkedProcesses, newRunId, survivors } from "../support/leftover-processes";
import { PLUGIN_BIN } from "../support/native-plugin";
import { writePluginShim } from "../support/plugin-shim";
import { PulumiWorkspace, resourcesOfType } from "../support/pulumi-workspace";
import { TIMEOUT_MS, recordFigures } from "./support/campaign";
import { PASSWORD, auditWorkspace, output, pollFor } from "./support/cli";

const toolchain = inject("pulumiToolchain");
const COUNT = 50;
const DS_TYPE = "analytics:index:DataSource";
/** Marks the processes of one workspace, so its plugins can be told from any other. */
const MARKER = "PLUGIN_PROCESS_TEST_RUN";

/** A YAML program of one organization and {@link COUNT} data sources named `<prefix> <i>`. */
function writeProgram(dir: string, prefix: string): string {
  const dataSources = Array.from({ length: COUNT }, (_, i) =>
    [
      `  ds${i}:`,
      "    type: analytics:DataSource",
      "    properties:",
      "      orgId: ${org.id}",
      "      type: direct",
      "      dialect: POSTGRES",
      `      displayName: ${prefix} ${i}`,
      "      host: 127.0.0.1",
      "      port: 5432",
      "      password: ${password}",
      "      sslEnabled: false",
    ].join("\n"),
  );
  const text = [
    `name: plugin-process-${prefix.toLowerCase()}`,
    "runtime: yaml",
    "plugins:",
    "  providers:",
    "    - name: analytics",
    "      path: ./plugin-bin",
    "config:",
    "  password:",
    "    type: string",
    "    secret: true",
    "resources:",
    "  org:",
    "    type: analytics:Organization",
    "    properties:",
    `      name: ${prefix} Org`,
    ...dataSources,
  ].join("\n");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `${text}\n`);
  return dir;
}

/** The live plugin processes started for a workspace marked `runId` (by `parent` only, when given). */
function pluginPids(runId: string, parent?: number): number[] {
  const parentOf = (pid: number) => {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  };
  return findMarkedProcesses(runId, { name: MARKER })
    .filter((p) => p.cmdline.includes(PLUGIN_BIN) && (parent === undefined || parentOf(p.pid) === parent))
    .map((p) => p.pid);
}

/** The local addresses a process listens on over TCP, as `address:port` in hex from /proc/net/tcp{,6}. */
function listeningAddresses(pid: number): string[] {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    const link = (() => {
      try {
        return fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        return "";
      }
    })();
    const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
    if (inode) inodes.add(inode);
  }
  const found: string[] = [];
  for (const table of ["tcp", "tcp6"]) {
    for (const line of fs.readFileSync(`/proc/${pid}/net/${table}`, "utf8").split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is field 1, st field 3 (0A = LISTEN), inode field 9.
      if (fields[3] === "0A" && inodes.has(fields[9] ?? "")) found.push(fields[1]!);
    }
  }
  return found;
}

describe("the native plugin as a process under the real CLI", () => {
  let server: ReferenceServer;
  const workspaces: PulumiWorkspace[] = [];
  const dirs: string[] = [];

  beforeAll(async () => {
    server = await startReferenceServer({ port: 0, bootstrapUsers: ["alice"], inspection: true });
  });
  afterAll(async () => {
    for (const ws of workspaces) ws.dispose();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    await server?.close();
  });

  /** A configured stack of the program for `prefix`, its processes marked with a fresh run id. */
  async function workspace(prefix: string): Promise<{ ws: PulumiWorkspace; runId: string }> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "plugin-process-"));
    dirs.push(dir);
    const runId = newRunId();
    const ws = await PulumiWorkspace.create(toolchain, { programDir: writeProgram(dir, prefix), withoutNodeModules: true, env: { [MARKER]: runId } });
    workspaces.push(ws);
    writePluginShim(path.join(ws.programDir, "plugin-bin"));
    await ws.pulumi(["config", "set", "analytics:baseUrl", server.url]);
    await ws.pulumi(["config", "set", "--secret", "analytics:apiKey", server.apiKeys.alice!]);
    await ws.pulumi(["config", "set", "--secret", "password", PASSWORD]);
    return { ws, runId };
  }

  const named = (prefix: string) => server.inspect.dataSources().filter((d) => d.displayName.startsWith(`${prefix} `));
  const stateDataSources = async (ws: PulumiWorkspace) => resourcesOfType(await ws.exportStack(), DS_TYPE).map((r) => r.id ?? "");

  it(
    "(a) SIGKILL of the plugin mid-up: the engine reports it, the state keeps every answered create, the next up creates only what the state lacks",
    async () => {
      const prefix = "Killed";
      const { ws, runId } = await workspace(prefix);
      server.faults.set({ routes: { createDataSource: { latencyMs: 300 } } });
      const running = ws.start(["up", "--yes", "--parallel", "4"]);
      let finished = false;
      void running.result.then(() => (finished = true));
      await pollFor(() => {
        if (finished) throw new Error(`pulumi up ended before the kill:\n${running.output()}`);
        return named(prefix).length >= 10 ? true : undefined;
      }, "10 data sources on the server");
      // The engine's own plugin (the YAML language host starts another, for the schema).
      const plugins = pluginPids(runId, running.pid);
      expect(plugins).toHaveLength(1);
      // (c) The plugin listens on 127.0.0.1 only (0100007F in /proc's byte order).
      const listening = listeningAddresses(plugins[0]!);
      expect(listening.length).toBeGreaterThan(0);
      for (const address of listening) expect(address).toMatch(/^0100007F:/);

      process.kill(plugins[0]!, "SIGKILL");
      const result = await running.result;
      server.faults.clear();
      expect(result.code).not.toBe(0);
      const text = output(result);
      // The engine's words, as docs/reliability.md quotes them: the plugin exited, and each create it cut off failed.
      expect(text).toMatch(/error: Detected that \S+pulumi-resource-analytics exited prematurely\./);
      // In flight at the kill: the creates the engine had sent and saw cut off (not those refused
      // a connection afterwards, never sent), at most the 4 it runs at once.
      const failed = [...text.matchAll(/analytics:index:DataSource \((ds\d+)\):\n\s+error: (.*)/g)];
      const cutOff = new Set(failed.filter((m) => !/connect: connection refused/.test(m[2]!)).map((m) => m[1]!));
      const inFlight = cutOff.size;
      expect(inFlight).toBeGreaterThan(0);
      expect(inFlight).toBeLessThanOrEqual(4);
      // In-flight creates the kill cut off finish on the server after their delay.
      await new Promise((resolve) => setTimeout(resolve, 1_000));

      const inState = await stateDataSources(ws);
      const onServer = named(prefix);
      expect(inState.filter((id) => !onServer.some((d) => d.id === id))).toEqual([]);
      const unrecorded = onServer.filter((d) => !inState.includes(d.id));
      expect(unrecorded.length).toBeLessThanOrEqual(inFlight);
      // Each object stored but unrecorded belongs to a resource the output named as failed.
      for (const d of unrecorded) expect([...cutOff], text).toContain(`ds${d.displayName.slice(prefix.length + 1)}`);

      // The next up creates only what the state lacks: no object recorded in the state is created twice.
      await ws.pulumi(["up", "--yes"]);
      const finalState = await stateDataSources(ws);
      expect(finalState).toHaveLength(COUNT);
      expect(finalState.filter((id) => inState.includes(id)).sort()).toEqual([...inState].sort());
      const perName = new Map<string, number>();
      for (const d of named(prefix)) perName.set(d.displayName, (perName.get(d.displayName) ?? 0) + 1);
      const twice = [...perName].filter(([, n]) => n > 1).map(([name]) => name);
      expect(twice.sort()).toEqual(unrecorded.map((d) => d.displayName).sort());
      expect(named(prefix)).toHaveLength(COUNT + unrecorded.length);
      expect(await survivors(runId, { name: MARKER, graceMs: 10_000 }).then((alive) => alive.filter((p) => p.cmdline.includes(PLUGIN_BIN)))).toEqual([]);
      const hits = auditWorkspace(ws, [PASSWORD, server.apiKeys.alice!]);
      expect(hits).toEqual([]);
      recordFigures({
        item: 5,
        scenario: `CLI (YAML, native plugin): ${COUNT} data sources, the plugin SIGKILLed mid-up (${inFlight} creates in flight, ${unrecorded.length} of them stored unrecorded)`,
        faultsInjected: 1,
        operations: ws.transcript.length,
        duplicates: twice.length - unrecorded.length,
        lostObjects: inState.filter((id) => !onServer.some((d) => d.id === id)).length,
        crashes: 0,
        serverErrors: 0,
        plaintextHits: hits.length,
      });
    },
    TIMEOUT_MS,
  );

  it(
    "(b) SIGINT to pulumi up mid-up: Cancel reaches the plugin, creates sent finish and are recorded, nothing new starts, the next up completes with one object per resource",
    async () => {
      const prefix = "Cancelled";
      const { ws, runId } = await workspace(prefix);
      server.faults.set({ routes: { createDataSource: { latencyMs: 300 } } });
      const running = ws.start(["up", "--yes", "--parallel", "4"]);
      let finished = false;
      void running.result.then(() => (finished = true));
      await pollFor(() => {
        if (finished) throw new Error(`pulumi up ended before the interrupt:\n${running.output()}`);
        return named(prefix).length >= 10 ? true : undefined;
      }, "10 data sources on the server");
      process.kill(running.pid!, "SIGINT");
      const result = await running.result;
      server.faults.clear();
      const text = output(result);
      expect(result.code).not.toBe(0);
      expect(text).toContain(CANCELLED_NOTICE);
      // Nothing starts after the cancelled run: the server holds exactly what the state records.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const inState = await stateDataSources(ws);
      expect(inState.length).toBeLessThan(COUNT);
      expect(named(prefix).map((d) => d.id).sort()).toEqual([...inState].sort());
      expect(await survivors(runId, { name: MARKER, graceMs: 10_000 }).then((alive) => alive.filter((p) => p.cmdline.includes(PLUGIN_BIN)))).toEqual([]);

      await ws.pulumi(["up", "--yes"]);
      const finalState = await stateDataSources(ws);
      expect(finalState).toHaveLength(COUNT);
      expect(named(prefix).map((d) => d.id).sort()).toEqual([...finalState].sort());
      expect(new Set(named(prefix).map((d) => d.displayName)).size).toBe(COUNT);
    },
    TIMEOUT_MS,
  );

  it(
    "(c) the plugin exits when the engine goes away: the CLI SIGKILLed mid-up leaves no plugin behind",
    async () => {
      const prefix = "Orphaned";
      const { ws, runId } = await workspace(prefix);
      server.faults.set({ routes: { createDataSource: { latencyMs: 300 } } });
      const running = ws.start(["up", "--yes", "--parallel", "4"]);
      await pollFor(() => (named(prefix).length >= 3 ? true : undefined), "3 data sources on the server");
      const plugins = pluginPids(runId, running.pid);
      expect(plugins).toHaveLength(1);
      process.kill(running.pid!, "SIGKILL");
      await running.result;
      server.faults.clear();
      // Its stdin closes with the engine: it stops within its shutdown grace, in-flight creates answered or cut.
      const left = await survivors(runId, { name: MARKER, graceMs: 15_000 });
      // The YAML language host outlives a SIGKILLed CLI (Pulumi's, not the plugin's doing): stopped here.
      for (const p of left) if (!p.cmdline.includes(PLUGIN_BIN)) process.kill(p.pid, "SIGKILL");
      expect(left.filter((p) => p.cmdline.includes(PLUGIN_BIN))).toEqual([]);
    },
    TIMEOUT_MS,
  );
});

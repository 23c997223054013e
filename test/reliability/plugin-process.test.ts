/**
 * The native plugin as a process under the real CLI: a Pulumi YAML program of one organization
 * and 50 data sources, the plugin a shim running this repository's build, against a reference
 * server whose data-source creates are slowed so that a `pulumi up` is still going when
 * (a) the plugin is SIGKILLed, or (b) the CLI gets a SIGINT, as from Ctrl-C. Counted on the
 * server, once the plugin has exited and the server has no request in hand (so nothing can change
 * any more): no object recorded in the state is ever created twice, an object the state lacks is
 * one whose create was in flight at the kill, and after the next `up` there is one object per resource.
 * (c) The plugin listens on 127.0.0.1 only and exits when the engine goes.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CANCELLED_NOTICE } from "../../src/native/provider";
import { startReferenceServer, type DataSourceInspection, type ReferenceServer } from "../../src/reference-server";
import { findMarkedProcesses, newRunId, survivors } from "../support/leftover-processes";
import { PLUGIN_BIN } from "../support/native-plugin";
import { writePluginShim } from "../support/plugin-shim";
import { PulumiWorkspace, resourcesOfType, type CommandResult, type RunningCommand } from "../support/pulumi-workspace";
import { TIMEOUT_MS, recordFigures } from "./support/campaign";
import { PASSWORD, auditWorkspace, output, pollFor } from "./support/pulumi-runs";
import { YAML_PASSWORD_KEY, writeYamlProgram } from "./support/yaml-program";

const toolchain = inject("pulumiToolchain");
const COUNT = 50;
const DS_TYPE = "analytics:index:DataSource";
/** Marks the processes of one workspace, so its plugins can be told from any other. */
const MARKER = "PLUGIN_PROCESS_TEST_RUN";

/** A YAML program of one organization and {@link COUNT} data sources `ds<i>` named `<prefix> <i>`. */
function writeProgram(dir: string, prefix: string): string {
  return writeYamlProgram(dir, {
    project: `plugin-process-${prefix.toLowerCase()}`,
    orgName: `${prefix} Org`,
    count: COUNT,
    resourcePrefix: "ds",
    displayPrefix: prefix,
  });
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

/** What an interrupted `up` left, read once nothing can change any more. */
interface Interrupted {
  ws: PulumiWorkspace;
  runId: string;
  result: CommandResult;
  /** Everything the interrupted `up` printed. */
  text: string;
  /** Ids of the data sources in the state. */
  inState: string[];
  /** The program's data sources on the server. */
  onServer: DataSourceInspection[];
  /** API requests the server received from the start of the scenario. */
  requestsBefore: number;
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
    await ws.setConfig({ "analytics:baseUrl": server.url }, { "analytics:apiKey": server.apiKeys.alice!, [YAML_PASSWORD_KEY]: PASSWORD });
    return { ws, runId };
  }

  const named = (prefix: string) => server.inspect.dataSources().filter((d) => d.displayName.startsWith(`${prefix} `));
  const stateDataSources = async (ws: PulumiWorkspace) => resourcesOfType(await ws.exportStack(), DS_TYPE).map((r) => r.id ?? "");
  /** API requests the server has received but not yet answered (nor seen abandoned): creates still in its hands. */
  const inHand = () => {
    const { total, byRoute } = server.inspect.requests();
    return total - Object.values(byRoute).reduce((sum, byStatus) => sum + Object.values(byStatus).reduce((a, b) => a + b, 0), 0);
  };

  /**
   * `pulumi up` of the program for `prefix` with slowed creates, `interrupt`ed once 10 data sources
   * are on the server; then the state and the server are read once nothing can change them any
   * more: the plugin has exited (no create can be sent) and the server has answered every request
   * it received (the server finishes a create whose client went away; the request log records it
   * only after). Either wait failing is a failure, never a pass on a half-settled server.
   */
  async function interruptedUp(prefix: string, interrupt: (running: RunningCommand, runId: string) => void): Promise<Interrupted> {
    const { ws, runId } = await workspace(prefix);
    const requestsBefore = server.inspect.requestCount();
    server.faults.set({ routes: { createDataSource: { latencyMs: 300 } } });
    const running = ws.start(["up", "--yes", "--parallel", "4"]);
    let finished = false;
    void running.result.then(() => (finished = true));
    await pollFor(() => {
      if (finished) throw new Error(`pulumi up ended before the interruption:\n${running.output()}`);
      return named(prefix).length >= 10 ? true : undefined;
    }, "10 data sources on the server");
    interrupt(running, runId);
    const result = await running.result;
    server.faults.clear();
    expect(result.code).not.toBe(0);
    await pollFor(() => (pluginPids(runId).length === 0 ? true : undefined), "the plugin to exit");
    // Twice in a row, the same count received: a request the plugin wrote just before a SIGKILL is read too.
    let lastTotal = -1;
    await pollFor(() => {
      const total = server.inspect.requestCount();
      const settled = total === lastTotal && inHand() === 0;
      lastTotal = total;
      return settled ? true : undefined;
    }, "the server to answer every request it received");
    // No pending operation is left: the next `up` needs no `refresh --clear-pending-creates`.
    const { deployment } = (await ws.exportStack()) as { deployment: { pending_operations?: unknown[] } };
    expect(deployment.pending_operations ?? []).toEqual([]);
    const inState = await stateDataSources(ws);
    const onServer = named(prefix);
    // Nothing the state records is missing from the server.
    expect(inState.filter((id) => !onServer.some((d) => d.id === id))).toEqual([]);
    return { ws, runId, result, text: output(result), inState, onServer, requestsBefore };
  }

  /**
   * The next `up` completes the stack: every id the state held stays, no object the state recorded
   * is created twice, and only the objects the interrupted run stored unrecorded are on the server
   * twice. Then the secrets audit, and the scenario's figures for the campaign.
   */
  async function upAgainAndRecord(run: Interrupted, prefix: string, scenario: string): Promise<void> {
    const { ws, inState, onServer } = run;
    const unrecorded = onServer.filter((d) => !inState.includes(d.id));
    await ws.pulumi(["up", "--yes"]);
    const finalState = await stateDataSources(ws);
    expect(finalState).toHaveLength(COUNT);
    expect(finalState.filter((id) => inState.includes(id)).sort()).toEqual([...inState].sort());
    const perName = new Map<string, number>();
    for (const d of named(prefix)) perName.set(d.displayName, (perName.get(d.displayName) ?? 0) + 1);
    const twice = [...perName].filter(([, n]) => n > 1).map(([name]) => name);
    expect(twice.sort()).toEqual(unrecorded.map((d) => d.displayName).sort());
    expect(named(prefix)).toHaveLength(COUNT + unrecorded.length);
    expect(await survivors(run.runId, { name: MARKER, graceMs: 10_000 }).then((alive) => alive.filter((p) => p.cmdline.includes(PLUGIN_BIN)))).toEqual([]);
    const hits = auditWorkspace(ws, [PASSWORD, server.apiKeys.alice!]);
    expect(hits).toEqual([]);
    recordFigures({
      item: 5,
      path: "native",
      scenario,
      faultsInjected: 1,
      operations: ws.transcript.length + server.inspect.requestCount() - run.requestsBefore,
      duplicates: twice.length - unrecorded.length,
      lostObjects: inState.filter((id) => !onServer.some((d) => d.id === id)).length,
      crashes: 0,
      serverErrors: 0,
      plaintextHits: hits.length,
    });
  }

  it(
    "(a) SIGKILL of the plugin mid-up: the engine reports it, the state keeps every answered create, the next up creates only what the state lacks",
    async () => {
      const prefix = "Killed";
      const run = await interruptedUp(prefix, (running, runId) => {
        // The engine's own plugin (the YAML language host starts another, for the schema).
        const plugins = pluginPids(runId, running.pid);
        expect(plugins).toHaveLength(1);
        // (c) The plugin listens on 127.0.0.1 only (0100007F in /proc's byte order).
        const listening = listeningAddresses(plugins[0]!);
        expect(listening.length).toBeGreaterThan(0);
        for (const address of listening) expect(address).toMatch(/^0100007F:/);
        process.kill(plugins[0]!, "SIGKILL");
      });
      const { text, inState, onServer } = run;
      // The engine's words, as docs/reliability.md quotes them: the plugin exited, and each create it cut off failed.
      expect(text).toMatch(/error: Detected that \S+pulumi-resource-analytics exited prematurely\./);
      // Cut off at the kill: the resources whose call the engine had sent (a create, or a check,
      // which sends no API request) and saw fail, not those refused a connection afterwards, never sent.
      const failed = [...text.matchAll(/analytics:index:DataSource \((ds\d+)\):\n\s+error: (.*)/g)];
      const cutOff = new Set(failed.filter((m) => !/connect: connection refused/.test(m[2]!)).map((m) => m[1]!));
      expect(cutOff.size).toBeGreaterThan(0);
      // Stored but unrecorded: at most the 4 creates `--parallel 4` runs at once, each named as failed.
      const unrecorded = onServer.filter((d) => !inState.includes(d.id));
      expect(unrecorded.length).toBeLessThanOrEqual(4);
      for (const d of unrecorded) expect([...cutOff], text).toContain(`ds${d.displayName.slice(prefix.length + 1)}`);
      await upAgainAndRecord(
        run,
        prefix,
        `CLI (YAML, native plugin): ${COUNT} data sources, the plugin SIGKILLed mid-up (${cutOff.size} calls cut off, ${unrecorded.length} creates stored unrecorded)`,
      );
    },
    TIMEOUT_MS,
  );

  it(
    "(b) SIGINT to pulumi up mid-up: Cancel reaches the plugin, creates sent finish and are recorded, nothing new starts, the next up completes with one object per resource",
    async () => {
      const prefix = "Cancelled";
      const run = await interruptedUp(prefix, (running) => process.kill(running.pid!, "SIGINT"));
      expect(run.text).toContain(CANCELLED_NOTICE);
      // Nothing starts after the cancelled run: the server holds exactly what the state records.
      expect(run.inState.length).toBeLessThan(COUNT);
      expect(run.onServer.map((d) => d.id).sort()).toEqual([...run.inState].sort());
      await upAgainAndRecord(
        run,
        prefix,
        `CLI (YAML, native plugin): ${COUNT} data sources, SIGINT (Ctrl-C) to pulumi up mid-up (${run.inState.length} recorded, none stored unrecorded)`,
      );
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

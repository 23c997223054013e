/**
 * Reliability item 4 (and the item-10 audit): the reference server, as its own process with a state
 * file, is SIGKILLed in the middle of a `pulumi up` of 50 data sources, then started again on the
 * same port, on both paths (the TypeScript program on the dynamic providers, its YAML twin on the
 * native plugin). The state must hold exactly the objects the provider saw created, every failed
 * create is listed under its resource and names its object, and reruns must converge with no
 * duplicates.
 *
 * The kill lands while every in-flight create is held before its commit (a fault holds new
 * creates; the kill waits until the creates admitted before it are answered), so each object the
 * server stored was also answered. A create committed but unanswered is the ambiguous case of
 * item 2; the campaign's unheld rounds check that every such object was announced by an error.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import type { PulumiWorkspace } from "../support/pulumi-workspace";
import { TIMEOUT_MS, recordFigures, scale } from "./support/campaign";
import {
  CLI_PATHS,
  PASSWORD,
  TYPES,
  auditWorkspace,
  cliLabel,
  fileForAudit,
  resourceFailures,
  manyWorkspace,
  output,
  pollFor,
  stateIds,
  type CliPath,
} from "./support/pulumi-runs";
import {
  inspectJson,
  serverDataSourceIds,
  serverOrganizationIds,
  serverRequests,
  setFaults,
  startServerProcess,
  type ServerProcess,
} from "./support/server-process";

const toolchain = inject("pulumiToolchain");
const DS_ROUTE = "POST /api/public/organizations/{orgId}/data-sources";
const COUNT = 50;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Answered requests of the data-source route. */
async function answeredDataSourceCreates(url: string): Promise<number> {
  return Object.values((await serverRequests(url)).byRoute[DS_ROUTE] ?? {}).reduce((a, b) => a + b, 0);
}

/**
 * Every create the kill made fail, as the CLI's diagnostics list it: under its own resource
 * (`<type> (warehouse-<i>)`), its one error naming that data source, "Warehouse <i>"; nothing
 * else failed.
 */
function expectFailuresNamed(text: string, cliPath: CliPath): void {
  const failed = [...resourceFailures(text)];
  expect(failed.length, text).toBeGreaterThan(0);
  for (const [heading, errors] of failed) {
    expect(heading.startsWith(`${TYPES[cliPath].dataSource} (`), `${heading}: ${errors.join(" ")}`).toBe(true);
    const index = /\(warehouse-(\d+)\)$/.exec(heading)?.[1];
    expect(errors, heading).toEqual([
      expect.stringMatching(
        new RegExp(`^error: .*[Tt]he data source "Warehouse ${index}" in organization org_\\w+ (was not|may or may not have been) created`),
      ),
    ]);
  }
}

interface KillOutcome {
  /** Objects in the stack's state, by id. */
  inState: string[];
  /** Display names the CLI said may or may not have been created. */
  announced: string[];
}

/**
 * One `pulumi up` that the server does not survive: killed once it holds `killAt` data sources.
 * With `hold`, new creates are held before their commit first, and the kill waits until every
 * create admitted before the hold is answered.
 */
async function upWithKill(ws: PulumiWorkspace, cliPath: CliPath, server: ServerProcess, killAt: number, hold: boolean): Promise<KillOutcome> {
  await setFaults(server.url, { routes: { createDataSource: { latencyMs: 40 } } });
  const running = ws.start(["up", "--yes", "--parallel", "4"]);
  let finished = false;
  void running.result.then(() => (finished = true));
  await pollFor(async () => {
    if (finished) throw new Error(`pulumi up ended before the kill:\n${running.output()}`);
    return (await serverDataSourceIds(server.url)).length >= killAt ? true : undefined;
  }, "the server to hold enough data sources");
  if (hold) {
    // From here on, creates wait before their commit; those admitted before are counted by `latency`.
    const { injected } = await setFaults(server.url, { routes: { createDataSource: { latencyMs: 600_000 } } });
    const admitted = injected.latency;
    await pollFor(async () => ((await answeredDataSourceCreates(server.url)) >= admitted ? true : undefined), "admitted creates to be answered");
  }
  await server.kill();
  const result = await running.result;
  expect(result.code).not.toBe(0);
  const text = output(result);
  expectFailuresNamed(text, cliPath);
  const announced = [...text.matchAll(/The data source "(Warehouse \d+)" in organization org_\w+ may or may not have been created/g)].map((m) => m[1]!);
  const state = await stateIds(ws);
  return { inState: [...state.orgs, ...state.dataSources], announced };
}

describe("item 4: server killed in the middle of a pulumi up of 50 data sources", () => {
  const modes = scale(
    [{ hold: true, rounds: 1 }],
    [
      { hold: true, rounds: 4 },
      { hold: false, rounds: 3 },
    ],
  );
  const cases = CLI_PATHS.flatMap((cliPath) => modes.map((mode) => ({ cliPath, ...mode })));
  it.each(cases)(
    "$cliPath: state holds exactly what the provider saw created, and reruns converge with 0 duplicates (held: $hold, rounds: $rounds)",
    async ({ cliPath, hold, rounds }) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reliability-kill-"));
      cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
      const statePath = path.join(dir, "state.json");
      let server = await startServerProcess({ port: 0, statePath, bootstrapUser: "alice" });
      cleanups.push(() => server.kill());
      const apiKey = server.apiKey!;
      const ws = await manyWorkspace(toolchain, { path: cliPath, baseUrl: server.url, apiKey, count: COUNT });
      cleanups.push(() => ws.dispose());
      const serverLogs: string[] = [];

      let kills = 0;
      let silentOrphans = 0;
      const announced = new Set<string>();
      let lost = 0;
      let requests = 0;
      for (let round = 0; round < rounds; round++) {
        const held = (await serverDataSourceIds(server.url)).length;
        // Somewhere in the remaining creates, never at the very start or end.
        const killAt = held + 5 + ((round * 13 + 7) % Math.max(1, COUNT - held - 10));
        if (killAt >= COUNT) break;
        const outcome = await upWithKill(ws, cliPath, server, killAt, hold);
        for (const name of outcome.announced) announced.add(name);
        kills++;
        serverLogs.push(server.stdout());
        server = await startServerProcess({ port: server.port, statePath });
        const onServer = [...(await serverOrganizationIds(server.url)), ...(await serverDataSourceIds(server.url))];
        requests += (await serverRequests(server.url)).total;
        // Nothing the provider saw created is missing from the server.
        const missing = outcome.inState.filter((id) => !onServer.includes(id));
        lost += missing.length;
        expect(missing).toEqual([]);
        // Everything on the server beyond the state was announced as "may or may not have been created".
        const extra = onServer.filter((id) => !outcome.inState.includes(id));
        const names = await Promise.all(extra.map(async (id) => (await inspectJson<{ displayName?: string }>(server.url, `data-sources/${id}`)).displayName));
        const silent = names.filter((name) => name === undefined || !announced.has(name));
        silentOrphans = silent.length;
        expect(silent).toEqual([]);
        if (hold) expect(extra).toEqual([]);
      }

      // The server is back: the next up converges and a second one has nothing to do.
      await ws.pulumi(["up", "--yes"]);
      await ws.pulumi(["preview", "--expect-no-changes"]);
      const state = await stateIds(ws);
      const dataSources = await inspectJson<Array<{ id: string; displayName: string }>>(server.url, "data-sources");
      expect(state.orgs).toEqual(await serverOrganizationIds(server.url));
      expect(state.dataSources).toHaveLength(COUNT);
      for (const id of state.dataSources) expect(dataSources.some((d) => d.id === id)).toBe(true);
      // Objects on the server vs resources in state: only orphans announced by an error may be extra.
      const extra = dataSources.filter((d) => !state.dataSources.includes(d.id));
      const announcedOrphans = extra.filter((d) => announced.has(d.displayName)).length;
      expect(extra.length).toBe(announcedOrphans);
      if (hold) expect(extra).toEqual([]);
      requests += (await serverRequests(server.url)).total;
      await server.stop();
      serverLogs.push(server.stdout());

      // The bin shows the bootstrap key exactly once, at start; no request line ever carries it.
      expect(serverLogs[0]!.split(apiKey)).toHaveLength(2);
      const logs = serverLogs.map((text, i) => ({ where: `server log #${i}`, text: text.replace(`API key for alice (shown once): ${apiKey}\n`, "") }));
      const hits = auditWorkspace(ws, [PASSWORD, apiKey], [...fileForAudit(statePath), ...logs]);
      expect(hits).toEqual([]);
      recordFigures({
        item: 4,
        path: cliPath,
        scenario: `${cliLabel(cliPath)}: ${COUNT} data sources, ${kills} SIGKILLs of the server mid-up (${hold ? "in-flight creates held before commit" : `unheld; ${announcedOrphans} announced orphans`})`,
        faultsInjected: kills,
        operations: ws.transcript.length + requests,
        duplicates: extra.length - announcedOrphans + silentOrphans,
        lostObjects: lost,
        crashes: 0,
        serverErrors: 0,
        plaintextHits: hits.length,
      });
    },
    TIMEOUT_MS,
  );
});

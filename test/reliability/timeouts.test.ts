/**
 * Reliability item 5 (and the item-10 audit): a server slower than the client's timeout, and a
 * `pulumi up` interrupted while a create hangs.
 */
import { afterEach, describe, expect, inject, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server";
import type { PulumiWorkspace } from "../support/pulumi-workspace";
import { TIMEOUT_MS, recordFigures, scale, totalInjected } from "./support/campaign";
import { DS_TYPE, PASSWORD, auditWorkspace, manyWorkspace, output, pollFor, stateIds } from "./support/pulumi-runs";

const toolchain = inject("pulumiToolchain");
const DS_ROUTE = "POST /api/public/organizations/{orgId}/data-sources";
/** Longer than any test: the server holds the request until it is closed. */
const HANG_MS = 600_000;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(env: NodeJS.ProcessEnv = {}): Promise<{ s: ReferenceServer; ws: PulumiWorkspace }> {
  const s = await startReferenceServer({ bootstrapUsers: ["alice"], inspection: true });
  cleanups.push(() => s.close());
  const ws = await manyWorkspace(toolchain, { baseUrl: s.url, apiKey: s.apiKeys.alice!, env });
  cleanups.push(() => ws.dispose());
  return { s, ws };
}

async function expectConverged(s: ReferenceServer, ws: PulumiWorkspace): Promise<void> {
  const state = await stateIds(ws);
  expect(s.inspect.organizations().map((o) => o.id)).toEqual(state.orgs);
  expect(s.inspect.dataSources().map((d) => d.id)).toEqual(state.dataSources);
  expect(state.dataSources).toHaveLength(1);
}

describe("item 5: a server slower than the client timeout", () => {
  it(
    "fails the create with a clear timeout error instead of hanging, sends it once, and the next up converges",
    async () => {
      const rounds = scale(1, 3);
      const { s, ws } = await setup({ ANALYTICS_REQUEST_TIMEOUT_MS: "1500" });
      for (let round = 0; round < rounds; round++) {
        s.faults.set({ routes: { createDataSource: { latencyMs: HANG_MS } } });
        const up = await ws.pulumi(["up", "--yes"], { allowFailure: true });
        expect(up.code).not.toBe(0);
        expect(output(up)).toMatch(
          /The request failed after it was sent \(UND_ERR_HEADERS_TIMEOUT: timed out: no complete answer within 1500 ms\)\. The data source "Warehouse 0" in organization org_\w+ may or may not have been created\./,
        );
        expect(s.inspect.requests().byRoute[DS_ROUTE]?.none ?? 0).toBe(0);
        expect(s.faults.injected().latency).toBe(round + 1);
        expect(s.inspect.dataSources()).toEqual([]);
        expect((await stateIds(ws)).dataSources).toEqual([]);
      }
      s.faults.clear();
      await ws.pulumi(["up", "--yes"]);
      await expectConverged(s, ws);
      const hits = auditWorkspace(ws, [PASSWORD, s.apiKeys.alice!]);
      expect(hits).toEqual([]);
      recordFigures({
        item: 5,
        path: "dynamic",
        scenario: `CLI: ${rounds} creates held past a 1.5 s client timeout`,
        faultsInjected: totalInjected(s.faults.injected()),
        operations: ws.transcript.length + s.inspect.requestCount(),
        duplicates: s.inspect.dataSources().length - 1,
        lostObjects: 0,
        crashes: 0,
        serverErrors: 0,
        plaintextHits: hits.length,
      });
    },
    TIMEOUT_MS,
  );

  it(
    "recovers from a pulumi up killed while a create hangs: cancel the lock, clear the pending create, up again",
    async () => {
      const { s, ws } = await setup();
      s.faults.set({ routes: { createDataSource: { latencyMs: HANG_MS } } });
      const running = ws.start(["up", "--yes"]);
      await pollFor(() => (s.faults.injected().latency >= 1 ? true : undefined), "the data source create to reach the server");
      running.signal("SIGKILL");
      const killed = await running.result;
      expect(killed.code).not.toBe(0);
      s.faults.clear();

      // What the user finds: the stack is locked, and the state names the create that was cut short.
      const locked = await ws.pulumi(["up", "--yes"], { allowFailure: true });
      expect(locked.code).not.toBe(0);
      expect(output(locked)).toMatch(/the stack is currently locked by 1 lock\(s\).*delete the lock file with `pulumi cancel`/s);
      const pending = (await ws.exportStack()).deployment as { pending_operations?: Array<{ type: string; resource: { type: string } }> };
      expect(pending.pending_operations?.map((op) => [op.type, op.resource.type])).toEqual([["creating", DS_TYPE]]);
      expect((await stateIds(ws)).orgs).toEqual(s.inspect.organizations().map((o) => o.id));
      // The held create never reached its commit, so the service has nothing to reconcile.
      expect(s.inspect.dataSources()).toEqual([]);

      // The documented recovery: release the lock, drop the pending create, run up again.
      await ws.pulumi(["cancel", "--yes"]);
      await ws.pulumi(["refresh", "--clear-pending-creates", "--yes"]);
      const after = (await ws.exportStack()).deployment as { pending_operations?: unknown[] };
      expect(after.pending_operations ?? []).toEqual([]);
      await ws.pulumi(["up", "--yes"]);
      await ws.pulumi(["preview", "--expect-no-changes"]);
      await expectConverged(s, ws);
      const hits = auditWorkspace(ws, [PASSWORD, s.apiKeys.alice!]);
      expect(hits).toEqual([]);
      recordFigures({
        item: 5,
        path: "dynamic",
        scenario: "CLI: pulumi up SIGKILLed during a held create, then cancel + refresh --clear-pending-creates + up",
        faultsInjected: totalInjected(s.faults.injected()) + 1,
        operations: ws.transcript.length + s.inspect.requestCount(),
        duplicates: s.inspect.dataSources().length - 1,
        lostObjects: 0,
        crashes: 0,
        serverErrors: 0,
        plaintextHits: hits.length,
      });
    },
    TIMEOUT_MS,
  );
});

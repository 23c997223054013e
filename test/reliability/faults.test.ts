/**
 * Reliability items 1-3 (and the item-10 audit after each): injected faults on the create path,
 * seen through real `pulumi up` runs on both paths (the TypeScript program on the dynamic
 * providers, its YAML twin on the native plugin) and through the client over the production
 * transport. Nothing lost, nothing duplicated, every error says what the user needs to know under
 * the resource it belongs to, and the next `pulumi up` leaves one object per resource.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import { AmbiguousCreateError, AnalyticsClient, undiciTransport, type RetryEvent } from "../../src/client";
import { startReferenceServer, type ReferenceServer, type RequestLogEntry } from "../../src/reference-server";
import type { PulumiWorkspace } from "../support/pulumi-workspace";
import { unusedPort } from "../support/tcp-server";
import { TIMEOUT_MS, recordFigures, scale, totalInjected } from "./support/campaign";
import {
  CLI_PATHS,
  NOTICE_PREFIX,
  PASSWORD,
  TYPES,
  auditWorkspace,
  cliLabel,
  manyWorkspace,
  output,
  resourceFailures,
  stateIds,
  type CliPath,
} from "./support/pulumi-runs";

const toolchain = inject("pulumiToolchain");
const ORG_ROUTE = "POST /api/public/organizations";
const DS_ROUTE = "POST /api/public/organizations/{orgId}/data-sources";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(options: Parameters<typeof startReferenceServer>[0] = {}): Promise<ReferenceServer> {
  const started = await startReferenceServer({ bootstrapUsers: ["alice"], inspection: true, ...options });
  cleanups.push(() => started.close());
  return started;
}

async function workspace(cliPath: CliPath, baseUrl: string, apiKey?: string): Promise<PulumiWorkspace> {
  const ws = await manyWorkspace(toolchain, { path: cliPath, baseUrl, ...(apiKey === undefined ? {} : { apiKey }) });
  cleanups.push(() => ws.dispose());
  return ws;
}

/** Server-side log entries of one route, oldest first. */
function entries(s: ReferenceServer, route: string): RequestLogEntry[] {
  return s.inspect.requests().recent.filter((e) => `${e.method} ${e.route}` === route);
}

/** Milliseconds between consecutive requests, as the server received them. */
function gaps(list: RequestLogEntry[]): number[] {
  return list.slice(1).map((e, i) => Date.parse(e.receivedAt) - Date.parse(list[i]!.receivedAt));
}

/** Objects on the server vs resources in state: duplicates (extra on the server) and lost (in state, not on the server). */
async function compare(s: ReferenceServer, ws: PulumiWorkspace): Promise<{ duplicates: number; lost: number }> {
  const state = await stateIds(ws);
  const onServer = [...s.inspect.organizations().map((o) => o.id), ...s.inspect.dataSources().map((d) => d.id)];
  const inState = [...state.orgs, ...state.dataSources];
  return { duplicates: onServer.filter((id) => !inState.includes(id)).length, lost: inState.filter((id) => !onServer.includes(id)).length };
}

/** The attempt numbers of the distinct retry notices matching `what`, each with its path's {@link NOTICE_PREFIX}. */
function retryAttempts(text: string, cliPath: CliPath, what: string): string[] {
  // The engine prints each line live and again in its summary: count distinct attempts.
  const found = [...text.matchAll(new RegExp(`(info: )?Retrying the create of ${what} \\(attempt (\\d) failed: [^)]*\\)`, "g"))];
  expect(found.length).toBeGreaterThan(0);
  for (const m of found) expect(m[1] ?? "").toBe(NOTICE_PREFIX[cliPath]);
  return [...new Set(found.map((m) => m[2]!))].sort();
}

/** The one error of a failed `up`: the CLI's diagnostics list it under the organization (`org`) or the data source (`warehouse-0`), and nothing else failed. */
function errorUnder(text: string, cliPath: CliPath, resource: "org" | "warehouse-0"): string {
  const heading = `${resource === "org" ? TYPES[cliPath].org : TYPES[cliPath].dataSource} (${resource})`;
  const failures = resourceFailures(text);
  expect([...failures.keys()], text).toEqual([heading]);
  expect(failures.get(heading), text).toHaveLength(1);
  return failures.get(heading)![0]!;
}

/** The next `pulumi up` succeeds, and the server then holds exactly the stack's objects: one organization, one data source. */
async function convergesToOnePerResource(s: ReferenceServer, ws: PulumiWorkspace): Promise<void> {
  await ws.pulumi(["up", "--yes"]);
  const state = await stateIds(ws);
  expect(s.inspect.organizations().map((o) => o.id)).toEqual(state.orgs);
  expect(s.inspect.dataSources().map((d) => d.id)).toEqual(state.dataSources);
  expect([state.orgs.length, state.dataSources.length]).toEqual([1, 1]);
}

function nonInjected5xx(s: ReferenceServer): number {
  let count = 0;
  for (const statuses of Object.values(s.inspect.requests().byRoute)) {
    for (const [status, n] of Object.entries(statuses)) if (status.startsWith("5")) count += n;
  }
  return count - s.faults.injected().error;
}

describe("item 1: connection refused on the first create", () => {
  it.each(CLI_PATHS)(
    "%s: pulumi up retries a refused connection, reports nothing was created, and the next up creates exactly one of each",
    async (cliPath) => {
      const port = await unusedPort();
      const ws = await workspace(cliPath, `http://127.0.0.1:${port}`, "analytics_key_0000000000000000000000000000dead");
      const refused = await ws.pulumi(["up", "--yes"], { allowFailure: true });
      expect(refused.code).not.toBe(0);
      const text = output(refused);
      expect(retryAttempts(text, cliPath, 'organization "Reliability Org" in \\d+ s')).toEqual(["1", "2", "3"]);
      expect(text).not.toMatch(/attempt \d failed: (?!ECONNREFUSED)/);
      expect(errorUnder(text, cliPath, "org")).toMatch(
        /^error: Could not reach the analytics API at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED: [^)]*\) after 4 attempts; the organization "Reliability Org" was not created/,
      );
      expect(await stateIds(ws)).toEqual({ orgs: [], dataSources: [] });

      const s = await server({ port });
      await ws.pulumi(["config", "set", "--secret", "analytics:apiKey", s.apiKeys.alice!]);
      await convergesToOnePerResource(s, ws);
      expect(s.inspect.requestCount()).toBe(2);
      const hits = auditWorkspace(ws, [PASSWORD, s.apiKeys.alice!]);
      expect(hits).toEqual([]);
      const { duplicates, lost } = await compare(s, ws);
      expect({ duplicates, lost }).toEqual({ duplicates: 0, lost: 0 });
      recordFigures({
        item: 1,
        path: cliPath,
        scenario: `${cliLabel(cliPath)}: up against a refused port, then up after start`,
        faultsInjected: 4,
        operations: ws.transcript.length + s.inspect.requestCount(),
        duplicates,
        lostObjects: lost,
        crashes: 0,
        serverErrors: nonInjected5xx(s),
        plaintextHits: hits.length,
      });
    },
    TIMEOUT_MS,
  );

  it(
    "the client retries while the server is still starting and creates exactly one object",
    async () => {
      const rounds = scale(3, 300);
      let refusals = 0;
      let requests = 0;
      let duplicates = 0;
      let lost = 0;
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reliability-refused-"));
      cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
      for (let round = 0; round < rounds; round++) {
        // A key minted into a state file, and the port of a server that is then stopped.
        const statePath = path.join(dir, `state-${round}.json`);
        const first = await startReferenceServer({ statePath, bootstrapUsers: ["alice"] });
        const key = first.apiKeys.alice!;
        const port = first.port;
        await first.close();
        // The server comes back (same port, same state) during the wait after attempt `refusedAttempts`, never earlier.
        const refusedAttempts = 1 + (round % 3);
        let s: ReferenceServer | undefined;
        const events: RetryEvent[] = [];
        const client = new AnalyticsClient({
          baseUrl: `http://127.0.0.1:${port}`,
          apiKey: key,
          transport: undiciTransport({ requestTimeoutMs: 10_000 }),
          onRetry: (event) => events.push(event),
          sleep: async () => {
            if (events.length === refusedAttempts) s = await startReferenceServer({ port, statePath, inspection: true });
          },
        });
        try {
          const org = await client.createOrganization({ name: `Round ${round}` });
          expect(events.map((e) => e.reason)).toEqual(Array(refusedAttempts).fill("ECONNREFUSED"));
          expect(s!.inspect.organizations().map((o) => o.id)).toEqual([org.id]);
          expect(s!.inspect.requestCount()).toBe(1);
          refusals += refusedAttempts;
          requests += s!.inspect.requestCount();
          duplicates += s!.inspect.organizations().length - 1;
          lost += s!.inspect.organizations().some((o) => o.id === org.id) ? 0 : 1;
        } finally {
          await client.close();
          await s?.close();
        }
      }
      expect({ duplicates, lost }).toEqual({ duplicates: 0, lost: 0 });
      recordFigures({
        item: 1,
        path: "service",
        scenario: `client: ${rounds} rounds, 1-3 refused attempts each`,
        faultsInjected: refusals,
        operations: requests + refusals,
        duplicates,
        lostObjects: lost,
        crashes: 0,
        serverErrors: 0,
        plaintextHits: 0,
      });
    },
    TIMEOUT_MS,
  );
});

describe("item 2: connection reset after the server committed the create", () => {
  const routes = scale(["createDataSource"] as const, ["createDataSource", "createOrganization"] as const);
  const cases = CLI_PATHS.flatMap((cliPath) => routes.map((route) => ({ cliPath, route })));
  it.each(cases)(
    "$cliPath: on $route: no retry, the error names the object that may exist, and the next pulumi up creates a second one",
    async ({ cliPath, route }) => {
      const rounds = scale(1, 3);
      for (let round = 0; round < rounds; round++) {
        const s = await server({ faults: { routes: { [route]: { resetAfterCommitNext: 1 } } } });
        const ws = await workspace(cliPath, s.url, s.apiKeys.alice!);
        const failed = await ws.pulumi(["up", "--yes"], { allowFailure: true });
        expect(failed.code).not.toBe(0);
        const text = output(failed);
        const object = route === "createDataSource" ? 'data source "Warehouse 0" in organization org_\\w{20}' : 'organization "Reliability Org"';
        expect(errorUnder(text, cliPath, route === "createDataSource" ? "warehouse-0" : "org")).toMatch(
          new RegExp(
            `^error: The request failed after it was sent \\((UND_ERR_SOCKET|ECONNRESET)[^)]*\\)\\. The ${object} may or may not have been created\\. ` +
              "The API has no way to look objects up and no idempotency key, so the request was not retried, to avoid a duplicate\\. " +
              "Check the service for it before running `pulumi up` again: the next `pulumi up` creates it anew, so if it already exists you will have two\\.",
          ),
        );
        // Exactly one request reached the route: no blind retry. It was committed, then left unanswered.
        const routeKey = route === "createDataSource" ? DS_ROUTE : ORG_ROUTE;
        expect(s.inspect.requests().byRoute[routeKey]).toEqual({ none: 1 });
        expect(s.faults.injected().resetAfterCommit).toBe(1);
        const orphan = route === "createDataSource" ? s.inspect.dataSources()[0]!.id : s.inspect.organizations()[0]!.id;
        const afterFailure = await stateIds(ws);
        expect([...afterFailure.orgs, ...afterFailure.dataSources]).not.toContain(orphan);
        expect(afterFailure.dataSources).toEqual([]);
        expect(afterFailure.orgs).toHaveLength(route === "createDataSource" ? 1 : 0);

        // What the user gets without checking the service first: the stack converges, and the orphan stays.
        await ws.pulumi(["up", "--yes"]);
        const state = await stateIds(ws);
        expect(state.dataSources).toHaveLength(1);
        expect(state.orgs).toHaveLength(1);
        if (route === "createDataSource") {
          expect(s.inspect.dataSources().map((d) => d.displayName)).toEqual(["Warehouse 0", "Warehouse 0"]);
          expect(s.inspect.dataSources().map((d) => d.id)).toEqual([orphan, state.dataSources[0]]);
          expect(s.inspect.organization(state.orgs[0]!)?.dataSourceIds).toEqual([orphan, state.dataSources[0]]);
        } else {
          expect(s.inspect.organizations().map((o) => [o.id, o.slug])).toEqual([
            [orphan, "reliability-org"],
            [state.orgs[0], "reliability-org-2"],
          ]);
          expect(s.inspect.dataSources().map((d) => d.id)).toEqual(state.dataSources);
        }
        await ws.pulumi(["preview", "--expect-no-changes"]);
        const { duplicates, lost } = await compare(s, ws);
        // The one object beyond the state is the orphan the error announced; nothing else.
        expect({ duplicates, lost }).toEqual({ duplicates: 1, lost: 0 });
        const hits = auditWorkspace(ws, [PASSWORD, s.apiKeys.alice!]);
        expect(hits).toEqual([]);
        recordFigures({
          item: 2,
          path: cliPath,
          scenario: `${cliLabel(cliPath)}: reset after commit on ${route} (announced orphan, not counted as a silent duplicate)`,
          faultsInjected: totalInjected(s.faults.injected()),
          operations: ws.transcript.length + s.inspect.requestCount(),
          duplicates: duplicates - 1,
          lostObjects: lost,
          crashes: 0,
          serverErrors: nonInjected5xx(s),
          plaintextHits: hits.length,
        });
        await s.close();
        ws.dispose();
      }
    },
    TIMEOUT_MS,
  );
});

describe("item 3: 429, 503 and 5xx on create", () => {
  it.each(CLI_PATHS)(
    "%s: waits out 429 and 503 Retry-After (no request before the delay) and creates exactly one of each",
    async (cliPath) => {
      const retries = scale(1, 3);
      const s = await server({
        faults: {
          routes: {
            createOrganization: { rateLimitNext: retries, retryAfterSeconds: 1 },
            createDataSource: { failNext: retries, errorStatus: 503, retryAfterSeconds: 1 },
          },
        },
      });
      const ws = await workspace(cliPath, s.url, s.apiKeys.alice!);
      const up = await ws.pulumi(["up", "--yes"]);
      const attempts = Array.from({ length: retries }, (_, i) => String(i + 1));
      expect(retryAttempts(output(up), cliPath, 'organization "Reliability Org" in 1 s')).toEqual(attempts);
      expect(retryAttempts(output(up), cliPath, 'data source "Warehouse 0" in organization org_\\w+ in 1 s')).toEqual(attempts);
      expect(output(up)).toContain("(attempt 1 failed: HTTP 429)");
      expect(output(up)).toContain("(attempt 1 failed: HTTP 503)");
      const orgRequests = entries(s, ORG_ROUTE);
      const dsRequests = entries(s, DS_ROUTE);
      expect(orgRequests.map((e) => e.status)).toEqual([...Array(retries).fill(429), 201]);
      expect(dsRequests.map((e) => e.status)).toEqual([...Array(retries).fill(503), 201]);
      // Each retry arrived at least 900 ms after the refused request arrived (Retry-After: 1).
      for (const gap of [...gaps(orgRequests), ...gaps(dsRequests)]) expect(gap).toBeGreaterThanOrEqual(900);
      const state = await stateIds(ws);
      expect(s.inspect.organizations().map((o) => o.id)).toEqual(state.orgs);
      expect(s.inspect.dataSources().map((d) => d.id)).toEqual(state.dataSources);
      expect(state.dataSources).toHaveLength(1);
      const hits = auditWorkspace(ws, [PASSWORD, s.apiKeys.alice!]);
      expect(hits).toEqual([]);
      const { duplicates, lost } = await compare(s, ws);
      expect({ duplicates, lost }).toEqual({ duplicates: 0, lost: 0 });
      recordFigures({
        item: 3,
        path: cliPath,
        scenario: `${cliLabel(cliPath)}: ${retries}x 429 and ${retries}x 503 with Retry-After 1 s`,
        faultsInjected: totalInjected(s.faults.injected()),
        operations: ws.transcript.length + s.inspect.requestCount(),
        duplicates,
        lostObjects: lost,
        crashes: 0,
        serverErrors: nonInjected5xx(s),
        plaintextHits: hits.length,
      });
    },
    TIMEOUT_MS,
  );

  it.each(CLI_PATHS)(
    "%s: gives up after 4 attempts of a persistent 429, each after the delay, with nothing created; the next up creates one of each",
    async (cliPath) => {
      const s = await server({ faults: { routes: { createOrganization: { rateLimitNext: 10, retryAfterSeconds: 1 } } } });
      const ws = await workspace(cliPath, s.url, s.apiKeys.alice!);
      const up = await ws.pulumi(["up", "--yes"], { allowFailure: true });
      expect(up.code).not.toBe(0);
      expect(retryAttempts(output(up), cliPath, 'organization "Reliability Org" in 1 s')).toEqual(["1", "2", "3"]);
      expect(errorUnder(output(up), cliPath, "org")).toMatch(
        /^error: RateLimited: Too many requests; retry after 1 seconds\. \(HTTP 429\) Nothing was created; the retries were used up \(the server asked to wait 1 s\)\. Try again later\./,
      );
      const orgRequests = entries(s, ORG_ROUTE);
      expect(orgRequests.map((e) => e.status)).toEqual([429, 429, 429, 429]);
      for (const gap of gaps(orgRequests)) expect(gap).toBeGreaterThanOrEqual(900);
      expect(s.inspect.organizations()).toEqual([]);
      expect(await stateIds(ws)).toEqual({ orgs: [], dataSources: [] });
      const injected = totalInjected(s.faults.injected());
      s.faults.clear();
      await convergesToOnePerResource(s, ws);
      const hits = auditWorkspace(ws, [PASSWORD, s.apiKeys.alice!]);
      expect(hits).toEqual([]);
      const { duplicates, lost } = await compare(s, ws);
      expect({ duplicates, lost }).toEqual({ duplicates: 0, lost: 0 });
      recordFigures({
        item: 3,
        path: cliPath,
        scenario: `${cliLabel(cliPath)}: persistent 429, bounded to 4 attempts, then up`,
        faultsInjected: injected,
        operations: ws.transcript.length + s.inspect.requestCount(),
        duplicates,
        lostObjects: lost,
        crashes: 0,
        serverErrors: nonInjected5xx(s),
        plaintextHits: hits.length,
      });
    },
    TIMEOUT_MS,
  );

  it.each(CLI_PATHS)(
    "%s: does not retry 500, 502 or 504 on create, says the object may exist, and converges afterwards",
    async (cliPath) => {
      const s = await server();
      const ws = await workspace(cliPath, s.url, s.apiKeys.alice!);
      const statuses = [500, 502, 504] as const;
      const rounds = scale(1, 3);
      for (let round = 0; round < rounds; round++) {
        for (const status of statuses) {
          const before = entries(s, ORG_ROUTE).length;
          s.faults.set({ routes: { createOrganization: { failNext: 1, errorStatus: status } } });
          const up = await ws.pulumi(["up", "--yes"], { allowFailure: true });
          expect(up.code).not.toBe(0);
          const title = status === 500 ? "InternalError" : "ServiceUnavailable";
          expect(errorUnder(output(up), cliPath, "org")).toMatch(
            new RegExp(`^error: ${title}: .*\\(HTTP ${status}\\)\\. The organization "Reliability Org" may or may not have been created\\.`),
          );
          expect(output(up)).not.toContain("Retrying");
          expect(entries(s, ORG_ROUTE).length - before).toBe(1);
          expect(s.inspect.organizations()).toEqual([]);
          expect(await stateIds(ws)).toEqual({ orgs: [], dataSources: [] });
        }
      }
      s.faults.clear();
      await convergesToOnePerResource(s, ws);
      const hits = auditWorkspace(ws, [PASSWORD, s.apiKeys.alice!]);
      expect(hits).toEqual([]);
      const { duplicates, lost } = await compare(s, ws);
      expect({ duplicates, lost }).toEqual({ duplicates: 0, lost: 0 });
      recordFigures({
        item: 3,
        path: cliPath,
        scenario: `${cliLabel(cliPath)}: ${rounds}x each of 500, 502, 504 on create`,
        faultsInjected: totalInjected(s.faults.injected()),
        operations: ws.transcript.length + s.inspect.requestCount(),
        duplicates,
        lostObjects: lost,
        crashes: 0,
        serverErrors: nonInjected5xx(s),
        plaintextHits: hits.length,
      });
    },
    TIMEOUT_MS,
  );

  it("reports a 500 whose create was committed (the state file could not be written) as a create that may have happened", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reliability-500-"));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.mkdirSync(path.join(dir, "state"));
    const s = await server({ statePath: path.join(dir, "state", "state.json") });
    fs.rmSync(path.join(dir, "state"), { recursive: true, force: true });
    const client = new AnalyticsClient({ baseUrl: s.url, apiKey: s.apiKeys.alice!, transport: undiciTransport() });
    const error = await client.createOrganization({ name: "Committed" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await client.close();
    expect(s.inspect.requests().byRoute[ORG_ROUTE]).toEqual({ "500": 1 });
    // The server kept the object in memory: the client must not say "retry later" as if nothing happened.
    expect(s.inspect.organizations().map((o) => o.name)).toEqual(["Committed"]);
    expect(error).toBeInstanceOf(AmbiguousCreateError);
    expect((error as Error).message).toMatch(/\(HTTP 500\)\. The organization "Committed" may or may not have been created/);
    fs.mkdirSync(path.join(dir, "state"));
  });
});

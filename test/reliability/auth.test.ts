/**
 * Reliability item 8: authentication under bad input. Generated missing, garbled, oversized and
 * wrong-prefix headers; another user's key; keys at rest only as digests; a key shown once.
 */
import fc from "fast-check";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ORGANIZATIONS_PATH, dataSourcesPath } from "../../src/contract";
import { digestApiKey, startReferenceServer, type ReferenceServer } from "../../src/reference-server";
import { TIMEOUT_MS, recordFigures, scale } from "./support/campaign";
import { inspectJson, startServerProcess } from "./support/server-process";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reliability-auth-"));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function post(url: string, route: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(`${url}${route}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** Mutations of a valid `Authorization` header that must all be refused. */
function badHeaderArb(key: string): fc.Arbitrary<string | undefined> {
  const secret = key.slice("analytics_key_".length);
  return fc.oneof(
    fc.constant(undefined),
    fc.constantFrom("", " ", "Bearer", "Bearer ", `Bearer  ${key} ${key}`, key, `Token ${key}`, `Basic ${Buffer.from(`alice:${key}`).toString("base64")}`),
    fc.constantFrom("other", "analytic", "ANALYTICS", "analytics_", "xanalytics").map((prefix) => `Bearer ${prefix}_key_${secret}`),
    fc
      .integer({ min: 0, max: 31 })
      .chain((i) =>
        fc.constantFrom("0", "Z", "-", "_", "é", "\u0000".replace("\u0000", "%")).map((c) => `Bearer ${key.slice(0, 14 + i)}${c}${key.slice(15 + i)}`),
      ),
    fc.integer({ min: 1, max: 31 }).map((n) => `Bearer ${key.slice(0, key.length - n)}`),
    fc.string({ minLength: 1, maxLength: 8 }).map((extra) => `Bearer ${key}${extra.replace(/[^\x21-\x7e]/g, "x")}`),
    fc.string({ maxLength: 60 }).map((s) => `Bearer ${s.replace(/[^\x20-\x7e]/g, "")}`),
    fc.integer({ min: 1_000, max: 12_000 }).map((n) => `Bearer ${key}${"A".repeat(n)}`),
  );
}

describe("item 8: authentication", () => {
  it(
    "refuses every generated bad Authorization header with 401 in the envelope, never echoing the key, creating nothing",
    async () => {
      const server: ReferenceServer = await startReferenceServer({ bootstrapUsers: ["alice"] });
      cleanups.push(() => server.close());
      const key = server.apiKeys.alice!;
      const secret = key.slice("analytics_key_".length);
      const runs = scale(300, 20_000);
      let requests = 0;
      await fc.assert(
        fc.asyncProperty(badHeaderArb(key), async (header) => {
          fc.pre(header !== `Bearer ${key}` && header?.trim().toLowerCase() !== `bearer ${key.toLowerCase()}`);
          const reply = await post(server.url, ORGANIZATIONS_PATH, header === undefined ? {} : { authorization: header }, { name: "Intruder" });
          requests++;
          expect(reply.status).toBe(401);
          expect(reply.headers.get("www-authenticate")).toMatch(/^Bearer/);
          expect(Object.keys(JSON.parse(reply.text) as object)).toEqual(["error"]);
          for (let i = 0; i + 10 <= secret.length; i += 11) expect(reply.text).not.toContain(secret.slice(i, i + 10));
          expect(server.inspect.organizations()).toEqual([]);
        }),
        { numRuns: runs },
      );
      // Headers beyond Node's limit are refused before any handler runs, still in the envelope.
      const huge = await post(server.url, ORGANIZATIONS_PATH, { authorization: `Bearer ${"A".repeat(20_000)}` }, { name: "Intruder" });
      expect(huge.status).toBe(431);
      expect(JSON.parse(huge.text)).toEqual({ error: { title: "PayloadTooLarge", detail: expect.any(String) } });
      expect(server.inspect.organizations()).toEqual([]);
      recordFigures({
        item: 8,
        path: "service",
        scenario: `${runs} generated bad Authorization headers + one over the header limit`,
        faultsInjected: requests + 1,
        operations: requests + 1,
        duplicates: 0,
        lostObjects: 0,
        crashes: 0,
        serverErrors: 0,
        plaintextHits: 0,
      });
    },
    TIMEOUT_MS,
  );

  it("answers another user's key on an organization exactly like a missing one, and creates nothing there", async () => {
    const server = await startReferenceServer({ bootstrapUsers: ["alice", "bob"] });
    cleanups.push(() => server.close());
    const alice = { authorization: `Bearer ${server.apiKeys.alice!}` };
    const bob = { authorization: `Bearer ${server.apiKeys.bob!}` };
    const org = JSON.parse((await post(server.url, ORGANIZATIONS_PATH, alice, { name: "Alice Org" })).text).data.id as string;
    const body = { type: "direct", dialect: "POSTGRES", displayName: "Sneaky" };
    const foreign = await post(server.url, dataSourcesPath(org), bob, body);
    const missing = await post(server.url, dataSourcesPath("org_AAAAAAAAAAAAAAAAAAAA"), bob, body);
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(missing.text);
    expect(server.inspect.dataSources()).toEqual([]);
    expect((await post(server.url, dataSourcesPath(org), alice, body)).status).toBe(201);
  });

  it("keeps keys at rest only as SHA-256 digests, and shows each key once", async () => {
    const dir = tempDir();
    const statePath = path.join(dir, "state.json");
    const first = await startServerProcess({ port: 0, statePath, bootstrapUser: "alice" });
    cleanups.push(() => first.kill());
    const key = first.apiKey!;
    expect(key).toMatch(/^analytics_key_[0-9A-Za-z]{32}$/);
    const created = await post(first.url, ORGANIZATIONS_PATH, { authorization: `Bearer ${key}` }, { name: "Digest Org" });
    expect(created.status).toBe(201);
    // Inspection shows users and objects, never a key or a digest.
    const inspected = JSON.stringify([
      await inspectJson(first.url, "users"),
      await inspectJson(first.url, "organizations"),
      await inspectJson(first.url, "requests"),
    ]);
    expect(inspected).not.toContain(key);
    expect(inspected).not.toContain(digestApiKey(key));
    await first.stop();
    // Shown once: the start-up line, and nowhere in the request log.
    expect(first.stdout().split(key)).toHaveLength(2);

    const text = fs.readFileSync(statePath, "utf8");
    expect((fs.statSync(statePath).mode & 0o777).toString(8)).toBe("600");
    const secret = key.slice("analytics_key_".length);
    for (let i = 0; i + 8 <= secret.length; i++) expect(text).not.toContain(secret.slice(i, i + 8));
    const persisted = JSON.parse(text) as { apiKeys: Array<Record<string, string>> };
    expect(persisted.apiKeys).toEqual([{ digest: digestApiKey(key), userName: "alice", createdAt: expect.any(String) }]);

    // A restart does not show the key again, and the key still works.
    const second = await startServerProcess({ port: 0, statePath });
    cleanups.push(() => second.kill());
    expect(second.apiKey).toBeUndefined();
    expect(second.stdout()).not.toContain(key);
    expect((await post(second.url, ORGANIZATIONS_PATH, { authorization: `Bearer ${key}` }, { name: "Again" })).status).toBe(201);
    await second.stop();
    expect(second.stdout()).not.toContain(key);
  });
});

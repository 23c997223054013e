/** The running server as a whole, over real HTTP on 127.0.0.1: listening, closing, options, load. */
import * as net from "node:net";
import { describe, expect, it } from "vitest";
import { ORGANIZATIONS_PATH } from "../contract";
import { startReferenceServer } from "./server";
import type { SyncOutcome } from "./sync/schema-sync";
import { call, closeServersAfterEach, createDataSource, createOrg, start } from "../../test/support/reference-server-harness";

closeServersAfterEach();

describe("lifecycle", () => {
  it("listens on 127.0.0.1 with a free port by default", async () => {
    const server = await startReferenceServer();
    try {
      expect(server.host).toBe("127.0.0.1");
      expect(server.port).toBeGreaterThan(0);
      expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    } finally {
      await server.close();
    }
  });

  it("close() drops keep-alive connections, stops background syncs and is idempotent", async () => {
    const server = await startReferenceServer({ bootstrapUsers: ["alice"], syncSchema: () => new Promise<SyncOutcome>(() => undefined) });
    const org = await createOrg(server, server.apiKeys.alice!);
    const reply = await createDataSource(server, server.apiKeys.alice!, org.id);
    const waiting = server.waitForSync(reply.json.data.id);
    await server.close();
    await server.close();
    await expect(waiting).rejects.toThrow(/closed/);
    await expect(fetch(`${server.url}${ORGANIZATIONS_PATH}`, { method: "POST" })).rejects.toThrow();
  });

  it("close() does not wait out an injected latency", async () => {
    const server = await startReferenceServer({ bootstrapUsers: ["alice"], faults: { latencyMs: 600_000 } });
    const pending = call(server, "POST", ORGANIZATIONS_PATH, { key: server.apiKeys.alice!, body: { name: "x" } });
    while (server.faults.injected().latency === 0) await new Promise((r) => setImmediate(r));
    await server.close();
    await expect(pending).rejects.toThrow();
    expect(server.inspect.organizations()).toHaveLength(0);
  });

  it("carries out a delayed create whose client went away, and records the request", async () => {
    const server = await startReferenceServer({ bootstrapUsers: ["alice"], faults: { latencyMs: 300 } });
    const body = JSON.stringify({ name: "Left behind" });
    const socket = net.connect(server.port, server.host);
    socket.on("error", () => undefined);
    socket.write(
      `POST ${ORGANIZATIONS_PATH} HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${server.apiKeys.alice}\r\n` +
        `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    while (server.faults.injected().latency === 0) await new Promise((r) => setImmediate(r));
    socket.destroy();
    // Recorded once the handler is done: before the fix, a client gone during the delay left it waiting forever.
    while (Object.keys(server.inspect.requests().byRoute).length === 0) await new Promise((r) => setTimeout(r, 20));
    expect(server.inspect.organizations().map((o) => o.name)).toEqual(["Left behind"]);
    await server.close();
  });

  it("refuses invalid options", async () => {
    await expect(startReferenceServer({ keyPrefix: "bad prefix" })).rejects.toThrow(RangeError);
    await expect(startReferenceServer({ bootstrapUsers: ["__proto__"] })).rejects.toThrow(RangeError);
    await expect(startReferenceServer({ maxBodyBytes: 0 })).rejects.toThrow(RangeError);
    await expect(startReferenceServer({ port: 70000 })).rejects.toThrow(RangeError);
  });
});

describe("load", () => {
  it("handles 500 concurrent creates across users correctly", async () => {
    const users = Array.from({ length: 10 }, (_, i) => `user${i}`);
    const { server } = await start({ bootstrapUsers: users, syncConcurrency: 8 });
    const orgReplies = await Promise.all(
      Array.from({ length: 500 }, (_, i) => call(server, "POST", ORGANIZATIONS_PATH, { key: server.apiKeys[users[i % 10]!]!, body: { name: "Load Org" } })),
    );
    expect(orgReplies.map((r) => r.status)).toEqual(Array(500).fill(201));
    const orgs = orgReplies.map((r, i) => ({ id: r.json.data.id as string, slug: r.json.data.slug as string, user: users[i % 10]! }));
    expect(new Set(orgs.map((o) => o.id)).size).toBe(500);
    expect(new Set(orgs.map((o) => o.slug)).size).toBe(500);

    const dsReplies = await Promise.all(orgs.map((org) => createDataSource(server, server.apiKeys[org.user]!, org.id)));
    expect(dsReplies.map((r) => r.status)).toEqual(Array(500).fill(201));
    const ids = dsReplies.map((r) => r.json.data.id as string);
    expect(new Set(ids).size).toBe(500);
    const synced = await Promise.all(ids.map((id) => server.waitForSync(id)));
    expect(synced.every((ds) => ds.lastSyncStatus === "SUCCEEDED")).toBe(true);
    expect(server.inspect.organizations()).toHaveLength(500);
    expect(server.inspect.organizations().every((o) => o.dataSourceIds.length === 1 && o.trial !== null)).toBe(true);
    for (const org of orgs) expect(server.inspect.organization(org.id)?.ownerUserName).toBe(org.user);
    expect(server.inspect.requestCount()).toBe(1000);
    expect(Object.keys(server.inspect.requests().byRoute).every((route) => route.startsWith("POST /api/public/"))).toBe(true);
    for (const counts of Object.values(server.inspect.requests().byRoute)) expect(Object.keys(counts)).toEqual(["201"]);
  });
});

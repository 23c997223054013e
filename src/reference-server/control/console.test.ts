import * as fs from "node:fs";
import * as http from "node:http";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SECRET_DATA_SOURCE_FIELDS } from "../../contract";
import { digestApiKey } from "../state/auth";
import {
  MARK,
  call,
  closeServersAfterEach,
  createDataSource,
  createOrg,
  secretValues,
  start,
  validDataSource,
} from "../../../test/support/reference-server-harness";
import { CONSOLE_CSP, CONSOLE_PAGE_DIR, CONSOLE_PATH, CONSOLE_RECENT_REQUESTS, type ConsoleState } from "./console";

closeServersAfterEach();

/** The page's files, by the path the page names them with. */
const FILES = { [CONSOLE_PATH]: "text/html", [`${CONSOLE_PATH}/console.css`]: "text/css", [`${CONSOLE_PATH}/console.js`]: "text/javascript" };

/** A GET that reads the whole body, whatever its type. */
async function get(url: string): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(url);
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** A page following the events stream: each state as it arrives, and the raw bytes for audits. */
function follow(url: string) {
  const states: ConsoleState[] = [];
  const waiters: Array<() => void> = [];
  let raw = "";
  let request: http.ClientRequest | undefined;
  const ended = new Promise<http.IncomingMessage>((resolve, reject) => {
    request = http.get(`${url}${CONSOLE_PATH}/events`, (res) => {
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        raw += chunk;
        states.splice(0, states.length, ...[...raw.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as ConsoleState));
        waiters.splice(0).forEach((wake) => wake());
      });
      res.on("end", () => resolve(res));
    });
    request.on("error", reject);
  });
  /** Resolves with the first state (from the start) that `accept` takes. */
  const until = async (accept: (state: ConsoleState) => boolean): Promise<ConsoleState> => {
    for (;;) {
      const found = states.find(accept);
      if (found) return found;
      await new Promise<void>((wake) => waiters.push(wake));
    }
  };
  return { states, until, ended, raw: () => raw, close: () => request?.destroy() };
}

describe("the console", () => {
  it("is off unless inspection is asked for: every path of it is unknown, and the handle names no address", async () => {
    const { server } = await start();
    expect(server.consoleUrl).toBeUndefined();
    for (const pathname of [...Object.keys(FILES), `${CONSOLE_PATH}/state`, `${CONSOLE_PATH}/events`]) {
      const reply = await get(`${server.url}${pathname}`);
      expect(reply.status, pathname).toBe(404);
      expect(JSON.parse(reply.text).error.title).toBe("NotFound");
    }
  });

  it("serves its page, style and script from its own origin only, under a policy that allows nothing else", async () => {
    const { server } = await start({ inspection: true });
    expect(server.consoleUrl).toBe(`${server.url}${CONSOLE_PATH}`);
    for (const [pathname, type] of Object.entries(FILES)) {
      const reply = await get(`${server.url}${pathname}`);
      expect(reply.status, pathname).toBe(200);
      expect(reply.headers.get("content-type")).toBe(`${type}; charset=utf-8`);
      expect(reply.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
      expect(reply.headers.get("x-content-type-options")).toBe("nosniff");
      expect(reply.headers.get("cache-control")).toBe("no-store");
      // No address elsewhere: no scheme, no protocol-relative URL, no @import.
      expect(reply.text).not.toMatch(/https?:|["'(]\/\/|@import/);
    }
    expect(CONSOLE_CSP).toMatch(/default-src 'none'/);
    const page = (await get(server.consoleUrl!)).text;
    // Each file the page loads is one of those served above, named relative to it.
    const loaded = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(loaded).toEqual(["data:,", "console/console.css", "console/console.js"]);
    // Opening the page is no API traffic.
    expect(server.inspect.requestCount()).toBe(0);
  });

  it("ships the files the server reads: the page's folder holds exactly them", () => {
    expect(fs.readdirSync(CONSOLE_PAGE_DIR).sort()).toEqual(
      Object.keys(FILES)
        .map((p) => path.basename(p === CONSOLE_PATH ? "console.html" : p))
        .sort(),
    );
  });

  it("answers other methods 405 and unknown paths 404", async () => {
    const { server } = await start({ inspection: true });
    const post = await call(server, "POST", CONSOLE_PATH, { body: {} });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
    expect((await call(server, "GET", `${CONSOLE_PATH}/secrets.json`)).status).toBe(404);
  });
});

describe("the console's state", () => {
  it("holds organizations, their data sources, secret fields by name, fault routes, faults, saved states and the newest requests first", async () => {
    const { server } = await start({ inspection: true });
    const key = server.apiKeys.alice!;
    const org = await createOrg(server, key);
    const ds = (await createDataSource(server, key, org.id)).json.data;
    await server.waitForSync(ds.id);
    await call(server, "POST", `/api/public/organizations/${org.id}/data-sources`, { body: validDataSource });
    server.faults.set({ routes: { createDataSource: { failNext: 2 } } });
    await server.savedStates.save("base");

    const { data } = (await call(server, "GET", `${CONSOLE_PATH}/state`)).json as { data: ConsoleState };
    expect(data.organizations).toEqual([server.inspect.organization(org.id)]);
    expect(data.organizations[0]?.dataSources[0]).toMatchObject({ id: ds.id, lastSyncStatus: "SUCCEEDED", providedSecretFields: ["password"] });
    expect(data.secretFields).toEqual([...SECRET_DATA_SOURCE_FIELDS]);
    expect(data.faultRoutes).toEqual([
      { id: "createOrganization", method: "POST", pattern: "/api/public/organizations" },
      { id: "createDataSource", method: "POST", pattern: "/api/public/organizations/{orgId}/data-sources" },
    ]);
    expect(data.faults).toEqual((await call(server, "GET", "/_reference/faults")).json.data);
    expect(data.savedStates).toEqual(server.savedStates.list());
    expect(data.savedStates).toHaveLength(1);
    // The earlier name of the same list, for scripts that read it.
    expect(data.snapshots).toEqual(data.savedStates);
    expect(data.requests.total).toBe(3);
    expect(data.requests.recent.map((r) => [r.method, r.path, r.status])).toEqual([
      ["POST", `/api/public/organizations/${org.id}/data-sources`, 401],
      ["POST", `/api/public/organizations/${org.id}/data-sources`, 201],
      ["POST", "/api/public/organizations", 201],
    ]);
    for (const entry of data.requests.recent) expect(entry.durationMs).toEqual(expect.any(Number));
  });

  it(`keeps the ${CONSOLE_RECENT_REQUESTS} newest requests`, async () => {
    const { server } = await start({ inspection: true });
    for (let i = 0; i < CONSOLE_RECENT_REQUESTS + 2; i++) await call(server, "POST", `/nowhere/${i}`, { body: {} });
    const { data } = (await call(server, "GET", `${CONSOLE_PATH}/state`)).json as { data: ConsoleState };
    expect(data.requests.total).toBe(CONSOLE_RECENT_REQUESTS + 2);
    expect(data.requests.recent).toHaveLength(CONSOLE_RECENT_REQUESTS);
    expect(data.requests.recent[0]?.path).toBe(`/nowhere/${CONSOLE_RECENT_REQUESTS + 1}`);
  });

  it("never carries a credential, a key or a key digest, in the state or in its events", async () => {
    const { server } = await start({ inspection: true });
    const key = server.apiKeys.alice!;
    const page = follow(server.url);
    const org = await createOrg(server, key);
    const ds = (await createDataSource(server, key, org.id, { ...validDataSource, ...secretValues })).json.data;
    await server.waitForSync(ds.id);
    // A key pasted into a path by mistake is not kept either.
    await call(server, "POST", `/api/public/organizations/${key}`, { body: {} });
    const synced = await page.until((s) => s.organizations[0]?.dataSources[0]?.lastSyncStatus === "SUCCEEDED" && s.requests.total === 3);
    expect(synced.organizations[0]?.dataSources[0]?.providedSecretFields).toEqual([...SECRET_DATA_SOURCE_FIELDS]);
    expect(synced.requests.recent[0]?.path).toBe("/api/public/organizations/[redacted]");
    const surfaces = [(await call(server, "GET", `${CONSOLE_PATH}/state`)).text, page.raw()];
    for (const text of surfaces) {
      expect(text).not.toContain(MARK);
      expect(text).not.toContain(key);
      expect(text).not.toContain(digestApiKey(key));
    }
    page.close();
  });
});

describe("the console's events", () => {
  it("sends the state at once, then each change as it happens, and ends when the server closes", async () => {
    const { server } = await start({ inspection: true });
    const page = follow(server.url);
    const first = await page.until(() => true);
    expect(first.organizations).toEqual([]);
    const org = await createOrg(server, server.apiKeys.alice!);
    const seen = await page.until((s) => s.organizations.length === 1);
    expect(seen.organizations[0]).toMatchObject({ id: org.id, name: "Acme" });
    server.faults.set({ latencyMs: 5 });
    await page.until((s) => s.faults.settings.latencyMs === 5);
    // Nothing changed: nothing sent.
    const count = page.states.length;
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(page.states).toHaveLength(count);
    await server.close();
    const res = await page.ended;
    expect(res.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    // A page that loses the stream asks again after a second.
    expect(page.raw()).toMatch(/^retry: 1000\n\n/);
  });
});

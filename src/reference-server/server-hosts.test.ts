/**
 * The host rule over real HTTP (http.request with explicit headers, raw HTTP/1.0 over a socket):
 * a request naming a host that is not the server's is refused before anything else happens, and
 * the readiness route answers on every server.
 */
import * as http from "node:http";
import * as net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ORGANIZATIONS_PATH } from "../contract";
import { READY_PATH } from "./control/ready";
import { startReferenceServer, type ReferenceServer, type ReferenceServerOptions } from "./server";

const servers: ReferenceServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request over a fresh connection with exactly these headers. */
function request(server: ReferenceServer, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: server.port, method, path, headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Raw HTTP/1.0 over a socket: `hostLine` is sent as written, or not at all. */
function http10(server: ReferenceServer, method: string, path: string, hostLine: string | undefined, body = ""): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(server.port, "127.0.0.1");
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (text += chunk));
    socket.on("end", () => resolve(text));
    socket.on("error", reject);
    const lines = [
      `${method} ${path} HTTP/1.0`,
      ...(hostLine === undefined ? [] : [hostLine]),
      "content-type: application/json",
      `content-length: ${Buffer.byteLength(body)}`,
    ];
    socket.write(`${lines.join("\r\n")}\r\n\r\n${body}`);
  });
}

async function start(options: ReferenceServerOptions = {}): Promise<{ server: ReferenceServer; key: string; evil: Record<string, string>; lines: string[] }> {
  const lines: string[] = [];
  const server = await startReferenceServer({ inspection: true, bootstrapUsers: ["alice"], logger: (line) => lines.push(line), ...options });
  servers.push(server);
  const key = server.apiKeys.alice!;
  const created = await request(
    server,
    "POST",
    ORGANIZATIONS_PATH,
    { authorization: `Bearer ${key}`, "content-type": "application/json" },
    JSON.stringify({ name: "Kept" }),
  );
  expect(created.status).toBe(201);
  await server.savedStates.save("before");
  const evil = { host: `evil.example:${server.port}`, origin: `http://evil.example:${server.port}` };
  return { server, key, evil, lines };
}

/** What a refusal must leave as it was. */
function stateOf(server: ReferenceServer): unknown {
  return {
    organizations: server.inspect.organizations().map((org) => org.name),
    requests: server.inspect.requestCount(),
    savedStates: server.savedStates.list().map((s) => s.name),
    faults: server.faults.settings(),
    injected: server.faults.injected(),
  };
}

function expectRefusal(answer: Answer, host: string): void {
  expect(answer.status).toBe(403);
  const body = JSON.parse(answer.body) as { error: { title: string; detail: string } };
  expect(body.error.title).toBe("Forbidden");
  expect(body.error.detail).toContain(JSON.stringify(host));
  expect(body.error.detail).toContain("--allowed-host <name>");
  expect(answer.body).not.toContain("Kept");
}

describe("the host rule over HTTP", () => {
  it("refuses every route to a page of another name (DNS rebinding), changing nothing", async () => {
    const { server, key, evil, lines } = await start();
    server.faults.set({ failNext: 5 });
    const before = stateOf(server);
    const json = { "content-type": "application/json" };
    const attempts: Array<[string, string, Record<string, string>, string?]> = [
      ["POST", "/_reference/reset", {}],
      ["POST", "/_reference/saved-states/before/restore", {}],
      ["POST", "/_reference/saved-states", json, JSON.stringify({ name: "evil" })],
      ["POST", "/_reference/snapshots/before/restore", {}],
      ["POST", "/_reference/faults", json, JSON.stringify({ errorRate: 1 })],
      ["GET", "/_reference/organizations", {}],
      ["GET", "/_reference/console/state", {}],
      ["GET", "/_reference/console", {}],
      ["GET", "/openapi.json", {}],
      ["GET", READY_PATH, {}],
      ["POST", ORGANIZATIONS_PATH, { ...json, authorization: `Bearer ${key}` }, JSON.stringify({ name: "Evil" })],
      ["GET", "/no/such/route", {}],
    ];
    for (const [method, path, headers, body] of attempts) {
      const answer = await request(server, method, path, { ...evil, ...headers }, body);
      expectRefusal(answer, evil.host);
      expect(answer.headers.connection).toBe("close");
    }
    expect(stateOf(server)).toEqual(before);
    expect(lines.filter((line) => line.includes('403 host "evil.example:'))).toHaveLength(attempts.length);
  });

  it("serves the server's own names: localhost, *.localhost, IP addresses, --host and allowed names", async () => {
    const { server } = await start({ allowedHosts: ["api"] });
    for (const host of ["localhost", `LOCALHOST.:${server.port}`, "console.localhost", `127.0.0.1:${server.port}`, "[::1]:1", "api", `API.:${server.port}`]) {
      const answer = await request(server, "GET", "/_reference/organizations", { host });
      expect(answer.status, host).toBe(200);
      expect(answer.body).toContain("Kept");
    }
    for (const host of ["localhost.evil.example", "127.0.0.1.evil.example", "evil-localhost", "api.evil.example"]) {
      expectRefusal(await request(server, "GET", "/_reference/organizations", { host }), host);
    }
  });

  it("serves the --host name when the server listens on a name", async () => {
    const server = await startReferenceServer({ host: "localhost" });
    servers.push(server);
    expect((await request(server, "GET", READY_PATH, { host: "LocalHost" })).status).toBe(200);
    await expect(startReferenceServer({ allowedHosts: ["http://api"] })).rejects.toThrow(/^allowedHosts must be a host name/);
  });

  it("checks HTTP/1.0 with a Host the same, and serves HTTP/1.0 without one (no browser can send that)", async () => {
    const { server } = await start();
    const before = stateOf(server);
    const refused = await http10(server, "POST", "/_reference/reset", `Host: evil.example:${server.port}`);
    expect(refused).toMatch(/^HTTP\/1\.1 403 /);
    expect(refused).toContain('"title":"Forbidden"');
    expect(stateOf(server)).toEqual(before);
    const allowed = await http10(server, "GET", "/_reference/organizations", `Host: 127.0.0.1:${server.port}`);
    expect(allowed).toMatch(/^HTTP\/1\.1 200 /);
    const noHost = await http10(server, "GET", "/_reference/organizations", undefined);
    expect(noHost).toMatch(/^HTTP\/1\.1 200 /);
    expect(noHost).toContain("Kept");
  });
});

describe(`GET ${READY_PATH}`, () => {
  it("answers ready without the inspection surface, uncounted and untouched by faults", async () => {
    const server = await startReferenceServer({ faults: { failNext: 3, errorRate: 1 } });
    servers.push(server);
    const ready = await request(server, "GET", READY_PATH, {});
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toEqual({ data: { ready: true } });
    const head = await request(server, "HEAD", READY_PATH, {});
    expect(head.status).toBe(200);
    expect(head.body).toBe("");
    const post = await request(server, "POST", READY_PATH, {});
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe("GET, HEAD");
    expect(server.inspect.requestCount()).toBe(0);
    expect(server.faults.injected().error).toBe(0);
    // The inspection surface itself stays off.
    expect((await request(server, "GET", "/_reference/organizations", {})).status).toBe(404);
  });
});

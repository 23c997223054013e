import { EventEmitter } from "node:events";
import * as fs from "node:fs";
import * as http from "node:http";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ORGANIZATIONS_PATH } from "../contract";
import { API_KEY_ENV, USAGE, closeOnSignal, runCli, runReady, type CliOutput, type CliResult } from "./cli";
import { READY_PATH } from "./control/ready";
import { generateApiKey } from "./state/auth";
import { startReferenceServer, type ReferenceServer } from "./server";
import { digestApiKey } from "./state/auth";

const temps: string[] = [];
const servers: ReferenceServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reference-cli-"));
  temps.push(dir);
  return dir;
}

async function run(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ result: CliResult; stdout: string; stderr: string; out: CliOutput }> {
  const captured = { stdout: "", stderr: "" };
  const out: CliOutput = { stdout: (t) => (captured.stdout += t), stderr: (t) => (captured.stderr += t) };
  const result = await runCli(argv, out, env);
  if (result.kind === "serving") servers.push(result.server);
  return {
    result,
    get stdout() {
      return captured.stdout;
    },
    get stderr() {
      return captured.stderr;
    },
    out,
  };
}

async function createOrg(url: string, key: string): Promise<number> {
  const res = await fetch(`${url}${ORGANIZATIONS_PATH}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Acme" }),
  });
  await res.text();
  return res.status;
}

describe("runCli", () => {
  it("starts with the answer profile --answer-profile names, and refuses an unknown one naming the profiles there are", async () => {
    const serving = await run(["--port", "0", "--answer-profile", "status-200", "--bootstrap-user", "alice"]);
    expect(serving.stdout).toContain("Answer profile: status-200\n");
    const server = (serving.result as Extract<CliResult, { kind: "serving" }>).server;
    expect(await createOrg(server.url, server.apiKeys.alice!)).toBe(200);
    const refused = await run(["--port", "0", "--answer-profile", "sometimes"]);
    expect(refused.result).toEqual({ kind: "exit", code: 2 });
    expect(refused.stderr).toBe(
      '--answer-profile must be one of spec, absent-unset, status-200, extra-fields, new-status-values, other-types, got "sometimes"\n',
    );
  });

  it("prints the usage for --help", async () => {
    const { result, stdout } = await run(["--help"]);
    expect(result).toEqual({ kind: "exit", code: 0 });
    expect(stdout).toBe(USAGE);
    expect(USAGE).toMatch(/mint-key --user alice --state file\.json/);
  });

  it.each([
    ["--nope"],
    ["--port", "abc"],
    ["--port", "70000"],
    ["--key-prefix", "bad prefix"],
    ["mint-key", "--user", "alice"],
    ["mint-key", "--state", "x.json"],
  ])("ends with code 2 on bad usage: %j", async (...argv) => {
    const { result, stderr } = await run(argv);
    expect(result).toEqual({ kind: "exit", code: 2 });
    expect(stderr).not.toBe("");
  });

  it.each([
    [["--port", "abc"], '--port must be an integer from 0 to 65535, got "abc"'],
    [["--port", "70000"], '--port must be an integer from 0 to 65535, got "70000"'],
    [["--key-prefix", "bad prefix"], 'starting with a letter or digit, got "bad prefix"'],
  ])("says what was given on bad usage: %j", async (argv, words) => {
    const { stderr } = await run(argv);
    expect(stderr).toContain(words);
  });

  it("mint-key stores only the digest and prints the key once", async () => {
    const statePath = path.join(tempDir(), "state.json");
    const first = await run(["mint-key", "--user", "alice", "--state", statePath]);
    expect(first.result).toEqual({ kind: "exit", code: 0 });
    const key = first.stdout.trim();
    expect(key).toMatch(/^analytics_key_[0-9A-Za-z]{32}$/);
    expect(first.stderr).not.toContain(key);
    const second = await run(["mint-key", "--user", "bob", "--state", statePath, "--key-prefix", "acme"]);
    expect(second.stdout.trim()).toMatch(/^acme_key_/);

    const text = fs.readFileSync(statePath, "utf8");
    expect(text).not.toContain(key);
    expect(text).toContain(digestApiKey(key));
    const server = await startReferenceServer({ statePath });
    servers.push(server);
    expect(await createOrg(server.url, key)).toBe(201);
    expect(server.inspect.users()).toEqual(["alice", "bob"]);
  });

  it("mint-key refuses a bad user name and leaves a corrupt state file alone", async () => {
    const statePath = path.join(tempDir(), "state.json");
    expect((await run(["mint-key", "--user", "no spaces", "--state", statePath])).result).toEqual({ kind: "exit", code: 2 });
    expect(fs.existsSync(statePath)).toBe(false);
    fs.writeFileSync(statePath, "garbage");
    const corrupt = await run(["mint-key", "--user", "alice", "--state", statePath]);
    expect(corrupt.result).toEqual({ kind: "exit", code: 1 });
    expect(corrupt.stderr).toMatch(/not valid JSON/);
    expect(fs.readFileSync(statePath, "utf8")).toBe("garbage");
  });

  it("serves with bootstrapped users, printing URL and keys once and a line per request", async () => {
    const statePath = path.join(tempDir(), "state.json");
    const cli = await run(["--port", "0", "--inspection", "--state", statePath, "--bootstrap-user", "alice", "--bootstrap-user", "bob"]);
    expect(cli.result.kind).toBe("serving");
    if (cli.result.kind !== "serving") return;
    const { server } = cli.result;
    expect(cli.stdout).toContain(`Reference server listening on ${server.url}\n`);
    expect(cli.stdout).toContain(`Inspection surface: ${server.url}/_reference/\n`);
    expect(cli.stdout).toContain(`Console: ${server.url}/_reference/console\n`);
    expect(cli.stdout).toContain(`State file: ${statePath}\n`);
    const keys = [...cli.stdout.matchAll(/API key for (\w+) \(shown once\): (\S+)/g)].map((m) => [m[1], m[2]]);
    expect(keys).toEqual([
      ["alice", server.apiKeys.alice],
      ["bob", server.apiKeys.bob],
    ]);
    expect(await createOrg(server.url, server.apiKeys.alice!)).toBe(201);
    const lines = cli.stdout.trim().split("\n");
    expect(lines.at(-1)).toMatch(/^POST \/api\/public\/organizations 201 \d+ms$/);
    for (const key of Object.values(server.apiKeys)) expect(cli.stdout.split(key).length - 1).toBe(1);
  });

  it("reports a port already in use, minting no key into the state file", async () => {
    const taken = await startReferenceServer();
    servers.push(taken);
    const statePath = path.join(tempDir(), "state.json");
    const cli = await run(["--port", String(taken.port), "--state", statePath, "--bootstrap-user", "alice"]);
    expect(cli.result).toEqual({ kind: "exit", code: 1 });
    expect(cli.stderr).toMatch(/EADDRINUSE/);
    expect(cli.stdout).not.toMatch(/API key/);
    expect(fs.existsSync(statePath)).toBe(false);
  });
});

/** GET `path` with this `Host` header, answering the status. */
function statusFor(server: ReferenceServer, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port: server.port, path, headers: { host }, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
  });
}

function serving(result: CliResult): ReferenceServer {
  if (result.kind !== "serving") throw new Error(`expected a running server, got ${JSON.stringify(result)}`);
  return result.server;
}

describe("runCli: host names, version, readiness and CI keys", () => {
  it("prints the package version and the Node.js version", async () => {
    const { result, stdout } = await run(["--version"]);
    expect(result).toEqual({ kind: "exit", code: 0 });
    const { version } = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8")) as { version: string };
    expect(stdout).toBe(`${version} (Node.js ${process.version})\n`);
  });

  it("serves the names of --allowed-host and ANALYTICS_ALLOWED_HOSTS, and no other", async () => {
    const cli = await run(["--port", "0", "--allowed-host", "api", "--allowed-host", "Reference.Internal"], { ANALYTICS_ALLOWED_HOSTS: "svc, other" });
    const server = serving(cli.result);
    for (const host of ["api", "reference.internal:8080", "svc", "other.", "localhost", "127.0.0.1"])
      expect(await statusFor(server, READY_PATH, host), host).toBe(200);
    for (const host of ["evil.example", "api.evil.example"]) expect(await statusFor(server, READY_PATH, host), host).toBe(403);
    expect(cli.stdout).toMatch(/GET \/_reference\/ready 403 host "evil\.example" refused\n/);
  });

  it.each([
    [["--allowed-host", "http://api"], {}, /^--allowed-host must be a host name .* got "http:\/\/api"/],
    [["--allowed-host", "api:8080"], {}, /^--allowed-host must be a host name/],
    [[], { ANALYTICS_ALLOWED_HOSTS: "api,*.example" }, /^each name of ANALYTICS_ALLOWED_HOSTS must be a host name .* got "\*\.example"/],
  ])("refuses a bad allowed host name at start: %j %j", async (argv, env, message) => {
    const cli = await run(["--port", "0", ...argv], env);
    expect(cli.result).toEqual({ kind: "exit", code: 2 });
    expect(cli.stderr).toMatch(message);
    expect(cli.stdout).not.toContain("listening");
  });

  it("--key-user registers ANALYTICS_API_KEY as its digest, once across restarts, and never prints it", async () => {
    const statePath = path.join(tempDir(), "state.json");
    const key = generateApiKey("analytics");
    for (let start = 0; start < 2; start++) {
      const cli = await run(["--port", "0", "--state", statePath, "--key-user", "ci"], { [API_KEY_ENV]: key });
      const server = serving(cli.result);
      expect(await createOrg(server.url, key)).toBe(201);
      expect(cli.stdout + cli.stderr).not.toContain(key);
      expect(cli.stdout).not.toContain("API key for");
      await server.close();
    }
    const text = fs.readFileSync(statePath, "utf8");
    expect(text).not.toContain(key);
    const state = JSON.parse(text) as { apiKeys: Array<{ digest: string; userName: string }> };
    expect(state.apiKeys.map((record) => [record.userName, record.digest])).toEqual([["ci", digestApiKey(key)]]);
  });

  it.each(["not-a-key", generateApiKey("acme"), `${generateApiKey("analytics")}x`])(
    "refuses a malformed ANALYTICS_API_KEY without showing it: %s",
    async (value) => {
      const statePath = path.join(tempDir(), "state.json");
      const cli = await run(["--port", "0", "--state", statePath, "--key-user", "ci"], { [API_KEY_ENV]: value });
      expect(cli.result).toEqual({ kind: "exit", code: 2 });
      expect(cli.stderr).toMatch(
        /^ANALYTICS_API_KEY must be an API key of this server: analytics_key_ followed by 32 letters and digits \(the value is not shown\)/,
      );
      expect(cli.stdout + cli.stderr).not.toContain(value);
      expect(fs.existsSync(statePath)).toBe(false);
    },
  );

  it("--key-user without ANALYTICS_API_KEY mints and prints a key on the first start only", async () => {
    const statePath = path.join(tempDir(), "state.json");
    const first = await run(["--port", "0", "--state", statePath, "--key-user", "ci"]);
    const key = first.stdout.match(/API key for ci \(shown once\): (\S+)\n/)?.[1];
    expect(key).toMatch(/^analytics_key_[0-9A-Za-z]{32}$/);
    await serving(first.result).close();
    const second = await run(["--port", "0", "--state", statePath, "--key-user", "ci"]);
    const server = serving(second.result);
    expect(second.stdout).not.toContain("API key for");
    expect(await createOrg(server.url, key!)).toBe(201);
    expect(fs.readFileSync(statePath, "utf8")).not.toContain(key!);
    expect((await run(["--port", "0", "--key-user", "no spaces"])).result).toEqual({ kind: "exit", code: 2 });
  });

  it("ready exits 0 while the server answers, 1 with a one-line reason otherwise", async () => {
    const server = await startReferenceServer();
    servers.push(server);
    const lines: string[] = [];
    const out: CliOutput = { stdout: (t) => lines.push(t), stderr: (t) => lines.push(t) };
    expect(await runReady(["--url", server.url], out)).toBe(0);
    expect((await run(["ready", "--url", `${server.url}/`])).result).toEqual({ kind: "exit", code: 0 });
    expect(lines).toEqual([]);
    const starting = http.createServer((_req, res) => res.writeHead(503).end());
    await new Promise<void>((resolve) => starting.listen(0, "127.0.0.1", resolve));
    const startingPort = (starting.address() as { port: number }).port;
    const unavailable = await run(["ready", "--url", `http://127.0.0.1:${startingPort}`]);
    await new Promise((resolve) => starting.close(resolve));
    expect(unavailable.result).toEqual({ kind: "exit", code: 1 });
    expect(unavailable.stderr).toBe(`not ready: http://127.0.0.1:${startingPort}${READY_PATH} answered 503\n`);
    const port = server.port;
    await server.close();
    const down = await run(["ready", "--url", `http://127.0.0.1:${port}`]);
    expect(down.result).toEqual({ kind: "exit", code: 1 });
    expect(down.stderr).toBe(`not ready: http://127.0.0.1:${port}${READY_PATH} could not be reached (ECONNREFUSED)\n`);
    for (const argv of [["--url", "ftp://x"], ["--url", "not a url"], ["--nope"]]) {
      const bad = await run(["ready", ...argv]);
      expect(bad.result).toEqual({ kind: "exit", code: 1 });
      expect(bad.stderr).toMatch(/^not ready: .*\(usage: analytics-reference-server ready \[--url http:\/\/127\.0\.0\.1:8080\]\)\n$/);
    }
  });
});

describe("closeOnSignal", () => {
  it("returns with an idle keep-alive connection and a half-sent request open, and saves the state", async () => {
    const statePath = path.join(tempDir(), "state.json");
    const server = await startReferenceServer({ bootstrapUsers: ["alice"], statePath });
    servers.push(server);
    const agent = new http.Agent({ keepAlive: true });
    const created = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        `${server.url}${ORGANIZATIONS_PATH}`,
        { method: "POST", agent, headers: { authorization: `Bearer ${server.apiKeys.alice}`, "content-type": "application/json" } },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify({ name: "Saved on SIGTERM" }));
    });
    expect(created).toBe(201);
    // The connection stays open, idle, in the agent's pool while the server closes; another one
    // is half-way through its headers (the server would wait a minute for the rest).
    expect(Object.values(agent.freeSockets).flat()).toHaveLength(1);
    const halfway = net.connect(server.port, "127.0.0.1");
    const halfwayClosed = new Promise((resolve) => halfway.on("close", resolve));
    halfway.on("error", () => undefined);
    await new Promise<void>((resolve) => halfway.write(`GET ${READY_PATH} HTTP/1.1\r\nhost: localhost\r\n`, () => resolve()));
    const signals = new EventEmitter();
    const exit = closeOnSignal(server, signals, { stdout: () => undefined, stderr: () => undefined });
    signals.emit("SIGTERM");
    expect(await exit).toBe(0);
    await halfwayClosed;
    agent.destroy();
    expect(fs.readFileSync(statePath, "utf8")).toContain("Saved on SIGTERM");
  });

  it.each(["SIGINT", "SIGTERM"] as const)("closes the server on %s and resolves 0", async (signal) => {
    const server = await startReferenceServer({ bootstrapUsers: ["alice"] });
    servers.push(server);
    const signals = new EventEmitter();
    let stderr = "";
    const exit = closeOnSignal(server, signals, { stdout: () => undefined, stderr: (t) => (stderr += t) });
    signals.emit(signal);
    signals.emit(signal === "SIGINT" ? "SIGTERM" : "SIGINT");
    expect(await exit).toBe(0);
    expect(stderr).toBe(`${signal} received, shutting down\n`);
    await expect(fetch(`${server.url}${ORGANIZATIONS_PATH}`, { method: "POST" })).rejects.toThrow();
  });
});

import { EventEmitter } from "node:events";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ORGANIZATIONS_PATH } from "../contract";
import { USAGE, closeOnSignal, runCli, type CliOutput, type CliResult } from "./cli";
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

async function run(argv: string[]): Promise<{ result: CliResult; stdout: string; stderr: string; out: CliOutput }> {
  const captured = { stdout: "", stderr: "" };
  const out: CliOutput = { stdout: (t) => (captured.stdout += t), stderr: (t) => (captured.stderr += t) };
  const result = await runCli(argv, out);
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
  it("prints the usage for --help", async () => {
    const { result, stdout } = await run(["--help"]);
    expect(result).toEqual({ kind: "exit", code: 0 });
    expect(stdout).toBe(USAGE);
    expect(USAGE).toMatch(/mint-key --user alice --state file\.json/);
  });

  it.each([["--nope"], ["--port", "abc"], ["--port", "70000"], ["--key-prefix", "bad prefix"], ["mint-key", "--user", "alice"], ["mint-key", "--state", "x.json"]])(
    "ends with code 2 on bad usage: %j",
    async (...argv) => {
      const { result, stderr } = await run(argv);
      expect(result).toEqual({ kind: "exit", code: 2 });
      expect(stderr).not.toBe("");
    },
  );

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

describe("closeOnSignal", () => {
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

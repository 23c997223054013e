import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { build, stop as stopEsbuild } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ORGANIZATIONS_PATH } from "../contract";

let dir: string;
let binJs: string;

/** The bin as node runs it: bundled from source, so the test never depends on a stale dist/. */
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "reference-bin-"));
  binJs = path.join(dir, "bin.js");
  await build({
    entryPoints: [path.join(__dirname, "bin.ts")],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    outfile: binJs,
    external: ["pg-native"],
    logLevel: "silent",
  });
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  // esbuild's service process would outlive this file in a reused worker.
  await stopEsbuild();
});

interface Child {
  process: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function runBin(args: string[]): Child {
  const child = spawn(process.execPath, [binJs, ...args], { stdio: "pipe" });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { process: child, stdout: () => stdout, stderr: () => stderr, exit };
}

async function waitForOutput(child: Child, pattern: RegExp): Promise<RegExpMatchArray> {
  for (;;) {
    const match = child.stdout().match(pattern);
    if (match) return match;
    if (child.process.exitCode !== null) throw new Error(`bin exited early: ${child.stderr()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("analytics-reference-server bin", () => {
  it("starts with a node shebang", () => {
    expect(fs.readFileSync(path.join(__dirname, "bin.ts"), "utf8").split("\n", 1)[0]).toBe("#!/usr/bin/env node");
  });

  it("prints the help and exits 0", async () => {
    const child = runBin(["--help"]);
    expect(await child.exit).toBe(0);
    expect(child.stdout()).toMatch(/^Usage:/);
  });

  it.each(["SIGTERM", "SIGINT"] as const)("serves, prints URL and key once, and shuts down cleanly on %s", async (signal) => {
    const statePath = path.join(dir, `state-${signal}.json`);
    const child = runBin(["--port", "0", "--state", statePath, "--bootstrap-user", "alice"]);
    const [, url] = await waitForOutput(child, /listening on (http:\/\/127\.0\.0\.1:\d+)\n/);
    const [, key] = await waitForOutput(child, /API key for alice \(shown once\): (\S+)\n/);
    const res = await fetch(`${url}${ORGANIZATIONS_PATH}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "From the bin" }),
    });
    expect(res.status).toBe(201);
    await res.text();
    await waitForOutput(child, /POST \/api\/public\/organizations 201 \d+ms\n/);
    // An idle keep-alive connection stays open while the process stops (as a container runtime's health check may leave one).
    const agent = new http.Agent({ keepAlive: true });
    const ready = await new Promise<number>((resolve, reject) => {
      http.get(`${url}/_reference/ready`, { agent }, (answer) => answer.resume().on("end", () => resolve(answer.statusCode ?? 0))).on("error", reject);
    });
    expect(ready).toBe(200);
    expect(Object.values(agent.freeSockets).flat()).toHaveLength(1);
    child.process.kill(signal);
    expect(await child.exit).toBe(0);
    expect(child.stderr()).toContain(`${signal} received, shutting down`);
    const state = fs.readFileSync(statePath, "utf8");
    expect(state).toContain("From the bin");
    expect(state).not.toContain(key!);
    agent.destroy();
  });

  it("prints the version from the bundle alone, with no package.json beside it", async () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8")) as { version: string };
    expect(fs.existsSync(path.join(dir, "package.json"))).toBe(false);
    expect(fs.existsSync(path.join(dir, "..", "package.json"))).toBe(false);
    const child = runBin(["--version"]);
    expect(await child.exit).toBe(0);
    expect(child.stdout()).toBe(`${version} (Node.js ${process.version})\n`);
  });

  it("prints the OpenAPI document with the package version from the bundle alone", async () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8")) as { version: string };
    const child = runBin(["openapi"]);
    expect(await child.exit).toBe(0);
    expect((JSON.parse(child.stdout()) as { info: { version: string } }).info.version).toBe(version);
  });

  it("ready exits 0 against a running server and 1 once it is gone", async () => {
    const server = runBin(["--port", "0"]);
    const [, url] = await waitForOutput(server, /listening on (http:\/\/127\.0\.0\.1:\d+)\n/);
    const ready = runBin(["ready", "--url", url!]);
    expect(await ready.exit).toBe(0);
    expect(ready.stderr()).toBe("");
    server.process.kill("SIGTERM");
    expect(await server.exit).toBe(0);
    const gone = runBin(["ready", "--url", url!]);
    expect(await gone.exit).toBe(1);
    expect(gone.stderr()).toMatch(/^not ready: .* could not be reached \(ECONNREFUSED\)\n$/);
  });

  it("mint-key prints a key that a later server accepts", async () => {
    const statePath = path.join(dir, "minted.json");
    const mint = runBin(["mint-key", "--user", "alice", "--state", statePath]);
    expect(await mint.exit).toBe(0);
    const key = mint.stdout().trim();
    expect(key).toMatch(/^analytics_key_[0-9A-Za-z]{32}$/);
    const server = runBin(["--port", "0", "--state", statePath]);
    const [, url] = await waitForOutput(server, /listening on (http:\/\/127\.0\.0\.1:\d+)\n/);
    const res = await fetch(`${url}${ORGANIZATIONS_PATH}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Minted" }),
    });
    await res.text();
    expect(res.status).toBe(201);
    server.process.kill("SIGTERM");
    expect(await server.exit).toBe(0);
  });
});

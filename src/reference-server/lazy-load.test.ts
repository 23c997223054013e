import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { build, stop as stopEsbuild } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ORGANIZATIONS_PATH } from "../contract";
import { INSPECTION_PREFIX } from "./control/inspection";

const repoRoot = path.resolve(__dirname, "..", "..");
let dir: string;
let binJs: string;
let probeJs: string;

/**
 * The bin bundled from source with every package left external, so node loads each package from
 * node_modules and `require.cache` shows which ones a run needed. The probe writes that list when
 * the process exits.
 */
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "reference-lazy-"));
  binJs = path.join(dir, "bin.js");
  probeJs = path.join(dir, "probe.js");
  await build({
    entryPoints: [path.join(__dirname, "bin.ts")],
    bundle: true,
    packages: "external",
    platform: "node",
    format: "cjs",
    target: "node20",
    outfile: binJs,
    logLevel: "silent",
  });
  fs.writeFileSync(
    probeJs,
    `process.on("exit", () => require("fs").writeFileSync(process.env.LOADED_MODULES_FILE, JSON.stringify(Object.keys(require.cache))));\n`,
  );
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  // esbuild's service process would outlive this file in a reused worker.
  await stopEsbuild();
});

interface Run {
  url: string;
  key: string;
  /** Stops the server (SIGTERM) and resolves with the packages it had loaded. */
  stop(): Promise<Set<string>>;
}

async function startBin(name: string, extraArgs: string[] = []): Promise<Run> {
  const loadedFile = path.join(dir, `${name}.json`);
  const child = spawn(process.execPath, ["--require", probeJs, binJs, "--port", "0", "--bootstrap-user", "alice", ...extraArgs], {
    env: { ...process.env, NODE_PATH: path.join(repoRoot, "node_modules"), LOADED_MODULES_FILE: loadedFile },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.resume();
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  while (!/API key for alice \(shown once\): \S+\n/.test(stdout)) {
    if (child.exitCode !== null) throw new Error("bin exited early");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const stop = async (): Promise<Set<string>> => {
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
    const files = JSON.parse(fs.readFileSync(loadedFile, "utf8")) as string[];
    return new Set(files.flatMap((file) => /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(file)?.[1] ?? []));
  };
  return { url: /listening on (\S+)\n/.exec(stdout)![1]!, key: /API key for alice \(shown once\): (\S+)\n/.exec(stdout)![1]!, stop };
}

async function post(url: string, body: object, key?: string): Promise<{ status: number; data: { id: string } }> {
  const headers: Record<string, string> = { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) };
  const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  const json = (await res.json()) as { data: { id: string } };
  return { status: res.status, data: json.data };
}

/** A port nothing listens on: the sync's connection is refused at once. */
async function closedPort(): Promise<number> {
  const server = net.createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const dataSource = (port: number): object => ({
  type: "direct",
  dialect: "POSTGRES",
  displayName: "Lazy",
  host: "127.0.0.1",
  port,
  databaseName: "lazy_db",
  username: "lazy_user",
  password: "lazy-password",
  sslEnabled: false,
  sshEnabled: false,
});

describe("reference server start-up loads only what answering needs", () => {
  it("refuses a request without a key before loading zod or pg", async () => {
    const run = await startBin("no-validation");
    const refused = await post(`${run.url}${ORGANIZATIONS_PATH}`, { name: "Lazy" });
    expect(refused.status).toBe(401);
    const packages = await run.stop();
    expect(packages).not.toContain("zod");
    expect(packages).not.toContain("pg");
  });

  it("answers requests and creates organizations without loading pg", async () => {
    const run = await startBin("no-sync");
    const refused = await post(`${run.url}${ORGANIZATIONS_PATH}`, { name: "Lazy" });
    expect(refused.status).toBe(401);
    const org = await post(`${run.url}${ORGANIZATIONS_PATH}`, { name: "Lazy" }, run.key);
    expect(org.status).toBe(201);
    const packages = await run.stop();
    // zod came with the first validation, and the probe sees it.
    expect(packages).toContain("zod");
    expect(packages).not.toContain("pg");
  });

  it("loads pg once a schema sync runs", async () => {
    const run = await startBin("sync", ["--inspection"]);
    const org = await post(`${run.url}${ORGANIZATIONS_PATH}`, { name: "Lazy" }, run.key);
    const created = await post(`${run.url}${ORGANIZATIONS_PATH}/${org.data.id}/data-sources`, dataSource(await closedPort()), run.key);
    expect(created.status).toBe(201);
    for (;;) {
      const res = await fetch(`${run.url}${INSPECTION_PREFIX}/data-sources/${created.data.id}`);
      const view = (await res.json()) as { data: { lastSyncStatus: string; syncErrorMessage: string | null } };
      if (view.data.lastSyncStatus !== "PENDING" && view.data.lastSyncStatus !== "SYNCING") {
        expect(view.data.syncErrorMessage).toMatch(/refused/i);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await run.stop()).toContain("pg");
  });
});

/**
 * The reference server's single files (tools/build-reference-server-binary.js) as the release
 * ships them, unpacked from the test run's release folder's archives and run with no `node` on
 * PATH: the linux-amd64 file natively (tools/smoke-reference-server.js, the OpenAPI document the
 * script prints, the console page, a schema sync against a real Postgres through the pg it
 * bundles), the linux-arm64 file under qemu-user, each started from its V8 start-up snapshot, the
 * windows-amd64 file under Wine 8 with the one-byte change test/support/wine.ts describes; and a
 * build from this checkout gives the release's bytes. Needs `npm run build`.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REFERENCE_SERVER, buildReferenceServerBinaries, referenceServerArchiveName } from "../../tools/build-reference-server-binary.js";
import { PLUGIN_LINE, supportedLine } from "../../tools/lib/node-runtime.js";
import { executableFileName, targetOf, targetsBuiltOn } from "../../tools/lib/single-executable.js";
import { smokeReferenceServer } from "../../tools/smoke-reference-server.js";
import { repoRoot } from "../support/pulumi-workspace";
import { sharedReleaseFolder } from "../support/release-folder";
import { connectTestPostgres, type TestPostgres } from "../support/test-postgres";
import { retryingSilentEnds, stopWine, winePrefix, WINE, withoutVirtualAlloc2 } from "../support/wine";

const { version } = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string };
/** A PATH holding no `node`. */
const NO_NODE = { PATH: path.join(os.tmpdir(), "no-node-here") };
/** Where Debian's libc6-arm64-cross puts the arm64 dynamic loader and libraries the arm64 `node` links. */
const ARM64_LIBRARIES = "/usr/aarch64-linux-gnu";
/** What tools/smoke-reference-server.js prints on a file that works, the start time left out. */
const SMOKE_LINES = [
  `--version: ${version} (Node.js v${supportedLine(PLUGIN_LINE).pinned})`,
  `openapi: OpenAPI 3.1.0, version ${version}`,
  "mint-key: a key",
  "listening: N ms after start",
  "POST /api/public/organizations: 201",
  "ended when sent SIGTERM",
];

let dir: string;
let release: string;

/** The executable of `platform`-`arch`'s archive in the release folder, unpacked into a folder of its own. */
function released(platform: string, arch: string): string {
  const target = targetOf(platform, arch);
  const out = fs.mkdtempSync(path.join(dir, `${target.os}-${target.arch}-`));
  spawnSync("tar", ["-xzf", path.join(release, referenceServerArchiveName(version, target)), "-C", out]);
  return path.join(out, executableFileName(REFERENCE_SERVER, target));
}

/** Runs the smoke script's steps on `binary`; returns its lines, the start time replaced by N. */
async function smoke(binary: string, options: { launcher?: string[]; stdioFiles?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<string[]> {
  const lines: string[] = [];
  await smokeReferenceServer(binary, { env: NO_NODE, ...options, log: (line) => lines.push(line) });
  return lines.map((line) => line.replace(/^listening: \d+ ms/, "listening: N ms"));
}

/**
 * The script whose code ends a `--version` run of `command`, as Node.js's `--trace-exit` names it:
 * the server's name for the code of its start-up snapshot (tools/lib/start-up-snapshot.js), `main.js` for a file of scripts.
 */
function scriptEnding(command: string[]): string | undefined {
  const run = spawnSync(command[0]!, [...command.slice(1), "--version"], { env: { ...NO_NODE, NODE_OPTIONS: "--trace-exit" }, encoding: "utf8" });
  return /Exited the environment with code 0\n\s+at exit \(node:[^)]+\)\n\s+at (?:\S+ \()?([^\s:()]+):\d+:\d+/.exec(run.stderr)?.[1];
}

interface Serving {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  stop(): Promise<void>;
}

/** `binary` serving with `args`, once it printed its listening line. */
async function serve(binary: string, args: string[]): Promise<Serving> {
  const child = spawn(binary, ["--port", "0", ...args], { env: NO_NODE, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk) => {
      stdout += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`exited ${code} before listening: ${stderr}`)));
  });
  const stop = () => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : (child.once("exit", () => resolve()), child.kill("SIGTERM"))));
  return { child, url, stderr: () => stderr, stop };
}

/** POSTs `body` to `route` with `key`. */
async function post(url: string, key: string, route: string, body: object): Promise<{ status: number; data: { id: string } }> {
  const res = await fetch(`${url}${route}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, data: ((await res.json()) as { data: { id: string } }).data };
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-reference-server-binary-"));
  release = await sharedReleaseFolder();
}, 900_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("the reference server's single files in the release", () => {
  it("are one archive per platform built here, each holding the executable and LICENSE", () => {
    const list = (target: { os: string; arch: string }) =>
      spawnSync("tar", ["-tzf", path.join(release, referenceServerArchiveName(version, target))], { encoding: "utf8" })
        .stdout.trim()
        .split("\n");
    expect(targetsBuiltOn().map((target) => [`${target.os}-${target.arch}`, list(target)])).toEqual([
      ["linux-amd64", [REFERENCE_SERVER, "LICENSE"]],
      ["linux-arm64", [REFERENCE_SERVER, "LICENSE"]],
      ["windows-amd64", [`${REFERENCE_SERVER}.exe`, "LICENSE"]],
    ]);
  });

  it("build from this checkout to the release's bytes (linux-amd64 and linux-arm64, each with its snapshot)", async () => {
    const again = await buildReferenceServerBinaries(path.join(dir, "again"), {
      targets: [targetOf("linux", "x64"), targetOf("linux", "arm64")],
      log: () => {},
    });
    for (const { archive } of again)
      expect(fs.readFileSync(archive).equals(fs.readFileSync(path.join(release, path.basename(archive)))), path.basename(archive)).toBe(true);
  }, 600_000);
});

describe("the linux-amd64 single file, with no Node.js on PATH", () => {
  let binary: string;
  let db: TestPostgres | undefined;
  beforeAll(() => {
    binary = released("linux", "x64");
  });
  afterAll(async () => {
    await db?.close();
  });

  it("prints the OpenAPI document, mints a key, serves with it and ends on SIGTERM", async () => {
    expect(await smoke(binary)).toEqual(SMOKE_LINES);
  }, 300_000);

  it("starts from its V8 start-up snapshot", () => {
    expect(scriptEnding([binary])).toBe(`${REFERENCE_SERVER}.js`);
  });

  it("prints the same OpenAPI document as the script", () => {
    const script = spawnSync(process.execPath, [path.join(repoRoot, "dist", "reference-server", "bin.js"), "openapi"], { encoding: "utf8" });
    const file = spawnSync(binary, ["openapi"], { env: NO_NODE, encoding: "utf8" });
    expect([file.status, file.stdout]).toEqual([0, script.stdout]);
  });

  it("serves the console page's files with --inspection", async () => {
    const server = await serve(binary, ["--inspection"]);
    try {
      const page = path.join(repoRoot, "src", "reference-server", "control", "console-page");
      for (const [route, file] of [
        ["", "console.html"],
        ["/console.js", "console.js"],
        ["/console.css", "console.css"],
      ] as const) {
        const res = await fetch(`${server.url}/_reference/console${route}`);
        expect([res.status, Buffer.from(await res.arrayBuffer()).equals(fs.readFileSync(path.join(page, file)))], file).toEqual([200, true]);
      }
    } finally {
      await server.stop();
    }
  }, 120_000);

  it("syncs a data source's schema from a real Postgres with the pg it bundles, saying nothing of a missing pg", async () => {
    db = await connectTestPostgres();
    await db.admin("CREATE TABLE IF NOT EXISTS single_file_orders (id integer NOT NULL)");
    const state = path.join(dir, "sync-state.json");
    const key = spawnSync(binary, ["mint-key", "--user", "alice", "--state", state], { env: NO_NODE, encoding: "utf8" }).stdout.trim();
    const server = await serve(binary, ["--inspection", "--state", state]);
    try {
      const org = await post(server.url, key, "/api/public/organizations", { name: "Synced" });
      expect(org.status).toBe(201);
      const source = {
        type: "direct",
        dialect: "POSTGRES",
        displayName: "Warehouse",
        host: db.host,
        port: db.port,
        databaseName: db.databaseName,
        username: db.username,
        password: db.password ?? "unused",
        sslEnabled: false,
      };
      const created = await post(server.url, key, `/api/public/organizations/${org.data.id}/data-sources`, source);
      expect(created.status).toBe(201);
      const inspect = async () =>
        (
          (await (await fetch(`${server.url}/_reference/data-sources/${created.data.id}`)).json()) as {
            data: { lastSyncStatus: string; syncErrorMessage: string | null; tables: Array<{ name: string }> | null };
          }
        ).data;
      await expect.poll(async () => (await inspect()).lastSyncStatus, { timeout: 60_000, interval: 250 }).toMatch(/^(SUCCEEDED|FAILED)$/);
      const synced = await inspect();
      expect([synced.lastSyncStatus, synced.syncErrorMessage]).toEqual(["SUCCEEDED", null]);
      expect(synced.tables?.map((table) => table.name)).toContain("single_file_orders");
      expect(server.stderr()).not.toContain("needs the pg package");
    } finally {
      await server.stop();
      await db.admin("DROP TABLE IF EXISTS single_file_orders");
    }
  }, 180_000);
});

describe("the linux-arm64 single file, under qemu-user", () => {
  it("is an AArch64 executable that starts from its V8 start-up snapshot and passes the smoke steps", async () => {
    const binary = released("linux", "arm64");
    const launcher = ["/usr/bin/qemu-aarch64-static", "-L", ARM64_LIBRARIES];
    expect(fs.readFileSync(binary).readUInt16LE(18)).toBe(183);
    expect(scriptEnding([...launcher, binary])).toBe(`${REFERENCE_SERVER}.js`);
    expect(await smoke(binary, { launcher })).toEqual(SMOKE_LINES);
  }, 300_000);
});

describe("the windows-amd64 single file, under Wine 8", () => {
  let env: NodeJS.ProcessEnv | undefined;
  afterAll(() => {
    if (env) stopWine(env);
  });

  it("passes the smoke steps with only the name V8 looks VirtualAlloc2 up by changed", async () => {
    const shipped = released("win32", "x64");
    const copy = withoutVirtualAlloc2(shipped, path.join(path.dirname(shipped), `without-virtualalloc2.exe`));
    env = winePrefix(fs.mkdtempSync(path.join(dir, "wine-")));
    const wineEnv = env;
    expect(await retryingSilentEnds(() => smoke(copy, { launcher: [WINE], stdioFiles: true, env: wineEnv }))).toEqual(SMOKE_LINES);
  }, 600_000);
});

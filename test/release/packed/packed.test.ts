/**
 * The package as a user installs it: the release's `npm pack` tarball, a fresh app on its own `@pulumi/pulumi` (the
 * oldest the peer range allows and the newest tested), the real CLI against the reference server
 * started from the install; and a stack created by the previous release, run with this one. Each
 * app has its own folder, stack and server, so the tests run at once (`describe.concurrent`): the
 * file's installs and CLI runs wait on one another's processes no longer, and it ends minutes sooner.
 */
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { defaultCacheRoot } from "../../../toolchain/src/pulumi-cli";
import { nodeRuntime, supportedLines } from "../../../tools/lib/node-runtime.js";
import { FIGURE_ROWS, documentedFigures, measureInstall } from "./install-size";
import { npmPackages } from "../../../tools/publish.js";
import { PulumiWorkspace, repoRoot, resourcesOfType, type CommandResult } from "../../support/pulumi-workspace";
import { sharedReleaseFolder } from "../../support/release-folder";
import {
  NEWEST_SDK,
  OLDEST_SDK,
  compileApp,
  installApp,
  sdkCopies,
  startInstalledServer,
  upgradeApp,
  type InstalledServer,
  type PackedTarball,
} from "./packed-app";

const toolchain = inject("pulumiToolchain");
const APP = path.join(repoRoot, "test", "fixtures", "packed-app");
/** The 0.1.0 release, packed from the commit it was cut from. */
const RELEASE_0_1_0 = path.join(repoRoot, "test", "fixtures", "upgrade", "pulumi-analytics-0.1.0.tgz");
/** The SDK 0.1.0 pinned, so every app that ran 0.1.0 has it. */
const SDK_OF_0_1_0 = "3.188.0";
const DB_PASSWORD = "packed-app-db-password";
const DATA_SOURCE = "pulumi-nodejs:dynamic/analytics:DataSource";
const [FLOOR_LINE, ...NEWER_LINES] = supportedLines().map((l) => l.line);
/** Each supported Node.js line once: the oldest SDK the peer range allows on the oldest line, the newest SDK on the others. */
const APP_RUNS = [{ sdk: OLDEST_SDK, line: FLOOR_LINE as number }, ...NEWER_LINES.map((line) => ({ sdk: NEWEST_SDK, line }))];

/** Public API requests the reference server has received so far. */
async function apiRequests(server: InstalledServer): Promise<number> {
  const answer = await fetch(`${server.url}/_reference/requests`);
  const body = (await answer.json()) as { data: { total: number } };
  return body.data.total;
}

/**
 * The package's tarball as the release ships it (`npm pack` in tools/release.js, of a copy of the
 * checkout whose prepack builds dist/ afresh; the release folder is built once per test run),
 * copied into `into`, with the paths inside it.
 */
async function releasedTarball(into: string): Promise<PackedTarball> {
  const { tarball: name } = npmPackages().find((p) => p.name === "pulumi-analytics")!;
  const file = path.join(into, name);
  fs.copyFileSync(path.join(await sharedReleaseFolder(), name), file);
  // `tar -tvzf`: mode, owner/group, size, date, time, path; npm's tarballs hold files only.
  const listed = execFileSync("tar", ["-tvzf", file], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line !== "");
  const entries = listed.map((line) => /^\S+\s+\S+\s+(\d+)\s+\S+\s+\S+\s+package\/(.+)$/.exec(line) ?? expect.unreachable(`tar listed ${line}`));
  const files = entries.map(([, , entry]) => entry!);
  const unpackedSize = entries.reduce((sum, [, bytes]) => sum + Number(bytes), 0);
  return { file, files, size: fs.statSync(file).size, unpackedSize };
}

let work: string;
let tarball: PackedTarball;
beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-analytics-packed-"));
  tarball = await releasedTarball(work);
}, 900_000);
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** The data source's sync status and message once its background sync has finished (polled through the inspection surface). */
async function syncOutcome(server: InstalledServer, id: string): Promise<{ lastSyncStatus: string; syncErrorMessage: string | null }> {
  for (const deadline = Date.now() + 30_000; ; await new Promise((resolve) => setTimeout(resolve, 100))) {
    const answer = await fetch(`${server.url}/_reference/data-sources/${id}`);
    const { data } = (await answer.json()) as { data: { lastSyncStatus: string; syncErrorMessage: string | null } };
    if (!["PENDING", "SYNCING"].includes(data.lastSyncStatus) || Date.now() > deadline)
      return { lastSyncStatus: data.lastSyncStatus, syncErrorMessage: data.syncErrorMessage };
  }
}

/** Points the stack at `server` and sets the program's one secret. */
async function configure(workspace: PulumiWorkspace, server: InstalledServer): Promise<void> {
  await workspace.setConfig({ "analytics:baseUrl": server.url }, { "analytics:apiKey": server.apiKey, "db:password": DB_PASSWORD });
}

/** Nothing the CLI printed or stored holds the API key or the database password. */
function expectNoPlaintextSecrets(workspace: PulumiWorkspace, server: InstalledServer): void {
  const printed = workspace.transcript.map((r: CommandResult) => r.stdout + r.stderr).join("\n");
  const stored = [...workspace.backendFiles().values()].join("\n");
  for (const secret of [server.apiKey, DB_PASSWORD]) {
    expect(printed).not.toContain(secret);
    expect(stored).not.toContain(secret);
  }
}

/** The optional policy SDK was not installed, and `pulumi-analytics/policy` says which package to add. */
function expectPolicySubpathNamesItsPackage(appDir: string): void {
  expect(fs.existsSync(path.join(appDir, "node_modules", "@pulumi", "policy"))).toBe(false);
  const loaded = spawnSync(process.execPath, ["-e", "require('pulumi-analytics/policy')"], { cwd: appDir, encoding: "utf8" });
  expect(loaded.status).not.toBe(0);
  expect(loaded.stderr).toContain("pulumi-analytics/policy needs the @pulumi/policy package");
  expect(loaded.stderr).toContain("npm install --save-dev @pulumi/policy");
}

/** The package.json inside the tarball. */
function packedManifest(): Record<string, unknown> {
  return JSON.parse(execFileSync("tar", ["-xzOf", tarball.file, "package/package.json"], { encoding: "utf8" })) as Record<string, unknown>;
}

describe.concurrent("the packed tarball", () => {
  it("ships the build, README and LICENSE, and nothing of tests, demo, fixtures, sources or the toolchain", () => {
    for (const file of [
      "package.json",
      "README.md",
      "LICENSE",
      "dist/index.js",
      "dist/index.d.ts",
      "dist/reference-server/bin.js",
      "dist/reference-server/control/console-page/console.html",
      "dist/reference-server/control/console-page/console.css",
      "dist/reference-server/control/console-page/console.js",
      "dist/resources/provider-impl.js",
      "dist/native/bin.js",
      "dist/native/schema.json",
      "dist/policy/index.js",
      "policy-pack/index.js",
      "policy-pack/package.json",
      "policy-pack/PulumiPolicy.yaml",
    ]) {
      expect(tarball.files).toContain(file);
    }
    const stray = tarball.files.filter(
      (file) =>
        /(^|\/)(test|tests|demo|fixtures?|src)(\/|$)|\.test\.|demo-warehouse|test-postgres|\.map$/.test(file) ||
        (file.endsWith(".ts") && !file.endsWith(".d.ts")),
    );
    expect(stray).toEqual([]);
    // The Pulumi CLI builder is development tooling (the private workspace package toolchain/):
    // no Go module, no toolchain code, no tools/ folder reaches users.
    const tooling = tarball.files.filter((file) => /(^|\/)(go\.mod|go\.sum|[^/]+\.go)$|^tools\/|^toolchain\/|(^|\/)toolchain(\/|$)/.test(file));
    expect(tooling).toEqual([]);
  });

  it("declares the SDK as a peer range, no embedded Postgres, and no install-time script", () => {
    const manifest = packedManifest();
    expect(manifest.peerDependencies).toEqual({
      "@aws-sdk/client-s3": "^3.600.0",
      "@pulumi/pulumi": `^${OLDEST_SDK}`,
      "@pulumi/policy": "^1.21.0",
      pg: "^8.23.1",
    });
    // The policy SDK is only for policy packs, the S3 client only for `analytics-orphans` on an
    // s3:// backend, pg only for the reference server's schema sync: provider users never get any installed.
    expect(manifest.peerDependenciesMeta).toEqual({ "@aws-sdk/client-s3": { optional: true }, "@pulumi/policy": { optional: true }, pg: { optional: true } });
    expect(Object.keys(manifest.dependencies as object).sort()).toEqual(["undici", "zod"]);
    // No entry point or command of the toolchain, and no workspace for npm to look at.
    expect(Object.keys(manifest.exports as object)).not.toContain("./toolchain");
    expect(Object.keys(manifest.bin as object).sort()).toEqual([
      "analytics-migrate-to-native",
      "analytics-orphans",
      "analytics-reference-server",
      "pulumi-resource-analytics",
    ]);
    const scripts = manifest.scripts as Record<string, string>;
    for (const hook of ["prepare", "preinstall", "install", "postinstall"]) expect(scripts[hook]).toBeUndefined();
    expect(manifest.license).toBe("Apache-2.0");
    expect(manifest.keywords).toEqual(expect.arrayContaining(["pulumi", "iac", "provider"]));
    expect(manifest.repository).toBeDefined();
    // The checkout's own package.json keeps `prepare` (git installs build with it).
    const own = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(own.scripts.prepare).toBeDefined();
  });

  for (const { sdk, line } of APP_RUNS) {
    it(`in a fresh app on @pulumi/pulumi ${sdk}, Node.js ${line}: one SDK copy, type-checks, preview (no API request), up, no-change preview, refresh, destroy`, async () => {
      const runtime = await nodeRuntime(line, { root: defaultCacheRoot() });
      // The line's node first on PATH for npm, the reference server, the language host and the dynamic provider.
      const onLine = { PATH: `${runtime.binDir}${path.delimiter}${process.env.PATH ?? ""}` };
      const workspace = await PulumiWorkspace.create(toolchain, { programDir: APP, ownNodeModules: true, passphrase: true, env: onLine });
      let server: InstalledServer | undefined;
      try {
        const ms = await installApp(workspace.programDir, sdk, tarball.file, onLine);
        process.stderr.write(`[packed] npm install of the tarball with @pulumi/pulumi ${sdk} on Node.js ${runtime.version}: ${(ms / 1000).toFixed(1)} s\n`);
        expect(sdkCopies(workspace.programDir)).toEqual([`node_modules/@pulumi/pulumi@${sdk}`]);
        expectPolicySubpathNamesItsPackage(workspace.programDir);
        // The S3 client is for analytics-orphans on s3:// only, pg for the reference server's schema
        // sync only: optional peers, never installed with the package.
        expect(fs.existsSync(path.join(workspace.programDir, "node_modules", "@aws-sdk", "client-s3"))).toBe(false);
        expect(fs.existsSync(path.join(workspace.programDir, "node_modules", "pg"))).toBe(false);
        await compileApp(workspace.programDir);

        server = await startInstalledServer(workspace.programDir, [], onLine);
        await configure(workspace, server);
        expect((await workspace.pulumi(["preview"])).stdout).toMatch(/\+ 3 to create/);
        expect(await apiRequests(server)).toBe(0);
        expect((await workspace.pulumi(["up", "--yes"])).stdout).toMatch(/\+ 3 created/);
        const outputs = JSON.parse((await workspace.pulumi(["stack", "output", "--json"])).stdout) as Record<string, unknown>;
        const answer = await fetch(`${server.url}/_reference/data-sources/${String(outputs.dataSourceId)}`);
        expect(answer.status).toBe(200);
        await answer.body?.cancel();
        // The console's files ship in the package: the installed server serves each of them.
        for (const file of ["", "/console.css", "/console.js"]) {
          const served = await fetch(`${server.url}/_reference/console${file}`);
          expect(served.status, `/_reference/console${file}`).toBe(200);
          await served.body?.cancel();
        }
        expect(outputs).toMatchObject({ resourceCount: 2, probeCode: "none", lastSyncStatus: "PENDING", nodeVersion: `v${runtime.version}` });
        // Without pg the server still serves; the data source's sync fails saying what to install.
        expect(await syncOutcome(server, String(outputs.dataSourceId))).toEqual({
          lastSyncStatus: "FAILED",
          syncErrorMessage: expect.stringContaining("run `npm install pg`"),
        });

        await workspace.pulumi(["preview", "--expect-no-changes"]);
        expect((await workspace.pulumi(["refresh", "--yes"])).stdout).toMatch(/3 unchanged/);
        const last = await workspace.pulumi(["destroy", "--yes"]);
        expect(last.stdout).toMatch(/- 3 deleted/);
        process.stderr.write(
          `[packed] Node.js ${runtime.version}, @pulumi/pulumi ${sdk}: ${last.stdout
            .split("\n")
            .filter((l) => /deleted$|Duration/.test(l.trim()))
            .map((l) => l.trim())
            .join(" | ")}\n`,
        );
        expectNoPlaintextSecrets(workspace, server);
      } finally {
        await server?.stop();
        workspace.dispose();
      }
    }, 600_000);
  }
});

describe.concurrent("upgrading from 0.1.0", () => {
  it("a stack that 0.1.0 created previews with no changes on this version, then on the newest SDK, and destroys", async () => {
    const workspace = await PulumiWorkspace.create(toolchain, { programDir: APP, ownNodeModules: true, passphrase: true });
    let server: InstalledServer | undefined;
    try {
      await installApp(workspace.programDir, SDK_OF_0_1_0, RELEASE_0_1_0);
      // Only the program: 0.1.0's subpath entries had no types under node10 resolution.
      await compileApp(workspace.programDir, ["tsconfig.program.json"]);
      // One server for the whole test: the service outlives the provider's upgrade.
      server = await startInstalledServer(workspace.programDir);
      await configure(workspace, server);
      await workspace.pulumi(["up", "--yes"]);
      const [created] = resourcesOfType(await workspace.exportStack(), DATA_SOURCE);
      expect(String(created?.inputs?.__provider)).toContain("pulumi-analytics/dynamic-provider");

      await upgradeApp(workspace.programDir, SDK_OF_0_1_0, tarball.file);
      const installed = JSON.parse(fs.readFileSync(path.join(workspace.programDir, "node_modules", "pulumi-analytics", "package.json"), "utf8")) as {
        peerDependencies?: object;
      };
      expect(installed.peerDependencies).toBeDefined();
      expect(sdkCopies(workspace.programDir)).toEqual([`node_modules/@pulumi/pulumi@${SDK_OF_0_1_0}`]);
      await compileApp(workspace.programDir);

      await workspace.pulumi(["preview", "--expect-no-changes"]);
      // Freed from 0.1.0's exact pin, the app moves to the newest SDK: still no changes.
      await upgradeApp(workspace.programDir, NEWEST_SDK, tarball.file);
      expect(sdkCopies(workspace.programDir)).toEqual([`node_modules/@pulumi/pulumi@${NEWEST_SDK}`]);
      await workspace.pulumi(["preview", "--expect-no-changes"]);
      // The state still holds 0.1.0's serialized provider; deleting through it must reach this version's code.
      const [kept] = resourcesOfType(await workspace.exportStack(), DATA_SOURCE);
      expect(kept?.inputs?.__provider).toEqual(created?.inputs?.__provider);
      expect((await workspace.pulumi(["destroy", "--yes"])).stdout).toMatch(/- 3 deleted/);
      expectNoPlaintextSecrets(workspace, server);
    } finally {
      await server?.stop();
      workspace.dispose();
    }
  }, 600_000);
});

/** How far a measured size may drift from docs/packaging.md before the page must be measured again. */
const SIZE_TOLERANCE = 0.1;

describe.concurrent("the install size docs/packaging.md reports", () => {
  it(`holds: the tarball's bytes and what it adds to an app on @pulumi/pulumi ${NEWEST_SDK} within ${SIZE_TOLERANCE * 100}%, the packages exactly`, async () => {
    const measured = await measureInstall(work, tarball, NEWEST_SDK);
    const documented = documentedFigures(fs.readFileSync(path.join(repoRoot, "docs", "packaging.md"), "utf8"));
    process.stderr.write(`[packed] install size: ${JSON.stringify(measured)}\n`);
    for (const key of ["packedBytes", "unpackedBytes", "diskBytesAdded"] as const) {
      const drift = Math.abs(measured[key] - documented[key]) / documented[key];
      expect(
        drift,
        `${FIGURE_ROWS[key]}: measured ${measured[key]}, documented ${documented[key]}; measure again and update docs/packaging.md`,
      ).toBeLessThanOrEqual(SIZE_TOLERANCE);
    }
    expect(measured.packagesAdded, FIGURE_ROWS.packagesAdded).toBe(documented.packagesAdded);
  }, 600_000);
});

/**
 * Go with the real CLI: examples/go (a `runtime: go` program on the generated SDK in sdk/go) run
 * through the pinned engine, its Go language host and the native provider plugin against a
 * reference server, on a file backend; and a Go Automation API program (test/fixtures/go-automation)
 * running an inline program with `auto.UpsertStackInlineSource`. Modules are downloaded once
 * (`go mod download`); every build after that runs with GOPROXY=off and -mod=readonly, so the
 * committed go.sum files are complete. Needs `npm run build` (the plugin runs dist/native/bin.js)
 * and Go >= 1.24 on PATH.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../src/reference-server";
import { pulumiEnvironment } from "../src/toolchain/pulumi-cli";
import { PulumiWorkspace, TEST_PASSPHRASE, repoRoot, resourcesOfType, type CommandResult } from "./support/pulumi-workspace";
import { configureExample, usePluginShim, writePluginShim } from "./support/plugin-shim";

const execFileAsync = promisify(execFile);
const toolchain = inject("pulumiToolchain");
const ORG_TYPE = "analytics:index:Organization";
const DS_TYPE = "analytics:index:DataSource";
const PASSWORD = "go-password-9a8b7c";
const output = (result: CommandResult): string => `${result.stdout}\n${result.stderr}`;

/** Go offline: the local toolchain, no module proxy, and go.sum decides every module. */
const OFFLINE_GO = { GOTOOLCHAIN: "local", GOFLAGS: "-mod=readonly", GOPROXY: "off" };


/** Downloads a module's dependencies (the only step that may use the network). */
async function downloadModules(dir: string): Promise<void> {
  await execFileAsync("go", ["mod", "download"], { cwd: dir, env: { ...process.env, GOTOOLCHAIN: "local", GOFLAGS: "-mod=readonly" }, timeout: 600_000 });
}

describe("examples/go with the real engine and the Go language host", () => {
  let ws: PulumiWorkspace;
  let server: ReferenceServer;

  beforeAll(async () => {
    expect(toolchain.goLanguageHost, "the toolchain has no pulumi-language-go").toBeTruthy();
    server = await startReferenceServer({ port: 0, bootstrapUsers: ["gopher"], inspection: true });
    ws = await PulumiWorkspace.create(toolchain, { programDir: path.join(repoRoot, "examples/go"), withoutNodeModules: true, env: OFFLINE_GO });
    usePluginShim(ws.programDir);
    // The copy's relative `replace` no longer leads to sdk/: point it there.
    await execFileAsync("go", ["mod", "edit", `-replace=github.com/pulumi-analytics/pulumi-analytics/sdk=${path.join(repoRoot, "sdk")}`], { cwd: ws.programDir, env: { ...process.env, GOTOOLCHAIN: "local" } });
    await downloadModules(ws.programDir);
    await configureExample(ws, { baseUrl: server.url, apiKey: server.apiKeys.gopher!, dbPassword: PASSWORD });
  }, 900_000);

  afterAll(async () => {
    ws?.dispose();
    await server?.close();
  });

  it("previews with no request, creates both objects, then previews no change", async () => {
    const preview = await ws.pulumi(["preview"]);
    expect(preview.stdout).toMatch(/\+\s+analytics:index:Organization\s+acme\s+create/);
    expect(preview.stdout).toMatch(/\+\s+analytics:index:DataSource\s+warehouse\s+create/);
    expect(server.inspect.requestCount()).toBe(0);

    await ws.pulumi(["up", "--yes"]);
    const state = await ws.exportStack();
    const [org] = resourcesOfType(state, ORG_TYPE);
    const [ds] = resourcesOfType(state, DS_TYPE);
    expect(server.inspect.organizations().map((o) => o.id)).toEqual([org?.id]);
    expect(server.inspect.dataSources().map((d) => [d.id, d.displayName])).toEqual([[ds?.id, "Warehouse"]]);
    expect(JSON.parse((await ws.pulumi(["stack", "output", "--json"])).stdout)).toMatchObject({ orgId: org?.id, dataSourceId: ds?.id, lastSyncStatus: "PENDING" });

    const requests = server.inspect.requestCount();
    await ws.pulumi(["preview", "--expect-no-changes"]);
    expect(server.inspect.requestCount()).toBe(requests);
  }, 900_000);

  it("replaces a renamed data source, saying why, and leaves the old one behind", async () => {
    await ws.pulumi(["config", "set", "displayName", "Renamed Go warehouse"]);
    const preview = await ws.pulumi(["preview"]);
    expect(preview.stdout).toMatch(/\+-\s+analytics:index:DataSource\s+warehouse\s+replace\s+\[diff: ~displayName\]/);
    expect(output(preview)).toMatch(/DataSource "Warehouse" \(id ds_\w+\) will be replaced because displayName changed/);
    await ws.pulumi(["up", "--yes"]);
    expect(server.inspect.dataSources().map((d) => d.displayName)).toEqual(["Warehouse", "Renamed Go warehouse"]);
    await ws.pulumi(["preview", "--expect-no-changes"]);
  }, 900_000);

  it("destroys by leaving the objects, with the warning", async () => {
    const destroy = await ws.pulumi(["destroy", "--yes"]);
    expect(output(destroy)).toMatch(/warning: Organization "Acme" \(id org_\w+\) was left in the analytics service/);
    expect(resourcesOfType(await ws.exportStack(), ORG_TYPE)).toEqual([]);
  }, 900_000);

  it("leaves no credential in plain text in the state, its history or any output", async () => {
    const haystacks = [{ where: "stack export", text: output(await ws.pulumi(["stack", "export", "--show-secrets=false"])) }];
    for (const [file, text] of ws.backendFiles()) haystacks.push({ where: `backend/${file}`, text });
    ws.transcript.forEach((result, i) => haystacks.push({ where: `command #${i}`, text: output(result) }));
    for (const credential of [server.apiKeys.gopher!, PASSWORD]) {
      for (const { where, text } of haystacks) expect(text.includes(credential), `${credential.slice(0, 6)}… found in ${where}`).toBe(false);
    }
  });
});

describe("a Go Automation API inline program with the generated SDK", () => {
  let server: ReferenceServer;
  let root: string;
  const fixture = path.join(repoRoot, "test/fixtures/go-automation");

  beforeAll(async () => {
    server = await startReferenceServer({ port: 0, bootstrapUsers: ["auto"], inspection: true });
    root = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-go-automation-"));
    await downloadModules(fixture);
  }, 900_000);

  afterAll(async () => {
    await server?.close();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it("runs up, a no-change up and destroy against the reference server, with no Go language host", async () => {
    fs.mkdirSync(path.join(root, "backend"));
    fs.mkdirSync(path.join(root, "home"));
    const env = {
      ...pulumiEnvironment(toolchain),
      ...OFFLINE_GO,
      PULUMI_HOME: path.join(root, "home"),
      PULUMI_CONFIG_PASSPHRASE: TEST_PASSPHRASE,
      ANALYTICS_TEST_BACKEND: `file://${path.join(root, "backend")}`,
      ANALYTICS_TEST_PLUGIN: writePluginShim(path.join(root, "plugin-bin")),
      ANALYTICS_TEST_BASE_URL: server.url,
      ANALYTICS_TEST_API_KEY: server.apiKeys.auto!,
    };
    const { stdout, stderr } = await execFileAsync("go", ["run", "."], { cwd: fixture, env, timeout: 900_000, maxBuffer: 64 * 1024 * 1024 });
    const steps = Object.fromEntries(
      stdout
        .split("\n")
        .filter((line) => line.startsWith("step "))
        .map((line) => {
          const [, name, ...json] = line.split(" ");
          return [name!, JSON.parse(json.join(" ")) as Record<string, unknown>];
        }),
    );
    const [org] = server.inspect.organizations();
    expect(org?.name).toBe("Inline Org");
    expect(steps.up).toEqual({ orgId: org?.id, changes: { create: 2 } });
    expect(steps["up-again"]).toEqual({ changes: { same: 2 } });
    expect(String(steps.destroyed?.state)).not.toContain(ORG_TYPE);
    expect(stderr).toMatch(/was left in the analytics service/);
    const backend = path.join(root, "backend");
    const stateFiles = fs.readdirSync(backend, { recursive: true }).map(String).filter((f) => fs.statSync(path.join(backend, f)).isFile());
    expect(stateFiles.length).toBeGreaterThan(0);
    for (const text of [stdout, stderr, ...stateFiles.map((f) => fs.readFileSync(path.join(backend, f), "utf8"))]) expect(text).not.toContain(server.apiKeys.auto!);
  }, 900_000);
});

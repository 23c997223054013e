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
import { pulumiEnvironment } from "../toolchain/src/pulumi-cli";
import { expectAutomationSteps, expectDestroyLeaves, expectFirstUp, expectNoCredentialLeak, expectPreviewWithoutRequests, expectRenameReplaces } from "./support/example-lifecycle";
import { PulumiWorkspace, TEST_PASSPHRASE, repoRoot } from "./support/pulumi-workspace";
import { configureExample, usePluginShim, writePluginShim } from "./support/plugin-shim";

const execFileAsync = promisify(execFile);
const toolchain = inject("pulumiToolchain");
const PASSWORD = "go-password-9a8b7c";

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
    await expectPreviewWithoutRequests(ws, server);
    await expectFirstUp(ws, server);
  }, 900_000);

  it("replaces a renamed data source, saying why, and leaves the old one behind", async () => {
    await expectRenameReplaces(ws, server, "Renamed Go warehouse");
  }, 900_000);

  it("destroys by leaving the objects, with the warning", async () => {
    await expectDestroyLeaves(ws);
  }, 900_000);

  it("leaves no credential in plain text in the state, its history or any output", async () => {
    await expectNoCredentialLeak(ws, [server.apiKeys.gopher!, PASSWORD]);
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
    expectAutomationSteps(server, { stdout, stderr, backend: path.join(root, "backend"), apiKey: server.apiKeys.auto! });
  }, 900_000);
});

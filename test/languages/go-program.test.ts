/**
 * A Go Automation API program (test/fixtures/go-automation) on the generated SDK in sdk/go,
 * running an inline program with `auto.UpsertStackInlineSource` through the pinned engine and the
 * native provider plugin against a reference server, on a file backend, with no Go language host.
 * (examples/go runs with the Go language host in test/release/release-rehearsal-go.test.ts, on the
 * released SDK and plugin.) Modules are downloaded once (`go mod download`); the build after that
 * runs with GOPROXY=off and -mod=readonly, so the committed go.sum is complete. Needs `npm run
 * build` (the plugin runs dist/native/bin.js) and Go >= 1.24 on PATH.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, inject, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server";
import { pulumiEnvironment } from "../../toolchain/src/pulumi-cli";
import { expectAutomationSteps } from "../support/example-lifecycle";
import { TEST_PASSPHRASE, repoRoot } from "../support/pulumi-workspace";
import { writePluginShim } from "../support/plugin-shim";

const execFileAsync = promisify(execFile);
const toolchain = inject("pulumiToolchain");

/** Go offline: the local toolchain, no module proxy, and go.sum decides every module. */
const OFFLINE_GO = { GOTOOLCHAIN: "local", GOFLAGS: "-mod=readonly", GOPROXY: "off" };

/** Downloads a module's dependencies (the only step that may use the network). */
async function downloadModules(dir: string): Promise<void> {
  await execFileAsync("go", ["mod", "download"], { cwd: dir, env: { ...process.env, GOTOOLCHAIN: "local", GOFLAGS: "-mod=readonly" }, timeout: 600_000 });
}

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

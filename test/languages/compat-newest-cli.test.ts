/**
 * The compatibility tier: the newest Pulumi CLI the Go module proxy serves (NEWEST_PULUMI_VERSION,
 * built by global setup beside the pinned engine, with pulumi-yaml 1.25.0 and the Node.js and
 * Python hosts next to it; docs/maintainers/toolchain.md) runs the three kinds of program users write with this
 * package: examples/yaml through the single-file plugin with no `node` on PATH, the TypeScript
 * dynamic classes (test/fixtures/lifecycle), and examples/python with the SDK's wheel. Each goes
 * through preview (no request reaches the API), up, a no-change preview, refresh and destroy, and
 * no API key or database password appears in any command's output or any backend file. Needs
 * `npm run build` and python3.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server";
import { NEWEST_PULUMI_VERSION, type PulumiToolchain } from "../../toolchain/src/pulumi-cli";
import {
  expectDestroyLeaves,
  expectFirstUp,
  expectNoCredentialLeak,
  expectPreviewWithoutRequests,
  expectRefreshKeeps,
  output,
} from "../support/example-lifecycle";
import { configureExample, usePluginShim } from "../support/plugin-shim";
import { PulumiWorkspace, repoRoot, resourcesOfType } from "../support/pulumi-workspace";
import { PYTHON_TEST_VARIABLES, buildPythonSdk, createProgramVenv, resolvePythonEnv } from "../support/python-env";
import { sharedReleaseFolder } from "../support/release-folder";
import { NO_NODE_PATH, PLATFORM_ARCHIVE, VERSION } from "../support/release-rehearsal";

const provided = inject("newestPulumiToolchain");
const PASSWORD = "newest-cli-password-5b6c7d";

/** The newest CLI global setup resolved; a test fails with the build's error when it could not be built. */
function newest(): PulumiToolchain {
  if ("unavailable" in provided) throw new Error(`global setup could not build Pulumi ${NEWEST_PULUMI_VERSION}: ${provided.unavailable}`);
  return provided;
}

/** One program's stack on the newest CLI and the reference server it talks to, closed by {@link close}. */
interface Stack {
  ws: PulumiWorkspace;
  server: ReferenceServer;
  apiKey: string;
}

async function close(stack: Stack | undefined): Promise<void> {
  stack?.ws.dispose();
  await stack?.server.close();
}

/** A reference server with one user, and a workspace on the newest CLI for `programDir`. */
async function openStack(programDir: string, options: { env?: NodeJS.ProcessEnv; linkPackage?: boolean; withoutNodeModules?: boolean } = {}): Promise<Stack> {
  const server = await startReferenceServer({ port: 0, bootstrapUsers: ["newest"], inspection: true });
  try {
    const ws = await PulumiWorkspace.create(newest(), { programDir, ...options });
    return { ws, server, apiKey: server.apiKeys.newest! };
  } catch (error) {
    await server.close();
    throw error;
  }
}

/** What examples/yaml and examples/python go through: the shared steps of test/support/example-lifecycle.ts, with refresh. */
async function exampleLifecycle(stack: Stack): Promise<void> {
  await expectPreviewWithoutRequests(stack.ws, stack.server);
  await expectFirstUp(stack.ws, stack.server);
  await expectRefreshKeeps(stack.ws, stack.server);
  await expectDestroyLeaves(stack.ws);
  expect(stack.server.inspect.organizations()).toHaveLength(1);
  await expectNoCredentialLeak(stack.ws, [stack.apiKey, PASSWORD]);
}

describe(`examples/yaml through the single-file plugin on Pulumi ${NEWEST_PULUMI_VERSION}`, () => {
  let stack: Stack | undefined;

  beforeAll(async () => {
    // The release's own archive for this platform, built once per test run.
    const archive = path.join(await sharedReleaseFolder(), PLATFORM_ARCHIVE);
    // No `node` on PATH: only the single-file plugin can serve the program.
    stack = await openStack(path.join(repoRoot, "examples/yaml"), { withoutNodeModules: true, env: { PATH: NO_NODE_PATH } });
    await stack.ws.pulumi(["plugin", "install", "resource", "analytics", VERSION, "--file", archive]);
    await configureExample(stack.ws, { baseUrl: stack.server.url, apiKey: stack.apiKey, dbPassword: PASSWORD });
  }, 600_000);

  afterAll(async () => {
    await close(stack);
  });

  it("previews with no request, creates, previews no change, refreshes and destroys, never showing a secret", async () => {
    await exampleLifecycle(stack!);
  }, 600_000);
});

describe(`the TypeScript dynamic classes on Pulumi ${NEWEST_PULUMI_VERSION}`, () => {
  const DYNAMIC_ORG = "pulumi-nodejs:dynamic/analytics:Organization";
  const DYNAMIC_DS = "pulumi-nodejs:dynamic/analytics:DataSource";
  let stack: Stack | undefined;

  beforeAll(async () => {
    stack = await openStack(path.join(repoRoot, "test/fixtures/lifecycle"), { linkPackage: true });
    await stack.ws.setConfig({ "analytics:baseUrl": stack.server.url }, { "analytics:apiKey": stack.apiKey, "fixture:password": PASSWORD });
  }, 300_000);

  afterAll(() => close(stack));

  it("previews with no request, creates, previews no change, refreshes and destroys, never showing a secret", async () => {
    const { ws, server } = stack!;
    const preview = await ws.pulumi(["preview"]);
    expect(preview.stdout).toMatch(/\+\s+pulumi-nodejs:dynamic\/analytics:DataSource\s+warehouse\s+create/);
    expect(server.inspect.requestCount()).toBe(0);

    await ws.pulumi(["up", "--yes"]);
    const state = await ws.exportStack();
    const [org] = resourcesOfType(state, DYNAMIC_ORG);
    const [ds] = resourcesOfType(state, DYNAMIC_DS);
    expect(server.inspect.organizations().map((o) => o.id)).toEqual([org?.id]);
    expect(server.inspect.dataSources().map((d) => d.id)).toEqual([ds?.id]);
    expect(ds?.outputs).toMatchObject({ orgId: org?.id, lastSyncStatus: "PENDING" });
    const requests = server.inspect.requestCount();
    await ws.pulumi(["preview", "--expect-no-changes"]);
    expect(server.inspect.requestCount()).toBe(requests);
    await expectRefreshKeeps(stack!.ws, stack!.server);

    const destroy = await ws.pulumi(["destroy", "--yes"]);
    expect(output(destroy)).toContain(`DataSource "Lifecycle warehouse" (id ${ds?.id}) was left in the analytics service`);
    expect((await ws.exportStack()).deployment.resources ?? []).toEqual([]);
    await expectNoCredentialLeak(ws, [stack!.apiKey, PASSWORD]);
  }, 600_000);
});

describe(`examples/python on Pulumi ${NEWEST_PULUMI_VERSION}`, () => {
  let stack: Stack | undefined;
  let work: string;

  beforeAll(async () => {
    const pyEnv = await resolvePythonEnv();
    work = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-newest-cli-python-"));
    const { wheel } = await buildPythonSdk(pyEnv, path.join(work, "sdk"));
    await createProgramVenv(pyEnv, path.join(work, "venv"), wheel);
    stack = await openStack(path.join(repoRoot, "examples/python"), { withoutNodeModules: true, env: PYTHON_TEST_VARIABLES });
    // The example's Pulumi.yaml names `virtualenv: venv`: the one holding the wheel.
    fs.symlinkSync(path.join(work, "venv"), path.join(stack.ws.programDir, "venv"), "dir");
    usePluginShim(stack.ws.programDir);
    await configureExample(stack.ws, { baseUrl: stack.server.url, apiKey: stack.apiKey, dbPassword: PASSWORD });
  }, 900_000);

  afterAll(async () => {
    await close(stack);
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it("previews with no request, creates, previews no change, refreshes and destroys, never showing a secret", async () => {
    await exampleLifecycle(stack!);
  }, 600_000);
});

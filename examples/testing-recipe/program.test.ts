/**
 * The program of program.ts, deployed in-process with Pulumi's Automation API against the
 * reference server shipped with pulumi-analytics. One `up` in beforeAll is the shared setup;
 * every test starts from it again (see beforeEach).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { type ConfigMap, type Deployment, LocalWorkspace, type OutputMap, type Stack } from "@pulumi/pulumi/automation";
import { startReferenceServer, type ReferenceServer } from "pulumi-analytics/reference-server";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { analyticsProgram } from "./program";

const DB_PASSWORD = "test-db-password";
const CREATE_ORG = "POST /api/public/organizations";
const CREATE_DATA_SOURCE = "POST /api/public/organizations/{orgId}/data-sources";

let server: ReferenceServer;
let workDir: string;
let stack: Stack;
let config: ConfigMap;
let deployed: { outputs: Record<string, string>; requests: string[]; state: Deployment };

/** The API requests the server received since the last `reset()`, as `"METHOD route status"`. */
function requests(): string[] {
  return server.inspect.requests().recent.map((r) => `${r.method} ${r.route} ${r.status}`);
}

/** Stack outputs as plain values. */
function valuesOf(outputs: OutputMap): Record<string, string> {
  return Object.fromEntries(Object.entries(outputs).map(([name, output]) => [name, output.value]));
}

beforeAll(async () => {
  server = await startReferenceServer({ port: 0, bootstrapUsers: ["ci"], inspection: true });
  // The Automation API runs the `pulumi` on PATH (>= 3.139); update checks and plugin downloads off.
  Object.assign(process.env, { PULUMI_SKIP_UPDATE_CHECK: "true", PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true" });
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-test-"));
  stack = await LocalWorkspace.createOrSelectStack(
    { stackName: "test", projectName: "analytics-testing-recipe", program: analyticsProgram },
    {
      workDir,
      envVars: {
        PULUMI_BACKEND_URL: `file://${workDir}`,
        PULUMI_HOME: path.join(workDir, ".pulumi-home"),
        PULUMI_CONFIG_PASSPHRASE: "test passphrase",
        ANALYTICS_API_KEY: server.apiKeys.ci!,
      },
    },
  );
  config = {
    "analytics:baseUrl": { value: server.url },
    "db:host": { value: "db.example.com" },
    "db:user": { value: "reader" },
    "db:password": { value: DB_PASSWORD, secret: true },
  };
  await stack.setAllConfig(config);

  const { outputs } = await stack.up();
  deployed = { outputs: valuesOf(outputs), requests: requests(), state: await stack.exportStack() };
  await server.savedStates.save("deployed");
});

beforeEach(async () => {
  // Rewind both sides to "deployed": the server's objects, and the stack's record of them.
  await server.reset(); // request journal and faults (saved states stay)
  await server.savedStates.restore("deployed");
  await stack.importStack(deployed.state);
  await stack.setAllConfig(config);
});

afterAll(async () => {
  await server?.close();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

it("deploys one organization and one data source, each with one create", () => {
  expect(deployed.requests).toEqual([`${CREATE_ORG} 201`, `${CREATE_DATA_SOURCE} 201`]);

  const { orgId, dataSourceId, syncStatus } = deployed.outputs;
  expect(server.inspect.dataSource(dataSourceId!)).toMatchObject({ organizationId: orgId, host: "db.example.com", providedSecretFields: ["password"] });
  // Outputs keep the status of the create response; the server has the current one.
  expect(syncStatus).toBe("PENDING");
});

it("a second up changes nothing and sends no request", async () => {
  const result = await stack.up();

  expect(result.summary.resourceChanges).toEqual({ same: 3 });
  expect(requests()).toEqual([]);
});

it("a rotated password replaces the data source and leaves the old one in the service", async () => {
  await stack.setConfig("db:password", { value: "rotated-db-password", secret: true });
  const { dataSourceId } = valuesOf((await stack.up()).outputs);

  expect(dataSourceId).not.toBe(deployed.outputs.dataSourceId);
  expect(requests()).toEqual([`${CREATE_DATA_SOURCE} 201`]);
  // The API cannot delete: both data sources exist until the next test restores the saved state.
  expect(
    server.inspect
      .dataSources()
      .map((ds) => ds.id)
      .sort(),
  ).toEqual([deployed.outputs.dataSourceId, dataSourceId].sort());
});

it("a failed create fails the up, names the resource and the API error, and leaks no secret", async () => {
  // A 500 is not retried (the create may have happened), so the up fails. A 503 would be retried.
  server.faults.set({ routes: { createDataSource: { failNext: 1, errorStatus: 500 } } });
  await stack.setConfig("db:password", { value: "rotated-db-password", secret: true });
  // The rejection's message holds everything the CLI printed.
  const message = await stack.up().then(
    () => "(up succeeded)",
    (error: Error) => error.message,
  );

  // The engine's diagnostics name the resource, then the provider's message: the API's error and what to check.
  expect(message).toMatch(
    /DataSource \(warehouse\):\s+error: InternalError: .+ \(HTTP 500\)\. The data source "Production warehouse" .+ may or may not have been created/,
  );
  // The journal names the injected fault behind each answer (the answer's X-Reference-Fault header too).
  expect(server.inspect.requests().recent).toMatchObject([{ status: 500, faults: ["routes.createDataSource.failNext"] }]);
  for (const secret of [DB_PASSWORD, "rotated-db-password", server.apiKeys.ci!]) {
    expect(message).not.toContain(secret);
  }
  // The failed replacement left the deployed data source in place, in the stack and the server.
  expect(valuesOf(await stack.outputs()).dataSourceId).toBe(deployed.outputs.dataSourceId);
  expect(server.inspect.dataSources()).toHaveLength(1);
});

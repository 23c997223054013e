/**
 * Moving a stack from the dynamic classes to the native provider plugin with the real `pulumi` CLI,
 * both ways that keep every object: the state rewrite (`pulumi stack export` →
 * `analytics-migrate-to-native` → `pulumi stack import`) and, for comparison, `aliases` of the old
 * dynamic types; and what happens without either (a replace leaving every object behind). Each
 * starts from test/fixtures/lifecycle's dynamic program `up` against a reference server, then runs
 * test/fixtures/migrate-native, the same resources by native type token. Needs `npm run build`.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server";
import { PulumiWorkspace, SETUP_UP, repoRoot, resourcesOfType, type CommandResult } from "../support/pulumi-workspace";
import { writePluginShim } from "../support/plugin-shim";

const toolchain = inject("pulumiToolchain");
const PASSWORD = "migrate-password-5e6f7a";
const DYNAMIC = ["pulumi-nodejs:dynamic/analytics:Organization", "pulumi-nodejs:dynamic/analytics:DataSource"];
const NATIVE = ["analytics:index:Organization", "analytics:index:DataSource"];
const MIGRATE_BIN = path.join(repoRoot, "dist/migrate/bin.js");

const output = (result: CommandResult): string => `${result.stdout}\n${result.stderr}`;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Started {
  ws: PulumiWorkspace;
  server: ReferenceServer;
  /** The ids of the objects the dynamic program created. */
  orgIds: string[];
  dsIds: string[];
  /** Every organization and data source id on the server, demo ones included, after the dynamic `up`. */
  onServer: () => { orgs: string[]; dataSources: string[] };
  before: { orgs: string[]; dataSources: string[] };
  requests: () => number;
}

/** The dynamic program `up`, its objects recorded. */
async function dynamicStack(): Promise<Started> {
  const server = await startReferenceServer({ port: 0, bootstrapUsers: ["alice"], inspection: true });
  cleanups.push(() => server.close());
  const ws = await PulumiWorkspace.create(toolchain, { programDir: path.join(repoRoot, "test/fixtures/lifecycle"), linkPackage: true });
  cleanups.push(() => ws.dispose());
  await ws.setConfig({ "analytics:baseUrl": server.url }, { "analytics:apiKey": server.apiKeys.alice!, "fixture:password": PASSWORD });
  await ws.pulumi(SETUP_UP);
  const state = await ws.exportStack();
  const orgIds = resourcesOfType(state, DYNAMIC[0]!).map((r) => r.id!);
  const dsIds = resourcesOfType(state, DYNAMIC[1]!).map((r) => r.id!);
  expect(orgIds).toHaveLength(1);
  expect(dsIds).toHaveLength(1);
  const onServer = () => ({
    orgs: server.inspect
      .organizations()
      .map((o) => o.id)
      .sort(),
    dataSources: server.inspect
      .dataSources()
      .map((d) => d.id)
      .sort(),
  });
  const before = onServer();
  expect(before.orgs).toContain(orgIds[0]);
  expect(before.dataSources).toContain(dsIds[0]);
  const requests = () => server.inspect.requestCount();
  return { ws, server, orgIds, dsIds, onServer, before, requests };
}

/** Switches the workspace's program to the native one: the same project name, resources by native type token. */
function switchToNative(ws: PulumiWorkspace): void {
  for (const file of ["index.js", "Pulumi.yaml", "package.json"])
    fs.copyFileSync(path.join(repoRoot, "test/fixtures/migrate-native", file), path.join(ws.programDir, file));
  writePluginShim(path.join(ws.programDir, "plugin-bin"));
}

/** Runs the bin as a user would, stdin to stdout. */
function migrateBin(args: string[], input: string): { code: number; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [MIGRATE_BIN, ...args], { input, encoding: "utf8" });
  return { code: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}

/** The server holds exactly the objects it held after the dynamic `up`, and the stack's native resources are them. */
async function expectSameObjects(s: Started): Promise<void> {
  expect(s.onServer()).toEqual(s.before);
  const state = await s.ws.exportStack();
  expect(resourcesOfType(state, NATIVE[0]!).map((r) => r.id)).toEqual(s.orgIds);
  expect(resourcesOfType(state, NATIVE[1]!).map((r) => r.id)).toEqual(s.dsIds);
  expect([...resourcesOfType(state, DYNAMIC[0]!), ...resourcesOfType(state, DYNAMIC[1]!)]).toEqual([]);
}

describe("moving a stack from the dynamic classes to the native provider", () => {
  it("without migration, the native program replaces every object and leaves the old ones in the service", async () => {
    const s = await dynamicStack();
    switchToNative(s.ws);
    const preview = await s.ws.pulumi(["preview"]);
    expect(preview.stdout).toMatch(/\+\s+analytics:index:Organization\s+org\s+create/);
    expect(preview.stdout).toMatch(/-\s+pulumi-nodejs:dynamic\/analytics:Organization\s+org\s+delete/);
    const up = await s.ws.pulumi(SETUP_UP);
    expect(output(up)).toMatch(/Organization "Lifecycle Org" \(id org_\w+\) was left in the analytics service/);
    const after = s.onServer();
    expect(after.orgs).toHaveLength(s.before.orgs.length + 1);
    expect(after.dataSources).toHaveLength(s.before.dataSources.length + 1);
  }, 300_000);

  it("the state rewrite keeps every object: import, no change, refresh, destroy with the native warning", async () => {
    const s = await dynamicStack();
    const exported = (await s.ws.pulumi(["stack", "export"])).stdout;
    const requests = s.requests();

    const migrated = migrateBin([], exported);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stderr).toContain(
      `Organization ${s.orgIds[0]}: urn:pulumi:test::lifecycle::pulumi-nodejs:dynamic/analytics:Organization::org -> urn:pulumi:test::lifecycle::analytics:index:Organization::org`,
    );
    expect(migrated.stderr).toMatch(
      /Added the default provider urn:pulumi:test::lifecycle::pulumi:providers:analytics::default \(id [0-9a-f-]{36}; settings apiKey, baseUrl copied encrypted\)/,
    );
    expect(migrated.stderr).toContain("Removed the dynamic default provider urn:pulumi:test::lifecycle::pulumi:providers:pulumi-nodejs::default");
    for (const secret of [PASSWORD, s.server.apiKeys.alice!]) expect(migrated.stdout + migrated.stderr).not.toContain(secret);
    // Secrets stay the export's ciphertext, byte for byte.
    const ciphertexts = (text: string) => (text.match(/"ciphertext": "[^"]+"/g) ?? []).sort();
    expect(ciphertexts(migrated.stdout).length).toBeGreaterThan(0);
    for (const c of ciphertexts(migrated.stdout)) expect(exported).toContain(c);
    expect(migrated.stdout).not.toContain("__provider");

    const file = path.join(s.ws.root, "migrated.json");
    fs.writeFileSync(file, migrated.stdout);
    await s.ws.pulumi(["stack", "import", "--file", file]);
    switchToNative(s.ws);

    await s.ws.pulumi(["preview", "--expect-no-changes"]);
    await expectSameObjects(s);
    // An up is a no-op too: zero creates on the server.
    const up = await s.ws.pulumi([...SETUP_UP, "--expect-no-changes"]);
    expect(up.stdout).toMatch(/3 unchanged/);
    await s.ws.pulumi(["refresh", "--yes"]);
    await s.ws.pulumi(["preview", "--expect-no-changes"]);
    await expectSameObjects(s);
    expect(s.requests()).toBe(requests);

    // The migrated state is refused a second time: nothing left to move.
    const again = migrateBin([], (await s.ws.pulumi(["stack", "export"])).stdout);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("refused, nothing written: The export has no resource of the dynamic classes: the stack is already on the native provider.");

    const destroy = await s.ws.pulumi(["destroy", "--yes"]);
    expect(output(destroy)).toMatch(/warning: Organization "Lifecycle Org" \(id org_\w+\) was left in the analytics service/);
    expect(output(destroy)).toMatch(/warning: DataSource "Lifecycle warehouse" \(id ds_\w+\) was left in the analytics service/);
    expect(s.onServer()).toEqual(s.before);
    expect(s.requests()).toBe(requests);
  }, 300_000);

  it("aliases of the old dynamic types keep every object too (an up with them, then without)", async () => {
    const s = await dynamicStack();
    const requests = s.requests();
    switchToNative(s.ws);
    await s.ws.pulumi(["config", "set", "fixture:aliasDynamicTypes", "true"]);
    await s.ws.pulumi(["preview", "--expect-no-changes"]);
    const up = await s.ws.pulumi(SETUP_UP);
    expect(up.stdout).toMatch(/3 unchanged/);
    await expectSameObjects(s);
    // The engine keeps the old outputs on a `same`: the serialized provider stays there, unused.
    const [org] = resourcesOfType(await s.ws.exportStack(), NATIVE[0]!);
    expect(org?.inputs).not.toHaveProperty("__provider");
    expect(org?.outputs).toHaveProperty("__provider");
    await s.ws.pulumi(["config", "rm", "fixture:aliasDynamicTypes"]);
    await s.ws.pulumi(["preview", "--expect-no-changes"]);
    await s.ws.pulumi(["refresh", "--yes"]);
    await s.ws.pulumi(["preview", "--expect-no-changes"]);
    const destroy = await s.ws.pulumi(["destroy", "--yes"]);
    expect(output(destroy)).toMatch(/warning: DataSource "Lifecycle warehouse" \(id ds_\w+\) was left in the analytics service/);
    expect(s.onServer()).toEqual(s.before);
    expect(s.requests()).toBe(requests);
  }, 300_000);

  it("the bin refuses what it does not understand, writing nothing", () => {
    for (const [input, message] of [
      ["not json", "The input is not JSON"],
      ['{"version": 3}', "The input is not a stack export"],
      ['{"version": 3, "deployment": {"resources": []}}', "The export has no analytics resource of the dynamic classes: nothing to migrate."],
    ] as const) {
      const result = migrateBin([], input);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain(`analytics-migrate-to-native: refused, nothing written: ${message}`);
    }
    const usage = migrateBin(["--bogus"], "{}");
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("Usage:");
  });
});

/**
 * The native provider plugin with the real `pulumi` CLI: a JavaScript program declaring the
 * resources by type token (no generated SDK), a default and an explicit provider, each against its
 * own reference server, on a file backend. Needs `npm run build` (the plugin runs dist/native/bin.js).
 */
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server";
import { PulumiWorkspace, SETUP_UP, repoRoot, resourcesOfType, type CommandResult } from "../support/pulumi-workspace";
import { writePluginShim } from "../support/plugin-shim";

const toolchain = inject("pulumiToolchain");
const ORG_TYPE = "analytics:index:Organization";
const DS_TYPE = "analytics:index:DataSource";
const PASSWORD = "native-password-3c4d5e";

const output = (result: CommandResult): string => `${result.stdout}\n${result.stderr}`;
const STACK_TRACE = /\n\s+at .*:\d+:\d+\)?|unhandled exception/;

describe("the native provider plugin with the real engine", () => {
  let ws: PulumiWorkspace;
  let first: ReferenceServer;
  let second: ReferenceServer;

  beforeAll(async () => {
    first = await startReferenceServer({ port: 0, bootstrapUsers: ["alice"], inspection: true });
    second = await startReferenceServer({ port: 0, bootstrapUsers: ["bob"], inspection: true });
    ws = await PulumiWorkspace.create(toolchain, { programDir: path.join(repoRoot, "test/fixtures/native-js") });
    // The plugin the project's Pulumi.yaml points at: a shim running this repository's build.
    writePluginShim(path.join(ws.programDir, "plugin-bin"));
    await ws.setConfig(
      { "analytics:baseUrl": first.url, "fixture:secondBaseUrl": second.url },
      { "analytics:apiKey": first.apiKeys.alice!, "fixture:secondApiKey": second.apiKeys.bob! },
    );
  }, 120_000);

  afterAll(async () => {
    ws?.dispose();
    await first?.close();
    await second?.close();
  });

  it("previews with no request, creates each object on its provider's server, then previews no change", async () => {
    const preview = await ws.pulumi(["preview"]);
    expect(preview.stdout).toMatch(/\+\s+analytics:index:Organization\s+org\s+create/);
    expect(preview.stdout).toMatch(/\+\s+analytics:index:DataSource\s+warehouse\s+create/);
    expect(preview.stdout).toMatch(/\+\s+pulumi:providers:analytics\s+second\s+create/);
    expect(first.inspect.requestCount() + second.inspect.requestCount()).toBe(0);

    await ws.pulumi(["up", "--yes"]);
    const state = await ws.exportStack();
    const orgs = resourcesOfType(state, ORG_TYPE);
    const [ds] = resourcesOfType(state, DS_TYPE);
    const org = orgs.find((r) => r.urn.endsWith("::org"));
    const org2 = orgs.find((r) => r.urn.endsWith("::org2"));
    expect(first.inspect.organizations().map((o) => o.id)).toEqual([org?.id]);
    expect(first.inspect.dataSources().map((d) => d.id)).toEqual([ds?.id]);
    expect(second.inspect.organizations().map((o) => o.id)).toEqual([org2?.id]);
    expect(second.inspect.dataSources()).toEqual([]);
    expect(org?.outputs).toMatchObject({ name: "Native Org", slug: "native-org", onboardingStatus: "STARTED", statusObservedAt: expect.any(String) });
    expect(ds?.outputs).toMatchObject({ orgId: org?.id, displayName: "Native warehouse", lastSyncStatus: "PENDING", sslEnabled: false });
    // The plain-string password is kept as a secret, in the inputs and the outputs.
    expect(ds?.outputs?.password).toMatchObject({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" });
    expect(ds?.inputs?.password).toMatchObject({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" });
    expect(first.inspect.requestCount() + second.inspect.requestCount()).toBe(3);

    await ws.pulumi(["preview", "--expect-no-changes"]);
    expect(first.inspect.requestCount() + second.inspect.requestCount()).toBe(3);
  }, 300_000);

  it("refreshes with the state kept", async () => {
    const before = await ws.exportStack();
    await ws.pulumi(["refresh", "--yes"]);
    await ws.pulumi(["preview", "--expect-no-changes"]);
    const ids = (exported: typeof before) => (exported.deployment.resources ?? []).map((r) => [r.urn, r.id]);
    expect(ids(await ws.exportStack())).toEqual(ids(before));
    expect(first.inspect.requestCount() + second.inspect.requestCount()).toBe(3);
  }, 300_000);

  it("replaces a renamed data source, saying why", async () => {
    await ws.pulumi(["config", "set", "fixture:displayName", "Renamed warehouse"]);
    const preview = await ws.pulumi(["preview"]);
    expect(preview.stdout).toMatch(/\+-\s+analytics:index:DataSource\s+warehouse\s+replace\s+\[diff: ~displayName\]/);
    expect(output(preview)).toMatch(
      /DataSource "Native warehouse" \(id ds_\w+\) will be replaced because displayName changed: the analytics API cannot update objects/,
    );
    const up = await ws.pulumi(SETUP_UP);
    expect(output(up)).toMatch(/warning: DataSource "Native warehouse" \(id ds_\w+\) was left in the analytics service/);
    expect(first.inspect.dataSources().map((d) => d.displayName)).toEqual(["Native warehouse", "Renamed warehouse"]);
  }, 300_000);

  it("refuses `pulumi import` with the import option's words and no stack trace, sending nothing", async () => {
    const before = first.inspect.requestCount();
    const result = await ws.pulumi(["import", ORG_TYPE, "x", "org_1", "--yes"], { allowFailure: true });
    expect(result.code).not.toBe(0);
    expect(output(result)).toContain(
      'Organization "x" cannot be imported: the analytics API has no read endpoint, so an existing object cannot be read or adopted into a stack.',
    );
    expect(output(result)).not.toMatch(STACK_TRACE);
    expect(first.inspect.requestCount()).toBe(before);
  }, 300_000);

  it("destroys by leaving the objects, with the warning", async () => {
    const destroy = await ws.pulumi(["destroy", "--yes"]);
    expect(output(destroy)).toMatch(/warning: Organization "Native Org" \(id org_\w+\) was left in the analytics service/);
    expect(output(destroy)).toMatch(/warning: Organization "Second Org" \(id org_\w+\) was left in the analytics service/);
    expect(output(destroy)).toContain("npx analytics-orphans");
    expect(resourcesOfType(await ws.exportStack(), ORG_TYPE)).toEqual([]);
  }, 300_000);

  it("leaves no credential in plain text in the export, the backend or any output", async () => {
    const exported = await ws.pulumi(["stack", "export", "--show-secrets=false"]);
    const haystacks = [{ where: "stack export", text: output(exported) }];
    for (const [file, text] of ws.backendFiles()) haystacks.push({ where: `backend/${file}`, text });
    ws.transcript.forEach((result, i) => haystacks.push({ where: `command #${i}`, text: output(result) }));
    for (const credential of [first.apiKeys.alice!, second.apiKeys.bob!, PASSWORD]) {
      for (const { where, text } of haystacks) expect(text.includes(credential), `${credential.slice(0, 6)}… found in ${where}`).toBe(false);
    }
  }, 300_000);
});

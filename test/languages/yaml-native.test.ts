/**
 * A Pulumi YAML program with the real CLI, as a user without node_modules runs it: the plugin
 * archive that `npm run build:plugin` makes, installed with `pulumi plugin install --file`, then
 * preview, up, refresh, a rename, a rejected key, import and destroy, with the default provider
 * and two explicit providers against two reference servers. Needs `npm run build`.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server";
import { buildPluginArchive } from "../../tools/build-plugin-archive.js";
import { expectImportRefused, expectNoCredentialLeak, expectRejectedKey, expectRenameReplaces, output } from "../support/example-lifecycle";
import { PulumiWorkspace, repoRoot, resourcesOfType } from "../support/pulumi-workspace";

const toolchain = inject("pulumiToolchain");
const PASSWORD = "yaml-password-7f8e9d";
const { version } = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string };

describe("a YAML program with the installed plugin archive", () => {
  let ws: PulumiWorkspace;
  let first: ReferenceServer;
  let second: ReferenceServer;
  let archiveDir: string;
  const requests = () => first.inspect.requestCount() + second.inspect.requestCount();

  beforeAll(async () => {
    // The default provider and the explicit `first` reach the same server with two users' keys.
    first = await startReferenceServer({ port: 0, bootstrapUsers: ["alice", "carol"], inspection: true });
    second = await startReferenceServer({ port: 0, bootstrapUsers: ["bob"], inspection: true });
    ws = await PulumiWorkspace.create(toolchain, { programDir: path.join(repoRoot, "test/fixtures/yaml-native"), withoutNodeModules: true });
    archiveDir = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-plugin-archive-"));
    const archive = buildPluginArchive(archiveDir);
    await ws.pulumi(["plugin", "install", "resource", "analytics", version, "--file", archive]);
    await ws.setConfig(
      { "analytics:baseUrl": first.url, firstBaseUrl: first.url, secondBaseUrl: second.url },
      { "analytics:apiKey": first.apiKeys.alice!, password: PASSWORD, firstApiKey: first.apiKeys.carol!, secondApiKey: second.apiKeys.bob! },
    );
  }, 300_000);

  afterAll(async () => {
    ws?.dispose();
    if (archiveDir) fs.rmSync(archiveDir, { recursive: true, force: true });
    await first?.close();
    await second?.close();
  });

  it("previews with no request, creates each object on its provider's server, then previews no change", async () => {
    const preview = await ws.pulumi(["preview"]);
    expect(preview.stdout).toMatch(/\+\s+analytics:index:Organization\s+org\s+create/);
    expect(preview.stdout).toMatch(/\+\s+analytics:index:DataSource\s+warehouse\s+create/);
    expect(requests()).toBe(0);

    await ws.pulumi(["up", "--yes"]);
    const state = await ws.exportStack();
    const orgs = resourcesOfType(state, "analytics:index:Organization");
    const [ds] = resourcesOfType(state, "analytics:index:DataSource");
    const idOf = (name: string) => orgs.find((r) => r.urn.endsWith(`::${name}`))?.id;
    expect(
      first.inspect
        .organizations()
        .map((o) => o.id)
        .sort(),
    ).toEqual([idOf("org"), idOf("org1")].sort());
    // Each key's user owns what its provider created.
    expect(first.inspect.organization(idOf("org1")!)?.ownerUserName).toBe("carol");
    expect(first.inspect.organization(idOf("org")!)?.ownerUserName).toBe("alice");
    expect(first.inspect.dataSources().map((d) => d.id)).toEqual([ds?.id]);
    expect(second.inspect.organizations().map((o) => o.id)).toEqual([idOf("org2")]);
    expect(JSON.parse((await ws.pulumi(["stack", "output", "--json"])).stdout)).toMatchObject({ lastSyncStatus: "PENDING" });

    await ws.pulumi(["preview", "--expect-no-changes"]);
    await ws.pulumi(["refresh", "--yes"]);
    await ws.pulumi(["preview", "--expect-no-changes"]);
    expect(requests()).toBe(4);
  }, 300_000);

  it("replaces a renamed data source, saying why, and leaves the old one behind", async () => {
    await expectRenameReplaces(ws, first, "Renamed YAML warehouse", { oldName: "YAML warehouse" });
  }, 300_000);

  it("fails a rejected key with the key's advice, never printing it, and changes nothing", async () => {
    await expectRejectedKey(ws, first, first.apiKeys.alice!, "Renamed YAML warehouse");
  }, 300_000);

  it("refuses `pulumi import` with a clear message and no stack trace", async () => {
    const before = second.inspect.requestCount();
    await expectImportRefused(ws, first);
    expect(second.inspect.requestCount()).toBe(before);
  }, 300_000);

  it("destroys by leaving the objects, with the warning", async () => {
    const destroy = await ws.pulumi(["destroy", "--yes"]);
    expect(output(destroy)).toMatch(/warning: Organization "YAML Org" \(id org_\w+\) was left in the analytics service/);
    expect(output(destroy)).toMatch(/warning: Organization "Second Org" \(id org_\w+\) was left in the analytics service/);
    expect(output(destroy)).toMatch(/warning: Organization "First Org" \(id org_\w+\) was left in the analytics service/);
    expect(resourcesOfType(await ws.exportStack(), "analytics:index:Organization")).toEqual([]);
  }, 300_000);

  it("leaves no credential in plain text in the state, its history or any output", async () => {
    await expectNoCredentialLeak(ws, [first.apiKeys.alice!, first.apiKeys.carol!, second.apiKeys.bob!, PASSWORD]);
  }, 300_000);
});

/**
 * Java with the real CLI: examples/java (a `runtime: java` Maven program on the generated SDK in
 * sdk/java) run through the pinned engine, the Java language host pulumi-language-java and the
 * native provider plugin against a reference server, on a file backend. The SDK is installed into
 * the local Maven repository first (`mvn install` of a copy of sdk/java); Maven downloads
 * com.pulumi:pulumi and its plugins into ~/.m2 once, and later runs take them from there. Needs
 * `npm run build` (the plugin runs dist/native/bin.js), a JDK >= 11 and Maven on PATH.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../src/reference-server";
import { PulumiWorkspace, repoRoot, resourcesOfType, type CommandResult } from "./support/pulumi-workspace";
import { configureExample, usePluginShim } from "./support/plugin-shim";

const execFileAsync = promisify(execFile);
const toolchain = inject("pulumiToolchain");
const ORG_TYPE = "analytics:index:Organization";
const DS_TYPE = "analytics:index:DataSource";
const PASSWORD = "java-password-4d5e6f";
const output = (result: CommandResult): string => `${result.stdout}\n${result.stderr}`;

/** Maven without colour or progress: the CLI's output stays small and plain. */
const QUIET_MAVEN = ["-B", "-q", "-Dstyle.color=never"];

describe("examples/java with the real engine and the Java language host", () => {
  let ws: PulumiWorkspace;
  let server: ReferenceServer;

  beforeAll(async () => {
    expect(toolchain.javaLanguageHost, "the toolchain has no pulumi-language-java").toBeTruthy();
    server = await startReferenceServer({ port: 0, bootstrapUsers: ["duke"], inspection: true });
    ws = await PulumiWorkspace.create(toolchain, { programDir: path.join(repoRoot, "examples/java"), withoutNodeModules: true });
    usePluginShim(ws.programDir);
    // Installed from a copy, so the build's target/ never lands in sdk/java.
    const sdk = path.join(ws.root, "sdk-java");
    fs.cpSync(path.join(repoRoot, "sdk/java"), sdk, { recursive: true });
    await execFileAsync("mvn", [...QUIET_MAVEN, "install"], { cwd: sdk, timeout: 900_000 });
    await configureExample(ws, { baseUrl: server.url, apiKey: server.apiKeys.duke!, dbPassword: PASSWORD });
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

    // Every run of the program starts Maven twice, so `up` skips the preview the test just made.
    await ws.pulumi(["up", "--yes", "--skip-preview"]);
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
    await ws.pulumi(["config", "set", "displayName", "Renamed Java warehouse"]);
    // One `up`, without its preview: it says why it replaces as a preview would.
    const up = await ws.pulumi(["up", "--yes", "--skip-preview"]);
    expect(up.stdout).toMatch(/\+-\s+analytics:index:DataSource\s+warehouse\s+replaced\s+\([\d.]+s\)\s+\[diff: ~displayName\]/);
    expect(output(up)).toMatch(/DataSource "Warehouse" \(id ds_\w+\) will be replaced because displayName changed/);
    expect(output(up)).toMatch(/warning: DataSource "Warehouse" \(id ds_\w+\) was left in the analytics service/);
    expect(server.inspect.dataSources().map((d) => d.displayName)).toEqual(["Warehouse", "Renamed Java warehouse"]);
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
    for (const credential of [server.apiKeys.duke!, PASSWORD]) {
      for (const { where, text } of haystacks) expect(text.includes(credential), `${credential.slice(0, 6)}… found in ${where}`).toBe(false);
    }
  });
});

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
import { expectDestroyLeaves, expectFirstUp, expectNoCredentialLeak, expectPreviewWithoutRequests, expectRenameReplaces } from "./support/example-lifecycle";
import { PulumiWorkspace, repoRoot } from "./support/pulumi-workspace";
import { configureExample, usePluginShim } from "./support/plugin-shim";

const execFileAsync = promisify(execFile);
const toolchain = inject("pulumiToolchain");
const PASSWORD = "java-password-4d5e6f";

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
    await expectPreviewWithoutRequests(ws, server);
    // Every run of the program starts Maven twice, so `up` skips the preview the test just made.
    await expectFirstUp(ws, server, ["--skip-preview"]);
  }, 900_000);

  it("replaces a renamed data source, saying why, and leaves the old one behind", async () => {
    // One `up`, without its preview: it says why it replaces as a preview would.
    await expectRenameReplaces(ws, server, "Renamed Java warehouse", { skipPreview: true });
  }, 900_000);

  it("destroys by leaving the objects, with the warning", async () => {
    await expectDestroyLeaves(ws);
  }, 900_000);

  it("leaves no credential in plain text in the state, its history or any output", async () => {
    await expectNoCredentialLeak(ws, [server.apiKeys.duke!, PASSWORD]);
  });
});

/**
 * Release rehearsal, YAML: examples/yaml as docs/native-provider.md tells a YAML user to set it up,
 * with the release's package file copied to `sdks/analytics/`, run by the real CLI with an empty PULUMI_HOME
 * and no `node` on PATH; the engine fetches the single-file plugin from the served release folder
 * (the schema's pluginDownloadURL, redirected to 127.0.0.1) by itself. Beside it, docs/install.md's
 * manual install: `pulumi plugin install … --server <release> --checksum <sha256 from SHA256SUMS>`
 * takes the archive on the newest CLI and refuses a wrong checksum; the pinned engine (3.200.0)
 * refuses the right one too, as docs/install.md says: it leaves the last chunk the
 * server sends out of the hash.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { PulumiToolchain } from "../../toolchain/src/pulumi-cli";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { yamlPackageFileName } from "../../tools/release.js";
import {
  copyExample,
  renameInFile,
  runLifecycle,
  serveFolder,
  startRehearsal,
  VERSION,
  PLATFORM_ARCHIVE,
  PLUGIN_DOWNLOAD_URL,
  type Rehearsal,
} from "../support/release-rehearsal";

const toolchain = inject("pulumiToolchain");
const newest = inject("newestPulumiToolchain");

/** `pulumi plugin install resource analytics <version> --server <url> --checksum <sha256>` in an empty PULUMI_HOME: the CLI's output, and whether the plugin is installed. */
async function installByHand(cli: PulumiToolchain, server: string, checksum: string): Promise<{ output: string; installed: boolean }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-rehearsal-home-"));
  try {
    const args = ["plugin", "install", "resource", "analytics", VERSION, "--server", `${server}/`, "--checksum", checksum];
    const output = await new Promise<string>((resolve) => {
      execFile(cli.pulumi, args, { env: { ...process.env, PULUMI_HOME: home, PULUMI_SKIP_UPDATE_CHECK: "true" }, timeout: 300_000 }, (_error, stdout, stderr) =>
        resolve(`${stdout}${stderr}`),
      );
    });
    return { output, installed: fs.existsSync(path.join(home, "plugins", `resource-analytics-v${VERSION}`, "pulumi-resource-analytics")) };
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

describe("the release, as a YAML user installs it", () => {
  let r: Rehearsal;

  beforeAll(async () => {
    r = await startRehearsal(toolchain, {
      writeProject: (dir, release) => {
        copyExample("yaml", dir, ["Pulumi.yaml"]);
        fs.mkdirSync(path.join(dir, "sdks", "analytics"), { recursive: true });
        fs.copyFileSync(path.join(release, yamlPackageFileName(VERSION)), path.join(dir, "sdks", "analytics", yamlPackageFileName(VERSION)));
      },
    });
  }, 900_000);

  afterAll(async () => {
    await r?.close();
  });

  it("has a package file naming the version and the schema's plugin download URL", () => {
    expect(fs.readFileSync(path.join(r.release, yamlPackageFileName(VERSION)), "utf8")).toBe(
      `packageDeclarationVersion: 1\nname: analytics\nversion: ${VERSION}\ndownloadUrl: ${PLUGIN_DOWNLOAD_URL}\n`,
    );
  });

  it("installs the plugin by hand with --checksum from SHA256SUMS on the newest CLI, refusing a wrong checksum", async () => {
    if ("unavailable" in newest) throw new Error(`global setup could not build the newest CLI: ${newest.unavailable}`);
    const sums = fs.readFileSync(path.join(r.release, "SHA256SUMS"), "utf8");
    const checksum = new RegExp(`^([0-9a-f]{64})  ${PLATFORM_ARCHIVE.replace(/\./g, "\\.")}$`, "m").exec(sums)![1]!;
    // A server of its own, so the lifecycle's count of the engine's downloads stays its own.
    const files = await serveFolder(r.release);
    try {
      const right = await installByHand(newest, files.url, checksum);
      expect(right.installed, right.output).toBe(true);
      const wrong = await installByHand(
        newest,
        files.url,
        checksum.replace(/^./, (c) => (c === "0" ? "1" : "0")),
      );
      expect(wrong.installed).toBe(false);
      expect(wrong.output).toMatch(/invalid checksum/);
      const pinned = await installByHand(toolchain, files.url, checksum);
      expect(pinned.installed).toBe(false);
      expect(pinned.output).toMatch(new RegExp(`invalid checksum, expected ${checksum}, actual (?!${checksum})`));
      expect(files.requests.filter((p) => p === `/${PLATFORM_ARCHIVE}`)).toHaveLength(3);
    } finally {
      await files.close();
    }
  }, 300_000);

  it("runs examples/yaml: fetches the plugin from the release by itself, previews, creates, replaces a rename, refuses an import and destroys", async () => {
    await runLifecycle(r, { rename: renameInFile(path.join(r.ws.programDir, "Pulumi.yaml")) });
  }, 600_000);
});

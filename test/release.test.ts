/**
 * `npm run release` (tools/release.js): one folder with the npm tarball, the plugin archives, the Go
 * SDK as a module proxy serves it, the C# SDK's sources, the Node.js SDK's npm package (the same
 * bytes from two builds), SBOMs and SHA256SUMS that verifies; a step added to RELEASE_STEPS lands
 * in the folder and its checksums. Needs `npm run build`.
 */
import { execFile, execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "./support/pulumi-workspace";
import { resolvePythonEnv } from "./support/python-env";

/**
 * Runs the release in a child Node process (its steps block for minutes, which the test worker
 * must not), with one more step as the Python and Java packages add theirs: the extension point.
 */
async function releaseWithExtraStep(out: string, python: string): Promise<string[]> {
  const script = `
    const fs = require("node:fs"), path = require("node:path");
    const { RELEASE_STEPS, release } = require(${JSON.stringify(path.join(repoRoot, "tools", "release.js"))});
    const extra = { name: "extra artifact", run: (ctx) => fs.writeFileSync(path.join(ctx.out, "extra-v" + ctx.version + ".txt"), "extra\\n") };
    release({ out: ${JSON.stringify(out)}, python: ${JSON.stringify(python)}, steps: [...RELEASE_STEPS, extra], log: () => {} }).then((files) => process.stdout.write(JSON.stringify(files)));`;
  const { stdout } = await promisify(execFile)(process.execPath, ["-e", script], { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout.slice(stdout.indexOf("["))) as string[];
}
const { buildPluginArchive } = require("../tools/build-plugin-archive.js") as { buildPluginArchive(outDir: string): string };
const { BUILD_ONLY_FIELDS, buildNodeSdkPackage } = require("../tools/node-sdk-package.js") as {
  BUILD_ONLY_FIELDS: string[];
  buildNodeSdkPackage(options: { root: string; outDir: string }): string;
};
const { platformArchiveName, pulumiPlatform } = require("../tools/build-plugin-binary.js") as {
  platformArchiveName(version: string, platform: { os: string; arch: string }): string;
  pulumiPlatform(): { os: string; arch: string };
};

const { version } = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string };
const GO_MODULE = /^module\s+(\S+)/m.exec(fs.readFileSync(path.join(repoRoot, "sdk", "go.mod"), "utf8"))![1]!;
const tarList = (archive: string): string[] => execFileSync("tar", ["-tzf", archive], { encoding: "utf8" }).trim().split("\n");

describe("the release command", () => {
  let tmp: string;
  let out: string;
  let files: string[];

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-release-test-"));
    out = path.join(tmp, "release");
    files = await releaseWithExtraStep(out, (await resolvePythonEnv()).python);
  }, 900_000);

  afterAll(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("writes every artifact into one folder, and the added step's file too", () => {
    const goDir = `go-proxy/${GO_MODULE}/@v`;
    expect(files).toEqual(
      [
        "SHA256SUMS",
        `${goDir}/list`,
        `${goDir}/v${version}.info`,
        `${goDir}/v${version}.mod`,
        `${goDir}/v${version}.zip`,
        `analytics-${version}.yaml`,
        `analytics-${version}.jar`,
        `analytics-${version}.pom`,
        `pulumi_analytics-${version}-py3-none-any.whl`,
        `pulumi_analytics-${version}.tar.gz`,
        `extra-v${version}.txt`,
        `pulumi-analytics-${version}.tgz`,
        `pulumi-analytics-analytics-${version}.tgz`,
        `pulumi-analytics-dotnet-sdk-v${version}.tar.gz`,
        `pulumi-analytics-v${version}.npm.cdx.json`,
        platformArchiveName(version, pulumiPlatform()),
        `pulumi-resource-analytics-v${version}.cdx.json`,
        `pulumi-resource-analytics-v${version}.tar.gz`,
      ].sort(),
    );
    expect(tarList(path.join(out, platformArchiveName(version, pulumiPlatform())))).toEqual(["pulumi-resource-analytics", "LICENSE"]);
    expect(tarList(path.join(out, `pulumi-analytics-dotnet-sdk-v${version}.tar.gz`))).toContain("Provider.cs");
    expect(tarList(path.join(out, `pulumi-analytics-${version}.tgz`))).toContain("package/dist/native/bin.js");
  });

  it("has SHA256SUMS over every other file, which sha256sum -c verifies and which catches a changed file", () => {
    const sums = fs.readFileSync(path.join(out, "SHA256SUMS"), "utf8").trim().split("\n");
    expect(sums.map((line) => line.split("  ")[1])).toEqual(files.filter((file) => file !== "SHA256SUMS"));
    expect(spawnSync("sha256sum", ["-c", "--quiet", "SHA256SUMS"], { cwd: out }).status).toBe(0);
    const copy = path.join(tmp, "tampered");
    fs.cpSync(out, copy, { recursive: true });
    fs.appendFileSync(path.join(copy, `extra-v${version}.txt`), "changed\n");
    expect(spawnSync("sha256sum", ["-c", "--quiet", "SHA256SUMS"], { cwd: copy, encoding: "utf8" }).stdout).toContain(`extra-v${version}.txt: FAILED`);
  });

  it("serves the Go SDK to `go mod download` through GOPROXY=file://", () => {
    const env = { ...process.env, GOPROXY: `file://${path.join(out, "go-proxy")}`, GOSUMDB: "off", GOFLAGS: "-mod=mod", GOMODCACHE: path.join(tmp, "gomodcache") };
    const downloaded = JSON.parse(execFileSync("go", ["mod", "download", "-json", `${GO_MODULE}@v${version}`], { cwd: tmp, env, encoding: "utf8" })) as { Dir: string; Error?: string };
    expect(downloaded.Error).toBeUndefined();
    expect(fs.readFileSync(path.join(downloaded.Dir, "go.mod"), "utf8")).toBe(fs.readFileSync(path.join(repoRoot, "sdk", "go.mod"), "utf8"));
    expect(fs.existsSync(path.join(downloaded.Dir, "go", "analytics"))).toBe(true);
    execFileSync("chmod", ["-R", "u+w", path.join(tmp, "gomodcache")]);
  });

  it("has CycloneDX SBOMs of the npm package's and of the plugin's bundled dependencies", () => {
    const names = (file: string) => {
      const bom = JSON.parse(fs.readFileSync(path.join(out, file), "utf8")) as { bomFormat: string; components: Array<{ name: string; version: string }> };
      expect(bom.bomFormat).toBe("CycloneDX");
      return bom.components.map((c) => c.name);
    };
    expect(names(`pulumi-analytics-v${version}.npm.cdx.json`)).toEqual(expect.arrayContaining(["pg", "undici", "zod"]));
    expect(names(`pulumi-resource-analytics-v${version}.cdx.json`)).toEqual(expect.arrayContaining(["@grpc/grpc-js", "@pulumi/pulumi", "google-protobuf", "undici", "zod"]));
  });

  it("has the Node.js SDK as an npm package: compiled with its types, and the pulumi block naming the plugin and its server", () => {
    const tarball = path.join(out, `pulumi-analytics-analytics-${version}.tgz`);
    expect(tarList(tarball)).toEqual(expect.arrayContaining(["package/index.js", "package/index.d.ts", "package/dataSource.js", "package/dataSource.d.ts", "package/config/vars.js", "package/package.json"]));
    expect(tarList(tarball).filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))).toEqual([]);
    const manifest = JSON.parse(execFileSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" })) as Record<string, unknown>;
    const schema = JSON.parse(fs.readFileSync(path.join(repoRoot, "src/native/schema.json"), "utf8")) as { pluginDownloadURL: string };
    expect(manifest).toMatchObject({ name: "@pulumi-analytics/analytics", version, pulumi: { resource: true, name: "analytics", version, server: schema.pluginDownloadURL } });
    for (const field of BUILD_ONLY_FIELDS) expect(Object.keys(manifest)).not.toContain(field);
  });

  it("builds the Node.js SDK's package to the same bytes twice, writing nothing into sdk/", () => {
    const before = execFileSync("git", ["status", "--porcelain", "--ignored", "--", "sdk"], { cwd: repoRoot, encoding: "utf8" });
    const again = buildNodeSdkPackage({ root: repoRoot, outDir: fs.mkdtempSync(path.join(tmp, "nodejs-")) });
    expect(fs.readFileSync(again).equals(fs.readFileSync(path.join(out, path.basename(again))))).toBe(true);
    expect(execFileSync("git", ["status", "--porcelain", "--ignored", "--", "sdk"], { cwd: repoRoot, encoding: "utf8" })).toBe(before);
  }, 120_000);

  it("builds the script archive to the same bytes twice", () => {
    const again = buildPluginArchive(path.join(tmp, "again"));
    expect(fs.readFileSync(again).equals(fs.readFileSync(path.join(out, path.basename(again))))).toBe(true);
  });
});

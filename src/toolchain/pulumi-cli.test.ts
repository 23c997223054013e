import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import {
  MINIMUM_PULUMI_VERSION,
  PINNED_PULUMI_VERSION,
  POLICY_ANALYZER,
  ToolchainError,
  compareVersions,
  engineModuleDir,
  installLaunchers,
  parseVersion,
  pulumiEnvironment,
  resolvePulumiToolchain,
} from "./pulumi-cli";

const temps: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolchain-test-"));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fake `pulumi` that prints the given version. */
function fakePulumi(dir: string, version: string): string {
  const file = path.join(dir, "pulumi");
  fs.writeFileSync(file, `#!/bin/sh\necho v${version}\n`, { mode: 0o755 });
  return file;
}

describe("version helpers", () => {
  it.each([
    ["3.139.0", "3.139.0", 0],
    ["3.140.0", "3.139.0", 1],
    ["3.99.0", "3.139.0", -1],
    ["v3.188.0", "3.188.0", 0],
    ["4.0.0", "3.999.9", 1],
    ["3.139.1-alpha", "3.139.0", 1],
  ])("compareVersions(%s, %s) has sign %i", (a, b, sign) => {
    expect(Math.sign(compareVersions(a, b))).toBe(sign);
  });

  it.each([
    ["v3.188.0\n", "3.188.0"],
    ["go version go1.26.8 linux/amd64", "1.26.8"],
    ["nothing here", undefined],
  ])("parseVersion(%j) is %s", (text, expected) => {
    expect(parseVersion(text)).toBe(expected);
  });
});

describe("version pins agree", () => {
  it("tools/pulumi/go.mod builds the pinned engine; the SDK is a peer from the oldest CLI the toolchain accepts", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(engineModuleDir(), "..", "..", "package.json"), "utf8"));
    const goMod = fs.readFileSync(path.join(engineModuleDir(), "go.mod"), "utf8");
    expect(goMod).toContain(`github.com/pulumi/pulumi/pkg/v3 v${PINNED_PULUMI_VERSION}`);
    expect(goMod).toContain(`github.com/pulumi/pulumi/sdk/v3 v${PINNED_PULUMI_VERSION}`);
    // Both floors are the release that gave dynamic providers `configure`.
    expect(pkg.peerDependencies["@pulumi/pulumi"]).toBe(`^${MINIMUM_PULUMI_VERSION}`);
    expect(pkg.dependencies["@pulumi/pulumi"]).toBeUndefined();
    // The repository develops against one exact SDK inside the range, so CI never moves under it.
    const devSdk: string = pkg.devDependencies["@pulumi/pulumi"];
    expect(devSdk).toMatch(/^3\.\d+\.\d+$/);
    expect(compareVersions(devSdk, MINIMUM_PULUMI_VERSION)).toBeGreaterThanOrEqual(0);
    expect(require("@pulumi/pulumi/package.json").version).toBe(devSdk);
  });
});

describe("resolvePulumiToolchain", () => {
  it("uses $PULUMI_CLI when it is new enough", async () => {
    const cli = fakePulumi(tempDir(), "3.200.0");
    const found = await resolvePulumiToolchain({ env: { PATH: process.env.PATH, PULUMI_CLI: cli }, log: () => {} });
    expect(found).toEqual({ pulumi: cli, binDir: path.dirname(cli), version: "3.200.0", source: "env" });
  });

  it("rejects an old $PULUMI_CLI, naming the minimum version", async () => {
    const cli = fakePulumi(tempDir(), "3.100.0");
    await expect(resolvePulumiToolchain({ env: { PATH: process.env.PATH, PULUMI_CLI: cli }, log: () => {} })).rejects.toThrow(
      new RegExp(`Pulumi 3\\.100\\.0.*>= ${MINIMUM_PULUMI_VERSION.replace(/\./g, "\\.")}`),
    );
  });

  it("prefers a new enough `pulumi` on PATH", async () => {
    const dir = tempDir();
    const cli = fakePulumi(dir, "3.150.0");
    const found = await resolvePulumiToolchain({ env: { PATH: `${dir}:${process.env.PATH}` }, cacheDir: tempDir(), log: () => {} });
    expect(found.source).toBe("path");
    expect(found.pulumi).toBe(cli);
  });

  it("skips an old `pulumi` on PATH and says so", async () => {
    const dir = tempDir();
    fakePulumi(dir, "3.50.0");
    const lines: string[] = [];
    // No Go on this PATH either, so after skipping the old CLI it must fail naming both remedies.
    const noGo = fs.mkdtempSync(path.join(os.tmpdir(), "no-go-"));
    temps.push(noGo);
    fs.symlinkSync(process.execPath, path.join(noGo, "node"));
    const error = await resolvePulumiToolchain({ env: { PATH: `${dir}:${noGo}` }, cacheDir: tempDir(), log: (l) => lines.push(l) }).catch((e: unknown) => e);
    expect(lines.join("\n")).toMatch(/ignoring .*pulumi: Pulumi 3\.50\.0 is older than 3\.139\.0/);
    expect(error).toBeInstanceOf(ToolchainError);
    expect((error as ToolchainError).code).toBe("ANALYTICS_TOOLCHAIN");
    expect((error as Error).message).toMatch(/Pulumi CLI >= 3\.139\.0/);
    expect((error as Error).message).toMatch(/Go >= \d+\.\d+/);
    expect((error as Error).message).toMatch(/`go` is not on PATH/);
  });

  it("reuses the engine the test run resolved, and that engine is the real CLI", () => {
    const toolchain = inject("pulumiToolchain");
    const out = execFileSync(toolchain.pulumi, ["version"], { env: pulumiEnvironment(toolchain) }).toString();
    expect(parseVersion(out)).toBe(toolchain.version);
    expect(compareVersions(toolchain.version, MINIMUM_PULUMI_VERSION)).toBeGreaterThanOrEqual(0);
    if (toolchain.source === "cache" || toolchain.source === "build") {
      expect(toolchain.policyAnalyzer).toBe(path.join(toolchain.binDir, POLICY_ANALYZER));
      for (const binary of ["pulumi-language-nodejs", "pulumi-resource-pulumi-nodejs", POLICY_ANALYZER]) {
        expect(fs.statSync(path.join(toolchain.binDir, binary)).mode & 0o111).not.toBe(0);
      }
    }
  });
});

describe("installLaunchers", () => {
  it("writes an executable policy analyzer that runs @pulumi/pulumi's policy-pack runner, and rewrites only a stale one", () => {
    const dir = tempDir();
    const analyzer = installLaunchers(dir);
    expect(analyzer).toBe(path.join(dir, POLICY_ANALYZER));
    expect(fs.statSync(analyzer).mode & 0o111).not.toBe(0);
    const script = fs.readFileSync(analyzer, "utf8");
    expect(script).toMatch(/^#!\/bin\/sh\n/);
    expect(script).toContain("@pulumi/pulumi/cmd/run-policy-pack");
    // The runner it names exists in an installed SDK.
    expect(fs.existsSync(path.join(path.dirname(require.resolve("@pulumi/pulumi/package.json")), "cmd", "run-policy-pack", "index.js"))).toBe(true);

    const written = fs.statSync(analyzer).mtimeMs;
    fs.utimesSync(analyzer, new Date(0), new Date(0));
    installLaunchers(dir);
    expect(fs.statSync(analyzer).mtimeMs).toBe(0);
    expect(written).toBeGreaterThan(0);

    fs.writeFileSync(analyzer, "#!/bin/sh\nexit 1\n");
    installLaunchers(dir);
    expect(fs.readFileSync(analyzer, "utf8")).toBe(script);
    expect(fs.readdirSync(dir)).toEqual([POLICY_ANALYZER]);
  });
});

import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import {
  MINIMUM_PULUMI_VERSION,
  NEWEST_PULUMI_VERSION,
  NEWEST_YAML_VERSION,
  PINNED_PULUMI_VERSION,
  PINNED_YAML_VERSION,
  POLICY_ANALYZER,
  ToolchainError,
  YAML_LANGUAGE_HOST,
  compareVersions,
  defaultCacheRoot,
  engineCacheKey,
  engineModuleDir,
  findYamlLanguageHost,
  installLaunchers,
  linkYamlLanguageHost,
  parseVersion,
  pulumiEnvironment,
  resolvePulumiToolchain,
  toolchainPathDirs,
  GO_LANGUAGE_HOST,
  JAVA_LANGUAGE_HOST,
  PINNED_JAVA_VERSION,
  PYTHON_LANGUAGE_HOST,
  javaHostCacheKey,
  javaModuleDir,
  langhostsCacheKey,
  langhostsModuleDir,
  newestEngineCacheKey,
  newestEngineModuleDir,
  newestOnProxyLine,
  newestYamlHostCacheKey,
  newestYamlModuleDir,
  resolveNewestPulumiToolchain,
  yamlHostCacheKey,
  yamlModuleDir,
  type PulumiToolchain,
} from "./pulumi-cli";

/** The repository root: the toolchain package (toolchain/) sits in it, beside the published package's package.json, README and docs. */
const REPO_ROOT = path.resolve(__dirname, "..", "..");

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

/** A fake language host, `pulumi-language-yaml` unless named (only its presence matters to the lookup). */
function fakeYamlHost(dir: string, name = YAML_LANGUAGE_HOST): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
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
  it("toolchain/go/pulumi/go.mod builds the pinned engine; the SDK is a peer from the oldest CLI the toolchain accepts", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8"));
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

  it("toolchain/go/pulumi-langhosts pins the Go and Python hosts of the engine's release, on its pkg/sdk, Go line and replacements, with their go.sum lines", () => {
    const engineMod = fs.readFileSync(path.join(engineModuleDir(), "go.mod"), "utf8");
    const hostsMod = fs.readFileSync(path.join(langhostsModuleDir(), "go.mod"), "utf8");
    const nodeHost = /pulumi-language-nodejs\/v3 (\S+)/.exec(engineMod)![1]!;
    const sum = fs.readFileSync(path.join(langhostsModuleDir(), "go.sum"), "utf8");
    for (const mod of ["github.com/pulumi/pulumi/sdk/go/pulumi-language-go/v3", "github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3"]) {
      expect(hostsMod).toContain(`${mod} ${nodeHost}`);
      expect(sum).toContain(`${mod} ${nodeHost} h1:`);
    }
    expect(hostsMod).toContain(`github.com/pulumi/pulumi/pkg/v3 v${PINNED_PULUMI_VERSION}`);
    expect(hostsMod).toContain(`github.com/pulumi/pulumi/sdk/v3 v${PINNED_PULUMI_VERSION}`);
    const goLine = (mod: string) => /^go .*$/m.exec(mod)?.[0];
    expect(goLine(hostsMod)).toBe(goLine(engineMod));
    const replaces = (mod: string) =>
      mod
        .split("\n")
        .filter((l) => l.startsWith("replace "))
        .sort();
    expect(replaces(hostsMod)).toEqual(replaces(engineMod));
    expect(langhostsCacheKey()).toMatch(new RegExp(`^pulumi-langhosts-v${PINNED_PULUMI_VERSION.replace(/\./g, "\\.")}-`));
  });

  it("toolchain/go/pulumi-yaml/go.mod pins the YAML host on the engine's pkg/sdk release, Go line and replacements", () => {
    const engineMod = fs.readFileSync(path.join(engineModuleDir(), "go.mod"), "utf8");
    const yamlMod = fs.readFileSync(path.join(yamlModuleDir(), "go.mod"), "utf8");
    expect(yamlMod).toMatch(new RegExp(`^require github\\.com/pulumi/pulumi-yaml v${PINNED_YAML_VERSION.replace(/\./g, "\\.")}$`, "m"));
    expect(yamlMod).toContain(`github.com/pulumi/pulumi/pkg/v3 v${PINNED_PULUMI_VERSION} // indirect`);
    expect(yamlMod).toContain(`github.com/pulumi/pulumi/sdk/v3 v${PINNED_PULUMI_VERSION} // indirect`);
    const goLine = (mod: string) => /^go\s+(\S+)\s*$/m.exec(mod)?.[1];
    expect(goLine(yamlMod)).toBe(goLine(engineMod));
    const replaces = (mod: string) => mod.split("\n").filter((line) => line.startsWith("replace "));
    expect(replaces(yamlMod)).toEqual(replaces(engineMod));
    expect(fs.readFileSync(path.join(yamlModuleDir(), "tools.go"), "utf8")).toContain(`_ "github.com/pulumi/pulumi-yaml/cmd/${YAML_LANGUAGE_HOST}"`);
    // go.sum is complete: the build runs with -mod=readonly and never asks the checksum database.
    expect(fs.readFileSync(path.join(yamlModuleDir(), "go.sum"), "utf8")).toMatch(
      new RegExp(`^github\\.com/pulumi/pulumi-yaml v${PINNED_YAML_VERSION.replace(/\./g, "\\.")} h1:`, "m"),
    );
  });
});

describe("Java language host", () => {
  it("toolchain/go/pulumi-java/go.mod pins pulumi-java's host on the engine's pkg/sdk release, Go line and replacements, with a complete go.sum", () => {
    const engineMod = fs.readFileSync(path.join(engineModuleDir(), "go.mod"), "utf8");
    const javaMod = fs.readFileSync(path.join(javaModuleDir(), "go.mod"), "utf8");
    const version = PINNED_JAVA_VERSION.replace(/\./g, "\\.");
    expect(javaMod).toMatch(new RegExp(`^require github\\.com/pulumi/pulumi-java/pkg v${version}$`, "m"));
    expect(javaMod).toContain(`github.com/pulumi/pulumi/pkg/v3 v${PINNED_PULUMI_VERSION} // indirect`);
    expect(javaMod).toContain(`github.com/pulumi/pulumi/sdk/v3 v${PINNED_PULUMI_VERSION} // indirect`);
    const goLine = (mod: string) => /^go\s+(\S+)\s*$/m.exec(mod)?.[1];
    expect(goLine(javaMod)).toBe(goLine(engineMod));
    const replaces = (mod: string) => mod.split("\n").filter((line) => line.startsWith("replace "));
    expect(replaces(javaMod)).toEqual(replaces(engineMod));
    expect(fs.readFileSync(path.join(javaModuleDir(), "tools.go"), "utf8")).toContain(`_ "github.com/pulumi/pulumi-java/pkg/cmd/${JAVA_LANGUAGE_HOST}"`);
    expect(fs.readFileSync(path.join(javaModuleDir(), "go.sum"), "utf8")).toMatch(new RegExp(`^github\\.com/pulumi/pulumi-java/pkg v${version} h1:`, "m"));
  });

  it("has a cache key of its own, from its version, the platform and its module's files, apart from the others", () => {
    const key = javaHostCacheKey();
    expect(key).toMatch(new RegExp(`^${JAVA_LANGUAGE_HOST}-v${PINNED_JAVA_VERSION.replace(/\./g, "\\.")}-${process.platform}-${process.arch}-[0-9a-f]{12}$`));
    expect(new Set([key, engineCacheKey(), yamlHostCacheKey(), langhostsCacheKey()]).size).toBe(4);
    for (const file of ["go.mod", "go.sum", "tools.go"]) {
      const changed = tempDir();
      for (const f of ["go.mod", "go.sum", "tools.go"]) fs.copyFileSync(path.join(javaModuleDir(), f), path.join(changed, f));
      expect(javaHostCacheKey(changed)).toBe(key);
      fs.appendFileSync(path.join(changed, file), "\n");
      expect(javaHostCacheKey(changed), file).not.toBe(key);
    }
  });
});

describe("YAML language host", () => {
  function copyModule(from: string): string {
    const dir = tempDir();
    for (const file of ["go.mod", "go.sum", "tools.go"]) fs.copyFileSync(path.join(from, file), path.join(dir, file));
    return dir;
  }

  it("has a cache key of its own, from its version, the platform and its module's files, apart from the engine's", () => {
    const key = yamlHostCacheKey();
    expect(key).toMatch(new RegExp(`^${YAML_LANGUAGE_HOST}-v${PINNED_YAML_VERSION.replace(/\./g, "\\.")}-${process.platform}-${process.arch}-[0-9a-f]{12}$`));
    expect(key).not.toBe(engineCacheKey());
    const copy = copyModule(yamlModuleDir());
    expect(yamlHostCacheKey(copy)).toBe(key);
    for (const file of ["go.mod", "go.sum", "tools.go"]) {
      const changed = copyModule(yamlModuleDir());
      fs.appendFileSync(path.join(changed, file), "\n");
      expect(yamlHostCacheKey(changed), file).not.toBe(key);
    }
    // The engine's key reads only toolchain/go/pulumi, so a YAML host change never rebuilds the engine.
    expect(engineCacheKey(copyModule(engineModuleDir()))).toBe(engineCacheKey());
  });

  it("is looked up next to an installed `pulumi` first, then on PATH", () => {
    const cliDir = tempDir();
    const pathDir = tempDir();
    const onPath = fakeYamlHost(pathDir);
    expect(findYamlLanguageHost(cliDir, { PATH: "" })).toBeUndefined();
    expect(findYamlLanguageHost(cliDir, { PATH: `${tempDir()}:${pathDir}` })).toBe(onPath);
    const beside = fakeYamlHost(cliDir);
    expect(findYamlLanguageHost(cliDir, { PATH: pathDir })).toBe(beside);
    fs.chmodSync(beside, 0o644);
    expect(findYamlLanguageHost(cliDir, { PATH: pathDir })).toBe(onPath);
  });

  it("is linked next to the cached engine's `pulumi`, and relinked only when the built host changes", () => {
    const engineBin = tempDir();
    const first = fakeYamlHost(tempDir());
    const link = linkYamlLanguageHost(engineBin, first);
    expect(link).toBe(path.join(engineBin, YAML_LANGUAGE_HOST));
    expect(fs.statSync(link).ino).toBe(fs.statSync(first).ino);
    expect(fs.statSync(link).mode & 0o111).not.toBe(0);
    linkYamlLanguageHost(engineBin, first);
    expect(fs.readdirSync(engineBin)).toEqual([YAML_LANGUAGE_HOST]);

    const second = fakeYamlHost(tempDir());
    fs.writeFileSync(second, "#!/bin/sh\necho second\n");
    linkYamlLanguageHost(engineBin, second);
    expect(fs.statSync(link).ino).toBe(fs.statSync(second).ino);
    expect(fs.readFileSync(first, "utf8")).toBe("#!/bin/sh\nexit 0\n");
    expect(fs.readdirSync(engineBin)).toEqual([YAML_LANGUAGE_HOST]);
  });

  it("puts its directory on the CLI's PATH when it is not next to `pulumi`", () => {
    const base = { PATH: "/usr/bin" };
    const inBin = { pulumi: "/opt/p/bin/pulumi", binDir: "/opt/p/bin", version: "3.200.0", source: "path" as const };
    expect(pulumiEnvironment(inBin, base).PATH).toBe("/opt/p/bin:/usr/bin");
    expect(toolchainPathDirs({ ...inBin, yamlLanguageHost: "/opt/p/bin/pulumi-language-yaml" })).toEqual(["/opt/p/bin"]);
    const apart = { ...inBin, yamlLanguageHost: "/cache/yaml/bin/pulumi-language-yaml" };
    expect(toolchainPathDirs(apart)).toEqual(["/opt/p/bin", "/cache/yaml/bin"]);
    expect(pulumiEnvironment(apart, base).PATH).toBe("/opt/p/bin:/cache/yaml/bin:/usr/bin");
    const hosts = { ...apart, goLanguageHost: "/cache/lh/bin/pulumi-language-go", pythonLanguageHost: "/cache/lh/bin/pulumi-language-python" };
    expect(toolchainPathDirs(hosts)).toEqual(["/opt/p/bin", "/cache/yaml/bin", "/cache/lh/bin"]);
  });
});

describe("the language hosts of an installed CLI that has none", () => {
  it("are taken from the cache", async (context) => {
    const toolchain = inject("pulumiToolchain");
    // Only when the test run's engine is ours: then the cache already holds the host, and nothing is built here.
    if (toolchain.source !== "cache" && toolchain.source !== "build") context.skip();
    const dir = tempDir();
    fakePulumi(dir, "3.150.0");
    const noYaml = tempDir();
    fs.symlinkSync(process.execPath, path.join(noYaml, "node"));
    const lines: string[] = [];
    const found = await resolvePulumiToolchain({ env: { PATH: `${dir}:${noYaml}` }, cacheDir: defaultCacheRoot(), log: (l) => lines.push(l) });
    expect(lines).toEqual([]);
    expect(found.source).toBe("path");
    expect(found.yamlLanguageHost).toBe(path.join(defaultCacheRoot(), yamlHostCacheKey(), "bin", YAML_LANGUAGE_HOST));
    // The Go and Python hosts come from their own cache entry too: the fake CLI has none.
    const langhosts = path.join(defaultCacheRoot(), langhostsCacheKey(), "bin");
    expect(found.goLanguageHost).toBe(path.join(langhosts, GO_LANGUAGE_HOST));
    expect(found.pythonLanguageHost).toBe(path.join(langhosts, PYTHON_LANGUAGE_HOST));
    const java = path.join(defaultCacheRoot(), javaHostCacheKey(), "bin");
    expect(found.javaLanguageHost).toBe(path.join(java, JAVA_LANGUAGE_HOST));
    expect(pulumiEnvironment(found, { PATH: "/usr/bin" }).PATH).toBe(`${dir}:${path.dirname(found.yamlLanguageHost!)}:${langhosts}:${java}:/usr/bin`);
  });
});

describe("resolvePulumiToolchain", () => {
  it("uses $PULUMI_CLI when it is new enough", async () => {
    const cli = fakePulumi(tempDir(), "3.200.0");
    const yaml = fakeYamlHost(path.dirname(cli));
    const found = await resolvePulumiToolchain({ env: { PATH: process.env.PATH, PULUMI_CLI: cli }, log: () => {} });
    expect(found).toMatchObject({ pulumi: cli, binDir: path.dirname(cli), version: "3.200.0", source: "env", yamlLanguageHost: yaml });
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
    fakeYamlHost(dir);
    // The CLI's own Java host is taken, so none is built into this empty cache.
    const java = fakeYamlHost(dir, JAVA_LANGUAGE_HOST);
    const found = await resolvePulumiToolchain({ env: { PATH: `${dir}:${process.env.PATH}` }, cacheDir: tempDir(), log: () => {} });
    expect(found.source).toBe("path");
    expect(found.pulumi).toBe(cli);
    expect(found.yamlLanguageHost).toBe(path.join(dir, YAML_LANGUAGE_HOST));
    expect(found.javaLanguageHost).toBe(java);
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
      expect(toolchain.yamlLanguageHost).toBe(path.join(toolchain.binDir, YAML_LANGUAGE_HOST));
      expect(toolchain.javaLanguageHost).toBe(path.join(toolchain.binDir, JAVA_LANGUAGE_HOST));
      for (const binary of ["pulumi-language-nodejs", "pulumi-resource-pulumi-nodejs", POLICY_ANALYZER, YAML_LANGUAGE_HOST, JAVA_LANGUAGE_HOST]) {
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

describe("the newest CLI, a second engine for the compatibility tier", () => {
  const escape = (version: string) => version.replace(/\./g, "\\.");
  const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), "utf8");
  /** What global setup resolved; the build's error when it could not. */
  function resolved(): PulumiToolchain {
    const newest = inject("newestPulumiToolchain");
    if ("unavailable" in newest) throw new Error(`global setup could not build the newest CLI: ${newest.unavailable}`);
    return newest;
  }

  it("toolchain/go/pulumi-newest pins the CLI alone at NEWEST_PULUMI_VERSION, and toolchain/go/pulumi-yaml-newest pulumi-yaml at NEWEST_YAML_VERSION, with complete go.sums", () => {
    const engineMod = read(newestEngineModuleDir(), "go.mod");
    expect(engineMod).toMatch(new RegExp(`^require github\\.com/pulumi/pulumi/pkg/v3 v${escape(NEWEST_PULUMI_VERSION)}$`, "m"));
    expect(engineMod).toContain(`github.com/pulumi/pulumi/sdk/v3 v${NEWEST_PULUMI_VERSION} // indirect`);
    expect(read(newestEngineModuleDir(), "go.sum")).toMatch(new RegExp(`^github\\.com/pulumi/pulumi/pkg/v3 v${escape(NEWEST_PULUMI_VERSION)} h1:`, "m"));
    expect(read(newestEngineModuleDir(), "tools.go")).toContain('_ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"');
    const yamlMod = read(newestYamlModuleDir(), "go.mod");
    expect(yamlMod).toMatch(new RegExp(`^require github\\.com/pulumi/pulumi-yaml v${escape(NEWEST_YAML_VERSION)}$`, "m"));
    expect(read(newestYamlModuleDir(), "go.sum")).toMatch(new RegExp(`^github\\.com/pulumi/pulumi-yaml v${escape(NEWEST_YAML_VERSION)} h1:`, "m"));
    expect(read(newestYamlModuleDir(), "tools.go")).toContain(`_ "github.com/pulumi/pulumi-yaml/cmd/${YAML_LANGUAGE_HOST}"`);
    // The newest CLI is the newer one: the compatibility tier would test nothing new otherwise.
    expect(compareVersions(NEWEST_PULUMI_VERSION, PINNED_PULUMI_VERSION)).toBeGreaterThan(0);
  });

  it("names, in its progress lines, any newer release the Go module proxy lists, or why it could not ask", () => {
    expect(newestOnProxyLine({ newer: ["3.280.0", "3.281.1"] })).toBe(
      `[toolchain] the Go module proxy serves Pulumi newer than ${NEWEST_PULUMI_VERSION}: 3.280.0, 3.281.1; pin 3.281.1 in toolchain/go/pulumi-newest (docs/maintainers/toolchain.md)`,
    );
    expect(newestOnProxyLine({ newer: [] })).toBe(
      `[toolchain] Pulumi ${NEWEST_PULUMI_VERSION} is the newest github.com/pulumi/pulumi/pkg/v3 the Go module proxy serves`,
    );
    expect(newestOnProxyLine({ unavailable: "dial tcp: lookup proxy.golang.org: no such host" })).toContain("so going on with it: dial tcp");
  });

  it("is named with the pinned engine in docs/install.md's `Tested by npm test` table, and in docs/maintainers/toolchain.md's section on it", () => {
    const root = REPO_ROOT;
    const row = /^\| Pulumi CLI \|.*$/m.exec(read(root, "docs/install.md"))?.[0] ?? "";
    const tested = row.split("|")[3] ?? "";
    for (const version of [PINNED_PULUMI_VERSION, NEWEST_PULUMI_VERSION, NEWEST_YAML_VERSION]) expect(tested).toContain(version);
    const doc = read(root, "docs/maintainers/toolchain.md");
    const section = doc.slice(doc.indexOf("\n## The newest Pulumi CLI\n"));
    expect(section.length).toBeGreaterThan(30);
    for (const text of [`Pulumi ${NEWEST_PULUMI_VERSION}`, `pulumi-yaml ${NEWEST_YAML_VERSION}`, `Version=v${NEWEST_PULUMI_VERSION}`])
      expect(section).toContain(text);
  });

  it("has cache keys of its own, from its versions, the platform and its modules' files, apart from the pinned engine's", () => {
    const key = newestEngineCacheKey();
    expect(key).toMatch(new RegExp(`^pulumi-v${escape(NEWEST_PULUMI_VERSION)}-${process.platform}-${process.arch}-[0-9a-f]{12}$`));
    expect(newestYamlHostCacheKey()).toMatch(new RegExp(`^${YAML_LANGUAGE_HOST}-v${escape(NEWEST_YAML_VERSION)}-`));
    expect(new Set([key, engineCacheKey(), newestYamlHostCacheKey(), yamlHostCacheKey()]).size).toBe(4);
    for (const file of ["go.mod", "go.sum", "tools.go"]) {
      const changed = tempDir();
      for (const f of ["go.mod", "go.sum", "tools.go"]) fs.copyFileSync(path.join(newestEngineModuleDir(), f), path.join(changed, f));
      expect(newestEngineCacheKey(changed)).toBe(key);
      fs.appendFileSync(path.join(changed, file), "\n");
      expect(newestEngineCacheKey(changed), file).not.toBe(key);
    }
  });

  it("is the one global setup built: its version stamped, with the pinned Node.js host and Python host and the newest YAML host linked next to it", () => {
    const newest = resolved();
    const cacheRoot = defaultCacheRoot();
    expect(newest).toMatchObject({ version: NEWEST_PULUMI_VERSION, binDir: path.join(cacheRoot, newestEngineCacheKey(), "bin") });
    expect(
      execFileSync(newest.pulumi, ["version"], { env: pulumiEnvironment(newest) })
        .toString()
        .trim(),
    ).toBe(`v${NEWEST_PULUMI_VERSION}`);
    const sameFile = (link: string, entry: string, name: string) =>
      expect(fs.statSync(link).ino, name).toBe(fs.statSync(path.join(cacheRoot, entry, "bin", name)).ino);
    expect(newest.yamlLanguageHost).toBe(path.join(newest.binDir, YAML_LANGUAGE_HOST));
    sameFile(newest.yamlLanguageHost!, newestYamlHostCacheKey(), YAML_LANGUAGE_HOST);
    expect(newest.pythonLanguageHost).toBe(path.join(newest.binDir, PYTHON_LANGUAGE_HOST));
    sameFile(newest.pythonLanguageHost!, langhostsCacheKey(), PYTHON_LANGUAGE_HOST);
    for (const name of ["pulumi-language-nodejs", "pulumi-resource-pulumi-nodejs"]) sameFile(path.join(newest.binDir, name), engineCacheKey(), name);
  });

  it("is never an installed CLI: with $PULUMI_CLI and a `pulumi` on PATH it is still the cached build", async () => {
    resolved();
    const dir = tempDir();
    const cli = fakePulumi(dir, "3.300.0");
    const lines: string[] = [];
    const found = await resolveNewestPulumiToolchain({
      env: { ...process.env, PULUMI_CLI: cli, PATH: `${dir}:${process.env.PATH}` },
      log: (l) => lines.push(l),
    });
    expect(found).toMatchObject({
      version: NEWEST_PULUMI_VERSION,
      source: "cache",
      pulumi: path.join(defaultCacheRoot(), newestEngineCacheKey(), "bin", "pulumi"),
    });
    // Nothing built: the one line is what the Go module proxy lists (or why it could not be asked).
    expect(lines).toEqual([expect.stringMatching(/^\[toolchain\] .*Go module proxy/)]);
  });
});

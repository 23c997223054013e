/**
 * `npm run release` (tools/release.js): one folder with the npm tarball, the plugin archives, the
 * reference server's single-file archives and SBOM, the Go
 * SDK as a module proxy serves it, the C# SDK's sources, the Node.js SDK's npm package (the same
 * bytes from two builds), SBOMs and SHA256SUMS that verifies. The folder is the test run's shared
 * one (test/support/release-folder.ts), built once for every test file that asks; what needs a
 * build of its own makes only that part (a step added to RELEASE_STEPS, the script archive, the
 * Node.js SDK's package, the Python and Go SBOMs again). Needs `npm run build`.
 */
import { execFile, execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPluginArchive } from "../../tools/build-plugin-archive.js";
import { executableName, platformArchiveName, pulumiPlatform, targetsBuiltOn } from "../../tools/build-plugin-binary.js";
import { REFERENCE_SERVER, referenceServerArchiveName } from "../../tools/build-reference-server-binary.js";
import { imageArchiveName } from "../../tools/build-reference-server-image.js";
import { PLUGIN_LINE, supportedLine } from "../../tools/lib/node-runtime.js";
import { BUILD_ONLY_FIELDS, buildNodeSdkPackage } from "../../tools/lib/node-sdk-package.js";
import * as sboms from "../../tools/lib/release-sboms.js";
import { RELEASE_STEPS, javaSdkFiles, release, type ReleaseStep } from "../../tools/release.js";
import { repoRoot } from "../support/pulumi-workspace";
import { resolvePythonEnv, type PythonEnv } from "../support/python-env";
import { sharedReleaseFolder } from "../support/release-folder";

const execFileAsync = promisify(execFile);

const { version } = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string };
const GO_MODULE = /^module\s+(\S+)/m.exec(fs.readFileSync(path.join(repoRoot, "sdk", "go.mod"), "utf8"))![1]!;
const tarList = (archive: string): string[] => execFileSync("tar", ["-tzf", archive], { encoding: "utf8" }).trim().split("\n");
const SBOMS = sboms.sbomNames(version);
/** The platforms whose single file this machine's release holds (on linux-x64: Linux x64 and arm64, Windows x64). */
const BUILT_HERE = targetsBuiltOn();

/** The parts of a CycloneDX document the tests read. */
interface Bom {
  bomFormat: string;
  metadata: { timestamp?: string; component: { "bom-ref": string; name: string; group?: string; version: string } };
  components: Array<{ "bom-ref": string; name: string; group?: string; version: string }>;
  dependencies: Array<{ ref: string; dependsOn?: string[] }>;
}

/**
 * CycloneDX's own validator (cyclonedx-python-lib, beside cyclonedx-py in the Python environment)
 * over JSON files, each against its schema version, in one run (the validator's start is most of
 * its cost): each file's errors, or "".
 */
async function cyclonedxSchemaErrors(python: string, files: ReadonlyArray<{ file: string; specVersion: string }>): Promise<Map<string, string>> {
  const script = [
    "import json, sys",
    "from cyclonedx.schema import SchemaVersion",
    "from cyclonedx.validation.json import JsonStrictValidator",
    "pairs = zip(sys.argv[1::2], sys.argv[2::2])",
    "errors = {f: str(JsonStrictValidator(SchemaVersion.from_version(v)).validate_str(open(f, encoding='utf-8').read()) or '') for f, v in pairs}",
    "print(json.dumps(errors), end='')",
  ].join("\n");
  const args = files.flatMap(({ file, specVersion }) => [file, specVersion]);
  const { stdout } = await execFileAsync(python, ["-c", script, ...args], { encoding: "utf8", env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
  return new Map(Object.entries(JSON.parse(stdout) as Record<string, string>));
}

/**
 * Makes the Python and Go SBOMs again (tools/lib/release-sboms.js) into `out`, which holds the wheel, in a
 * child Node process: the tools run for a minute, which the test worker must not block for.
 */
async function remakeSboms(ctx: { out: string; time: string; python: string }): Promise<void> {
  const script = `
    const sboms = require(${JSON.stringify(path.join(repoRoot, "tools", "lib", "release-sboms.js"))});
    const ctx = { root: ${JSON.stringify(repoRoot)}, out: ${JSON.stringify(ctx.out)}, version: ${JSON.stringify(version)}, time: new Date(${JSON.stringify(ctx.time)}), python: ${JSON.stringify(ctx.python)} };
    sboms.pythonSdkSbom(ctx);
    sboms.goSdkSbom(ctx).catch((error) => { console.error(error); process.exit(1); });`;
  await execFileAsync(process.execPath, ["-e", script], { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 });
}

/** The parts of the plugin SBOM's Node.js component the tests read. */
interface EmbeddedNode {
  name: string;
  externalReferences: Array<{ type: string; hashes?: Array<{ alg: string; content: string }> }>;
}

/** The refs the main component depends on directly. */
const directRefs = (bom: Bom): string[] => bom.dependencies.find((d) => d.ref === bom.metadata.component["bom-ref"])?.dependsOn ?? [];

describe("the release command", () => {
  let tmp: string;
  let out: string;
  let files: string[];
  let pyEnv: PythonEnv;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-release-test-"));
    pyEnv = await resolvePythonEnv();
    out = await sharedReleaseFolder();
    files = execFileSync("find", [".", "-type", "f"], { cwd: out, encoding: "utf8" })
      .trim()
      .split("\n")
      .map((file) => file.replace(/^\.\//, ""))
      .sort();
  }, 900_000);

  afterAll(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  /**
   * The validator's errors for each SBOM the tests below hold to the schema, validated together on
   * first use: one Python process over five SBOMs, about 20 s of CPU, which the tests that wait on
   * it are given {@link SCHEMA_CHECK_MS} for on a busy machine.
   */
  let validated: Promise<Map<string, string>> | undefined;
  const schemaErrors = async (file: string): Promise<string | undefined> => {
    validated ??= cyclonedxSchemaErrors(
      pyEnv.python,
      [
        { file: `${REFERENCE_SERVER}-v${version}.cdx.json`, specVersion: "1.5" },
        { file: `pulumi-resource-analytics-v${version}.cdx.json`, specVersion: "1.5" },
        ...[SBOMS.python, SBOMS.go, SBOMS.java].map((sbom) => ({ file: sbom, specVersion: "1.6" })),
      ].map(({ file, specVersion }) => ({ file: path.join(out, file), specVersion })),
    );
    return (await validated).get(file);
  };

  /** How long a test that waits on the SBOMs' validation may take. */
  const SCHEMA_CHECK_MS = 300_000;

  it("writes every artifact into one folder", () => {
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
        `analytics-${version}-sources.jar`,
        `analytics-${version}-javadoc.jar`,
        `analytics-${version}.pom`,
        SBOMS.java,
        SBOMS.go,
        SBOMS.python,
        `pulumi_analytics-${version}-py3-none-any.whl`,
        `pulumi_analytics-${version}.tar.gz`,
        `pulumi-analytics-${version}.tgz`,
        `pulumi-analytics-analytics-${version}.tgz`,
        `pulumi-analytics-dotnet-sdk-v${version}.tar.gz`,
        `pulumi-analytics-v${version}.npm.cdx.json`,
        ...BUILT_HERE.map((target) => platformArchiveName(version, target)),
        `pulumi-resource-analytics-v${version}.cdx.json`,
        `pulumi-resource-analytics-v${version}.tar.gz`,
        ...BUILT_HERE.map((target) => referenceServerArchiveName(version, target)),
        `${REFERENCE_SERVER}-v${version}.cdx.json`,
        imageArchiveName(version),
        `${REFERENCE_SERVER}-v${version}-oci.cdx.json`,
      ].sort(),
    );
    expect(BUILT_HERE.map((target) => `${target.os}-${target.arch}`)).toEqual(["linux-amd64", "linux-arm64", "windows-amd64"]);
    for (const target of BUILT_HERE) expect(tarList(path.join(out, platformArchiveName(version, target)))).toEqual([executableName(target), "LICENSE"]);
    expect(executableName({ os: "windows" })).toBe("pulumi-resource-analytics.exe");
    expect(tarList(path.join(out, `pulumi-analytics-dotnet-sdk-v${version}.tar.gz`))).toContain("Provider.cs");
    expect(tarList(path.join(out, `pulumi-analytics-${version}.tgz`))).toContain("package/dist/native/bin.js");
  });

  it("has SHA256SUMS over every other file, which sha256sum -c verifies and which catches a changed file", () => {
    const sums = fs.readFileSync(path.join(out, "SHA256SUMS"), "utf8").trim().split("\n");
    expect(sums.map((line) => line.split("  ")[1])).toEqual(files.filter((file) => file !== "SHA256SUMS"));
    expect(spawnSync("sha256sum", ["-c", "--quiet", "SHA256SUMS"], { cwd: out }).status).toBe(0);
    const copy = path.join(tmp, "tampered");
    fs.cpSync(out, copy, { recursive: true });
    fs.appendFileSync(path.join(copy, SBOMS.go), "\n");
    expect(spawnSync("sha256sum", ["-c", "--quiet", "SHA256SUMS"], { cwd: copy, encoding: "utf8" }).stdout).toContain(`${SBOMS.go}: FAILED`);
  }, 120_000);

  it("puts the file of a step added to RELEASE_STEPS into the folder and its SHA256SUMS", async () => {
    const extraOut = path.join(tmp, "extra");
    const extra: ReleaseStep = { name: "extra artifact", run: (ctx) => fs.writeFileSync(path.join(ctx.out, `extra-v${ctx.version}.txt`), "extra\n") };
    expect(await release({ out: extraOut, steps: [extra], log: () => {} })).toEqual(["SHA256SUMS", `extra-v${version}.txt`]);
    expect(spawnSync("sha256sum", ["-c", "SHA256SUMS"], { cwd: extraOut, encoding: "utf8" }).stdout).toBe(`extra-v${version}.txt: OK\n`);
  });

  it("serves the Go SDK to `go mod download` through GOPROXY=file://", () => {
    const env = {
      ...process.env,
      GOPROXY: `file://${path.join(out, "go-proxy")}`,
      GOSUMDB: "off",
      GOFLAGS: "-mod=mod",
      GOMODCACHE: path.join(tmp, "gomodcache"),
    };
    const downloaded = JSON.parse(execFileSync("go", ["mod", "download", "-json", `${GO_MODULE}@v${version}`], { cwd: tmp, env, encoding: "utf8" })) as {
      Dir: string;
      Error?: string;
    };
    expect(downloaded.Error).toBeUndefined();
    expect(fs.readFileSync(path.join(downloaded.Dir, "go.mod"), "utf8")).toBe(fs.readFileSync(path.join(repoRoot, "sdk", "go.mod"), "utf8"));
    expect(fs.existsSync(path.join(downloaded.Dir, "go", "analytics"))).toBe(true);
    execFileSync("chmod", ["-R", "u+w", path.join(tmp, "gomodcache")]);
  });

  it("has CycloneDX SBOMs of the npm package's and of the plugin's bundled dependencies", () => {
    const names = (file: string) => {
      const bom = JSON.parse(fs.readFileSync(path.join(out, file), "utf8")) as Bom;
      expect(bom.bomFormat).toBe("CycloneDX");
      return bom.components.map((c) => c.name);
    };
    // The package's runtime dependencies only: not pg (an optional peer) nor the private toolchain workspace.
    expect(names(`pulumi-analytics-v${version}.npm.cdx.json`).sort()).toEqual(["undici", "zod"]);
    expect(names(`pulumi-resource-analytics-v${version}.cdx.json`)).toEqual(expect.arrayContaining(["@pulumi/pulumi", "google-protobuf", "undici", "zod"]));
  });

  it(
    "names in the reference server's SBOM, valid CycloneDX 1.5, the packages its single files bundle (pg among them) and the Node.js they embed",
    async () => {
      const file = path.join(out, `${REFERENCE_SERVER}-v${version}.cdx.json`);
      expect(await schemaErrors(file)).toBe("");
      const bom = JSON.parse(fs.readFileSync(file, "utf8")) as Bom;
      expect(bom.metadata.component).toMatchObject({ name: REFERENCE_SERVER, version });
      const names = bom.components.map((c) => c.name);
      expect(names).toEqual(expect.arrayContaining(["pg", "pg-protocol", "pg-pool", "zod", "node"]));
      expect(names).not.toContain("pg-native");
      expect(bom.components.find((c) => c.name === "node")?.version).toBe(supportedLine(PLUGIN_LINE).pinned);
    },
    SCHEMA_CHECK_MS,
  );

  it(
    "names in the plugin's SBOM, valid CycloneDX 1.5, the Node.js its single files embed: the pinned release, with each npm package's sha512",
    async () => {
      const file = path.join(out, `pulumi-resource-analytics-v${version}.cdx.json`);
      expect(await schemaErrors(file)).toBe("");
      const bom = JSON.parse(fs.readFileSync(file, "utf8")) as { specVersion: string; components: EmbeddedNode[] };
      const { pinned, integrity } = supportedLine(PLUGIN_LINE);
      const node = bom.components.find((c) => c.name === "node");
      expect(node).toMatchObject({
        type: "platform",
        version: pinned,
        purl: `pkg:generic/node@${pinned}`,
        cpe: `cpe:2.3:a:nodejs:node.js:${pinned}:*:*:*:*:*:*:*`,
      });
      const hashes = node!.externalReferences.flatMap((reference) => reference.hashes ?? []);
      expect(hashes.map((hash) => `sha512-${Buffer.from(hash.content, "hex").toString("base64")}`)).toEqual(Object.values(integrity!));
      const dir = fs.mkdtempSync(path.join(tmp, "binary-"));
      execFileSync("tar", ["-xzf", path.join(out, platformArchiveName(version, pulumiPlatform())), "-C", dir]);
      expect(execFileSync(path.join(dir, "pulumi-resource-analytics"), ["--version"], { encoding: "utf8" })).toBe(`${version} (Node.js v${pinned})\n`);
    },
    SCHEMA_CHECK_MS,
  );

  it("names the npm package's SBOM after the package, dated with the release, with no random serial number or path of the build", () => {
    const text = fs.readFileSync(path.join(out, `pulumi-analytics-v${version}.npm.cdx.json`), "utf8");
    const bom = JSON.parse(text) as Bom & { serialNumber?: string };
    expect(bom.metadata.component).toMatchObject({ name: "pulumi-analytics", version });
    expect(bom.serialNumber).toBeUndefined();
    const lastCommit = Number(execFileSync("git", ["log", "-1", "--format=%ct"], { cwd: repoRoot, encoding: "utf8" }).trim());
    expect(bom.metadata.timestamp).toBe(new Date(lastCommit * 1000).toISOString());
    for (const machinePath of [os.tmpdir(), os.homedir(), repoRoot, out]) expect(text).not.toContain(machinePath);
  });

  it("has the Java SDK as Maven Central takes it: the jar, its sources and javadoc (with the enums' docs), and a POM in the project's namespace", () => {
    const { jars, pom } = javaSdkFiles(version);
    const entries = (jar: string) => execFileSync("unzip", ["-Z1", path.join(out, jar)], { encoding: "utf8" }).split("\n");
    const pkg = "io/github/pulumi_analytics/analytics";
    expect(entries(jars[0]!)).toContain(`${pkg}/enums/DataSourceType.class`);
    expect(entries(jars[1]!)).toContain(`${pkg}/enums/DataSourceType.java`);
    expect(entries(jars[2]!)).toContain(`${pkg}/enums/DataSourceType.html`);
    const page = execFileSync("unzip", ["-p", path.join(out, jars[2]!), `${pkg}/enums/DataSourceType.html`], { encoding: "utf8" });
    expect(page).toContain("The service connects to the database itself");
    expect(fs.readFileSync(path.join(out, pom), "utf8")).toMatch(
      /<groupId>io\.github\.pulumi-analytics<\/groupId>\s*<artifactId>analytics<\/artifactId>\s*<version>/,
    );
  });

  it("dates the jar's and the wheel's entries with the release's time (SOURCE_DATE_EPOCH), not the build's", async () => {
    const dir = path.join(tmp, "dated");
    const script = `
      const { RELEASE_STEPS, release } = require(${JSON.stringify(path.join(repoRoot, "tools", "release.js"))});
      const steps = RELEASE_STEPS.filter((step) => step.name === "Python SDK" || step.name === "Java SDK");
      release({ out: ${JSON.stringify(dir)}, python: ${JSON.stringify(pyEnv.python)}, steps, log: () => {} }).catch((error) => { console.error(error); process.exit(1); });`;
    await execFileAsync(process.execPath, ["-e", script], {
      cwd: repoRoot,
      env: { ...process.env, SOURCE_DATE_EPOCH: "978307200", TZ: "UTC" },
      maxBuffer: 64 * 1024 * 1024,
    });
    const dates = "import sys, zipfile\nprint('\\n'.join(sorted({'%04d-%02d-%02d' % i.date_time[:3] for i in zipfile.ZipFile(sys.argv[1]).infolist()})))";
    for (const archive of [...javaSdkFiles(version).jars, `pulumi_analytics-${version}-py3-none-any.whl`]) {
      expect(execFileSync(pyEnv.python, ["-c", dates, path.join(dir, archive)], { encoding: "utf8" }).trim(), archive).toBe("2001-01-01");
    }
  }, 300_000);

  it.each([
    { sdk: "Python", file: SBOMS.python, self: { name: "pulumi_analytics", version }, pulumi: { name: "pulumi" } },
    { sdk: "Go", file: SBOMS.go, self: { name: GO_MODULE, version: `v${version}` }, pulumi: { name: "github.com/pulumi/pulumi/sdk/v3" } },
    {
      sdk: "Java",
      file: SBOMS.java,
      self: { group: "io.github.pulumi-analytics", name: "analytics", version },
      pulumi: { group: "com.pulumi", name: "pulumi" },
    },
  ])(
    "has the $sdk SDK's SBOM: valid CycloneDX naming the SDK and its pulumi dependency, no path of the build machine in it",
    async ({ file, self, pulumi }) => {
      const text = fs.readFileSync(path.join(out, file), "utf8");
      expect(await schemaErrors(path.join(out, file))).toBe("");
      const bom = JSON.parse(text) as Bom;
      expect(bom.bomFormat).toBe("CycloneDX");
      expect(bom.metadata.component).toMatchObject(self);
      const dependency = bom.components.find((c) => c.name === pulumi.name && c.group === (pulumi as { group?: string }).group);
      expect(dependency?.version).toMatch(/^v?\d+\.\d+\.\d+/);
      expect(directRefs(bom)).toContain(dependency!["bom-ref"]);
      const refs = new Set([bom.metadata.component["bom-ref"], ...bom.components.map((c) => c["bom-ref"])]);
      expect(bom.dependencies.flatMap((d) => [d.ref, ...(d.dependsOn ?? [])]).filter((ref) => !refs.has(ref))).toEqual([]);
      const goModCache = (await execFileAsync("go", ["env", "GOMODCACHE"], { encoding: "utf8" })).stdout.trim();
      for (const machinePath of [os.tmpdir(), os.homedir(), repoRoot, out, pyEnv.dir, goModCache]) expect(text).not.toContain(machinePath);
    },
    SCHEMA_CHECK_MS,
  );

  it("lists in the Python SBOM the wheel's dependency closure, not the rest of the environment that built it", () => {
    const bom = JSON.parse(fs.readFileSync(path.join(out, SBOMS.python), "utf8")) as Bom;
    const names = bom.components.map((c) => c.name.toLowerCase());
    expect(names).toEqual(expect.arrayContaining(["pulumi", "grpcio", "protobuf", "parver", "semver"]));
    for (const tool of ["build", "mypy", "schemathesis", "cyclonedx-bom", "pytest", "setuptools"]) expect(names).not.toContain(tool);
    expect(bom.metadata.timestamp).toBeDefined();
  });

  it("makes the Python and Go SBOMs to the same bytes again, from another folder", async () => {
    const again = path.join(tmp, "sboms-again");
    fs.mkdirSync(again);
    const wheel = `pulumi_analytics-${version}-py3-none-any.whl`;
    fs.copyFileSync(path.join(out, wheel), path.join(again, wheel));
    const { timestamp } = (JSON.parse(fs.readFileSync(path.join(out, SBOMS.python), "utf8")) as Bom).metadata;
    await remakeSboms({ out: again, time: timestamp!, python: pyEnv.python });
    for (const file of [SBOMS.python, SBOMS.go]) expect(fs.readFileSync(path.join(again, file), "utf8")).toBe(fs.readFileSync(path.join(out, file), "utf8"));
  }, 300_000);

  it("builds the Python SDK's sdist and wheel to the same bytes again, from another folder", async () => {
    const again = path.join(tmp, "python-again");
    fs.mkdirSync(again);
    const steps = RELEASE_STEPS.filter((step) => step.name === "Python SDK");
    await release({ out: again, python: pyEnv.python, steps, log: () => {} });
    for (const file of [`pulumi_analytics-${version}.tar.gz`, `pulumi_analytics-${version}-py3-none-any.whl`]) {
      expect(fs.readFileSync(path.join(again, file)).equals(fs.readFileSync(path.join(out, file))), file).toBe(true);
    }
  }, 300_000);

  it("has the Node.js SDK as an npm package: compiled with its types, and the pulumi block naming the plugin and its server", () => {
    const tarball = path.join(out, `pulumi-analytics-analytics-${version}.tgz`);
    expect(tarList(tarball)).toEqual(
      expect.arrayContaining([
        "package/index.js",
        "package/index.d.ts",
        "package/dataSource.js",
        "package/dataSource.d.ts",
        "package/config/vars.js",
        "package/package.json",
      ]),
    );
    expect(tarList(tarball).filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))).toEqual([]);
    const manifest = JSON.parse(execFileSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" })) as Record<string, unknown>;
    const schema = JSON.parse(fs.readFileSync(path.join(repoRoot, "src/native/schema.json"), "utf8")) as { pluginDownloadURL: string };
    expect(manifest).toMatchObject({
      name: "@pulumi-analytics/analytics",
      version,
      pulumi: { resource: true, name: "analytics", version, server: schema.pluginDownloadURL },
    });
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

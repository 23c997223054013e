/**
 * The SDKs committed in sdk/ are exactly what tools/generate-sdks.js makes from the schema with the
 * test run's toolchain (file list and bytes), and the ones that can be checked without a package
 * registry are: the Python SDK byte-compiles (in a temp copy), the Node.js SDK type-checks. The Go,
 * Python, Java and Node.js SDKs are built, installed and run as their users install them by the
 * release rehearsals (test/release/release-rehearsal-*.test.ts); the C# SDK is
 * only generated (no .NET SDK or NuGet here).
 * Needs `npm run build`.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import * as toolchainModule from "../../toolchain/src/pulumi-cli";
import { PYTHON_SDK_FLOOR } from "../../tools/generate-schema.js";
import { LANGUAGES, generateSdks, listFiles } from "../../tools/generate-sdks.js";
import { repoRoot } from "../support/pulumi-workspace";

const toolchain = inject("pulumiToolchain");
const SDK = path.join(repoRoot, "sdk");

describe("the generated SDKs", () => {
  const temps: string[] = [];
  const tempDir = (prefix: string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    temps.push(dir);
    return dir;
  };
  afterAll(() => temps.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

  it("are what tools/generate-sdks.js writes from src/native/schema.json, file for file", () => {
    const out = tempDir("analytics-sdks-check-");
    generateSdks(out, toolchain, toolchainModule);
    for (const language of LANGUAGES) {
      const committed = listFiles(path.join(SDK, language));
      const generated = listFiles(path.join(out, language));
      expect(committed, `sdk/${language}: file list (run npm run generate:sdks)`).toEqual(generated);
      for (const file of generated) {
        const want = fs.readFileSync(path.join(out, language, file));
        const have = fs.readFileSync(path.join(SDK, language, file));
        expect(have.equals(want), `sdk/${language}/${file} differs from the generator's output (run npm run generate:sdks)`).toBe(true);
      }
    }
  }, 120_000);

  it("carry the package's version and names, with no placeholder left", () => {
    const schema = JSON.parse(fs.readFileSync(path.join(repoRoot, "src/native/schema.json"), "utf8")) as { version: string; pluginDownloadURL: string };
    const { version } = schema;
    for (const language of LANGUAGES) {
      for (const file of listFiles(path.join(SDK, language))) {
        if (file.endsWith(".png")) continue;
        // The plugin's download address keeps its `${VERSION}`: the engine fills it in.
        const text = fs
          .readFileSync(path.join(SDK, language, file), "utf8")
          .split(schema.pluginDownloadURL)
          .join("");
        expect(text, `sdk/${language}/${file}`).not.toContain("${VERSION}");
      }
    }
    expect(JSON.parse(fs.readFileSync(path.join(SDK, "nodejs/package.json"), "utf8"))).toMatchObject({ name: "@pulumi-analytics/analytics", version });
    expect(fs.readFileSync(path.join(SDK, "python/pyproject.toml"), "utf8")).toContain(`version = "${version}"`);
    expect(fs.readFileSync(path.join(SDK, "go/analytics/internal/pulumiUtilities.go"), "utf8")).toContain(`semver.MustParse("${version}")`);
    expect(fs.readFileSync(path.join(SDK, "go.mod"), "utf8")).toMatch(/^module github\.com\/pulumi-analytics\/pulumi-analytics\/sdk$/m);
    expect(fs.readFileSync(path.join(SDK, "nodejs/config/vars.ts"), "utf8")).toContain('from "../utilities"');
    expect(fs.readFileSync(path.join(SDK, "java/pom.xml"), "utf8")).toContain(`<artifactId>analytics</artifactId>\n  <version>${version}</version>`);
    expect(fs.readFileSync(path.join(SDK, "java/src/main/resources/io/github/pulumi_analytics/analytics/version.txt"), "utf8")).toBe(version);
  });

  it("carry a documented constant for each enum value of the schema, in every language", () => {
    const schema = JSON.parse(fs.readFileSync(path.join(repoRoot, "src/native/schema.json"), "utf8")) as {
      types: Record<string, { enum: Array<{ name: string; value: string; description: string }> }>;
    };
    const sources = {
      go: fs.readFileSync(path.join(SDK, "go/analytics/pulumiEnums.go"), "utf8"),
      python: fs.readFileSync(path.join(SDK, "python/pulumi_analytics/_enums.py"), "utf8"),
      nodejs: fs.readFileSync(path.join(SDK, "nodejs/types/enums/index.ts"), "utf8"),
      dotnet: fs.readFileSync(path.join(SDK, "dotnet/Enums.cs"), "utf8"),
    };
    expect(Object.keys(schema.types).length).toBeGreaterThan(0);
    for (const [token, { enum: values }] of Object.entries(schema.types)) {
      const type = token.split(":")[2]!;
      const java = fs.readFileSync(path.join(SDK, `java/src/main/java/io/github/pulumi_analytics/analytics/enums/${type}.java`), "utf8");
      for (const { name, value, description } of values) {
        expect(sources.go, `${type}${name}`).toContain(`// ${description}\n\t${type}${name} = ${type}("${value}")`);
        expect(sources.python).toContain(`    ${name.toUpperCase()} = "${value}"\n    """\n    ${description}\n    """`);
        expect(sources.nodejs).toMatch(
          new RegExp(
            `export const ${type} = \\{[\\s\\S]*?/\\*\\*\\n\\s+\\* ${description.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\n\\s+\\*/\\n\\s+${name}: "${value}"`,
          ),
        );
        expect(sources.dotnet).toContain(`public static ${type} ${name} { get; } = new ${type}("${value}");`);
        expect(java).toContain(`         * ${description}\n         * \n         */\n        ${name}("${value}")`);
      }
    }
  });

  it("are not in the published npm package", () => {
    const { files } = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { files: string[] };
    expect(files.filter((f) => f === "sdk" || f.startsWith("sdk/"))).toEqual([]);
  });

  it("Python: asks for the interpreters its oldest pulumi accepts (that release's wheel Requires-Python)", () => {
    const pyproject = fs.readFileSync(path.join(SDK, "python/pyproject.toml"), "utf8");
    expect(pyproject).toContain(`"pulumi>=${PYTHON_SDK_FLOOR.pulumi},<4.0.0"`);
    expect(pyproject).toContain(`requires-python = "${PYTHON_SDK_FLOOR.requiresPython}"`);
    const wheels = path.join(toolchainModule.defaultCacheRoot(), "pip-floor", PYTHON_SDK_FLOOR.pulumi);
    execFileSync("python3", ["-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "-d", wheels, `pulumi==${PYTHON_SDK_FLOOR.pulumi}`], {
      stdio: "pipe",
    });
    const wheel = fs.readdirSync(wheels).find((f) => f.endsWith(".whl"));
    const metadata = execFileSync("unzip", ["-p", path.join(wheels, wheel as string), `pulumi-${PYTHON_SDK_FLOOR.pulumi}.dist-info/METADATA`], {
      encoding: "utf8",
    });
    expect(/^Requires-Python: (.+)$/m.exec(metadata)?.[1]).toBe(PYTHON_SDK_FLOOR.requiresPython);
  }, 120_000);

  it("Python: byte-compiles with python3 -m compileall", () => {
    const out = tempDir("analytics-sdk-python-");
    fs.cpSync(path.join(SDK, "python"), out, { recursive: true });
    execFileSync("python3", ["-m", "compileall", "-q", out], { stdio: "pipe" });
    expect(listFiles(out).filter((f) => f.endsWith(".pyc")).length).toBeGreaterThanOrEqual(7);
  }, 60_000);

  it("Node.js: type-checks with tsc against the repository's @pulumi/pulumi", () => {
    execFileSync(process.execPath, [require.resolve("typescript/bin/tsc"), "--noEmit", "-p", path.join(SDK, "nodejs", "tsconfig.json")], { stdio: "pipe" });
  }, 120_000);
});

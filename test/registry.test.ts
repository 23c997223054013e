/**
 * What the Pulumi Registry takes from the repository: the two pages (docs/_index.md,
 * docs/installation-configuration.md), the logo the schema names, the publisher's metadata in the
 * schema and every SDK's package files, and the TypeScript example converted from the YAML one.
 * Each is generated; this holds the committed files to their generators. Needs `npm run build`.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { configKey, providerConfigSpec } from "../src/kinds";
import * as toolchainModule from "../toolchain/src/pulumi-cli";
import * as examples from "../tools/example-programs.js";
import * as logo from "../tools/logo.js";
import { projectIdentity } from "../tools/project-identity.js";
import * as docs from "../tools/registry-docs.js";
import { repoRoot } from "./support/pulumi-workspace";

const identity = projectIdentity();

const read = (file: string): string => fs.readFileSync(path.join(repoRoot, file), "utf8");
const schema = JSON.parse(read("src/native/schema.json")) as Record<string, unknown> & { name: string; version: string; keywords: string[]; resources: Record<string, { description: string }> };
const toolchain = inject("pulumiToolchain");

/** A page's front matter, as key → value. */
function frontMatter(page: string): Record<string, string> {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(page);
  if (!match) throw new Error("no front matter");
  return Object.fromEntries(match[1]!.split("\n").map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trim()]));
}

describe("the Registry pages", () => {
  it.each(["index", "installation"] as const)("docs page %s is what tools/registry-docs.js writes (run it after a schema change)", (page) => {
    const want = page === "index" ? docs.indexPage() : docs.installationPage();
    expect(read(docs.PAGES[page])).toBe(want);
    expect(frontMatter(want)).toMatchObject({ title: expect.stringMatching(/^Analytics/), meta_desc: expect.stringMatching(/\w/), layout: "package" });
  });

  it("_index.md shows the example in every language, each the program its example project holds", () => {
    const page = read(docs.PAGES.index);
    expect(page).toContain(`{{< chooser language "${examples.EXAMPLE_PROGRAMS.map((p) => p.language).join(",")}" >}}`);
    for (const program of examples.EXAMPLE_PROGRAMS) expect(page).toContain(`{{% choosable language ${program.language} %}}\n\n\`\`\`${program.language}\n${read(program.file).trimEnd()}\n\`\`\``);
  });

  it("installation-configuration.md names each language's package and has a row per provider setting of src/kinds", () => {
    const page = read(docs.PAGES.installation);
    for (const name of ["@pulumi-analytics/analytics", "pulumi_analytics", "github.com/pulumi-analytics/pulumi-analytics/sdk/go/analytics", "PulumiAnalytics.Analytics", "io.github.pulumi-analytics:analytics"]) {
      expect(page).toContain(`\`${name}\``);
    }
    const rows = page.split("\n").filter((line) => /^\| `\w+` \|/.test(line));
    expect(rows.map((row) => row.split(" | ")[0]!.slice(3, -1))).toEqual(Object.keys(providerConfigSpec));
    for (const [name, setting] of Object.entries(providerConfigSpec)) {
      expect(page).toContain(`| \`${name}\` | \`${configKey(name as keyof typeof providerConfigSpec)}\` | \`${setting.env}\` |`);
      expect(page).toMatch(new RegExp(`pulumi config set${"secret" in setting ? " --secret" : ""} ${configKey(name as keyof typeof providerConfigSpec)} `));
      expect(page).toContain(`export ${setting.env}=`);
    }
    expect(page).toContain(`pulumi plugin install resource analytics ${schema.version} --server ${identity.repository}/releases/download/v${schema.version}/`);
  });
});

describe("the publisher's metadata", () => {
  it("is in the schema, from package.json's repository", () => {
    expect(schema).toMatchObject({ publisher: "pulumi-analytics", homepage: "https://github.com/pulumi-analytics/pulumi-analytics", repository: identity.repository });
    expect(schema.logoUrl).toBe(`https://raw.githubusercontent.com/pulumi-analytics/pulumi-analytics/main/${logo.LOGO_FILE}`);
    expect(schema.keywords).toEqual(["pulumi", "analytics", "category/database", "kind/native"]);
  });

  it("names a logo the repository holds, drawn by tools/logo.js, and the .NET package's icon is it as a PNG", () => {
    expect(read(logo.LOGO_FILE)).toBe(logo.logoSvg());
    const png = fs.readFileSync(path.join(repoRoot, "sdk/dotnet/logo.png"));
    expect(png.equals(logo.logoPng(logo.DOTNET_ICON_SIZE))).toBe(true);
    expect(png.subarray(1, 4).toString("ascii")).toBe("PNG");
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([128, 128]);
    // The PNG is the logo: the indigo square's corner pixel is transparent, its middle indigo, a bar white.
    const pixel = (x: number, y: number): number[] => [...png.subarray(8 + 25 + 8 + 2 + 5 + y * (128 * 4 + 1) + 1 + x * 4).subarray(0, 4)];
    expect(pixel(0, 0)).toEqual([0, 0, 0, 0]);
    expect(pixel(64, 20)).toEqual([0x37, 0x30, 0xa3, 255]);
    expect(pixel(90, 80)).toEqual([255, 255, 255, 255]);
  });

  it("is carried by every SDK's package files", () => {
    const npm = JSON.parse(read("sdk/nodejs/package.json")) as Record<string, unknown>;
    expect(npm).toMatchObject({ author: "pulumi-analytics", homepage: identity.homepage, repository: identity.repository, keywords: schema.keywords });
    const pyproject = read("sdk/python/pyproject.toml");
    expect(pyproject).toContain('authors = [{ name = "pulumi-analytics" }]');
    expect(pyproject).toContain(`Homepage = "${identity.homepage}"`);
    expect(pyproject).toContain('keywords = ["pulumi", "analytics", "category/database", "kind/native"]');
    expect(pyproject).toContain('readme = "README.md"');
    expect(read("sdk/python/README.md")).toContain(identity.homepage);
    const csproj = read("sdk/dotnet/PulumiAnalytics.Analytics.csproj");
    expect(csproj).toContain("<Authors>pulumi-analytics</Authors>");
    expect(csproj).toContain(`<PackageProjectUrl>${identity.homepage}</PackageProjectUrl>`);
    const pom = read("sdk/java/pom.xml");
    expect(pom).toContain("<groupId>io.github.pulumi-analytics</groupId>\n  <artifactId>analytics</artifactId>");
    for (const element of ["name", "description", "url", "licenses", "developers", "scm"]) expect(pom, element).toMatch(new RegExp(`<${element}>[\\s\\S]+?</${element}>`));
    for (const plugin of ["maven-source-plugin", "maven-javadoc-plugin"]) expect(pom).toMatch(new RegExp(`<artifactId>${plugin}</artifactId>\\s*<version>\\d`));
    expect(fs.existsSync(path.join(repoRoot, "sdk/java/src/main/java/io/github/pulumi_analytics/analytics/DataSource.java"))).toBe(true);
  });
});

describe("the example programs", () => {
  const temps: string[] = [];
  afterAll(() => temps.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

  it("are in each resource's description, in every language, as Pulumi's docs generator reads them", () => {
    for (const resource of Object.values(schema.resources)) {
      expect(resource.description).toMatch(/\{\{% examples %\}\}\n## Example Usage\n\{\{% example %\}\}\n### .+\n[\s\S]*\{\{% \/example %\}\}\n\{\{% \/examples %\}\}$/);
      for (const program of examples.EXAMPLE_PROGRAMS) expect(resource.description).toContain(`\`\`\`${program.language}\n${read(program.file).trimEnd()}\n\`\`\``);
    }
  });

  it("examples/typescript is pulumi convert's TypeScript of examples/yaml (run node tools/example-programs.js after changing it)", async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-converted-check-"));
    temps.push(out);
    const files = await examples.convertYamlExample(path.join(out, "typescript"), toolchain, toolchainModule);
    expect(files).toContain("index.ts");
    for (const file of files) expect(read(`${examples.CONVERTED_DIR}/${file}`), file).toBe(fs.readFileSync(path.join(out, "typescript", file), "utf8"));
    expect(read(`${examples.CONVERTED_DIR}/index.ts`)).toContain("type: analytics.DataSourceType.Direct");
  }, 300_000);

  it("examples/typescript type-checks against the generated Node.js SDK, and a value the enum lacks does not", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-ts-example-"));
    temps.push(dir);
    const tsc = (file: string) => {
      const compilerOptions = { strict: true, noEmit: true, module: "commonjs", moduleResolution: "node", target: "es2020", skipLibCheck: true, types: [], baseUrl: repoRoot,
        paths: { "@pulumi-analytics/analytics": ["sdk/nodejs/index.ts"], "@pulumi/pulumi": ["node_modules/@pulumi/pulumi"] } };
      fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: [file] }));
      return spawnSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", path.join(dir, "tsconfig.json")], { encoding: "utf8" });
    };
    const good = tsc(path.join(repoRoot, examples.CONVERTED_DIR, "index.ts"));
    expect(good.stdout + good.stderr).toBe("");
    expect(good.status).toBe(0);
    fs.writeFileSync(path.join(dir, "wrong.ts"), read(`${examples.CONVERTED_DIR}/index.ts`).replace("analytics.DataSourceType.Direct", "analytics.DataSourceType.Indirect"));
    const wrong = tsc(path.join(dir, "wrong.ts"));
    expect(wrong.status).not.toBe(0);
    expect(wrong.stdout).toMatch(/wrong\.ts\(\d+,\d+\): error TS2551: Property 'Indirect' does not exist on type '\{ readonly Direct: "direct"; \}'/);
  }, 120_000);
});

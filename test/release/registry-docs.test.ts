/**
 * The Pulumi Registry's pages of the native provider, as codegen/docs renders them
 * (tools/render-docs.js; gen-docs is built into the project cache on first use, about two minutes):
 * every resource has its page, and each page shows, in every language the generator renders,
 * every input with its description, every output that is not an input with its own (the others
 * are listed as inputs), and every example of the schema's `{{% examples %}}` block in each
 * language it has. The expectations come from the schema (test/support/registry-pages.ts),
 * and a fixture schema with examples, with its pages broken one way at a time, proves each check can fail.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pinnedGoToolCacheKey, resolvePinnedGoTool } from "../../toolchain/src/pulumi-cli";
import { DOC_LANGUAGES, expectedPages, missingFromPages, schemaExamples, type PackageSchema } from "../support/registry-pages";
import { GEN_DOCS, SCHEMA_FILE, renderDocs } from "../../tools/render-docs.js";

const BUILD_TIMEOUT = 20 * 60_000;
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
const tempDir = (): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "registry-docs-"));
  temps.push(dir);
  return dir;
};

/** The pages of `schema` (a file, or a schema written to one), rendered into a fresh folder: path to text. */
async function render(schema: string | PackageSchema): Promise<Map<string, string>> {
  const file = typeof schema === "string" ? schema : path.join(tempDir(), "schema.json");
  if (typeof schema !== "string") fs.writeFileSync(file, JSON.stringify(schema));
  const out = path.join(tempDir(), "pages");
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const written = await renderDocs(file, out, { resolveTool: resolvePinnedGoTool, log });
  return new Map(written.map((page) => [page, fs.readFileSync(path.join(out, page), "utf8")]));
}

const committed = JSON.parse(fs.readFileSync(SCHEMA_FILE, "utf8")) as PackageSchema;

describe("the Registry's pages of src/native/schema.json", () => {
  let pages: Map<string, string>;
  beforeAll(async () => {
    pages = await render(SCHEMA_FILE);
  }, BUILD_TIMEOUT);

  it("are a page per resource, the provider's among them, beside the package's index", () => {
    const expected = expectedPages(committed).map((page) => page.path);
    expect(expected).toEqual(["provider/_index.md", ...Object.keys(committed.resources).map((token) => `${token.split(":")[2]!.toLowerCase()}/_index.md`)]);
    expect([...pages.keys()].sort()).toEqual(["_index.md", ...expected].sort());
  });

  it(`leave out no input, output or example, in ${DOC_LANGUAGES.map((l) => l.name).join(", ")}`, () => {
    const expected = expectedPages(committed);
    expect(expected.flatMap((page) => page.inputs).length).toBeGreaterThan(20);
    expect(expected.flatMap((page) => page.outputs).length).toBeGreaterThan(15);
    for (const resource of Object.values(committed.resources)) expect(schemaExamples(resource.description ?? "").length).toBeGreaterThan(0);
    expect(missingFromPages(committed, (page) => pages.get(page))).toEqual([]);
  });

  it("are the same bytes on every run", async () => {
    expect(await render(SCHEMA_FILE)).toEqual(pages);
  });

  it("are built by gen-docs of tools/pinned/pulumi-docsgen, on the pkg/v3 release it is named for", () => {
    const goMod = fs.readFileSync(path.join(GEN_DOCS.moduleDir, "go.mod"), "utf8");
    expect(goMod).toMatch(new RegExp(`^require github\\.com/pulumi/pulumi/pkg/v3 v${GEN_DOCS.version.replace(/\./g, "\\.")}$`, "m"));
    expect(fs.readFileSync(path.join(GEN_DOCS.moduleDir, "go.sum"), "utf8")).toContain(`github.com/pulumi/pulumi/pkg/v3 v${GEN_DOCS.version} h1:`);
  });

  it("come from a cache entry of gen-docs' own, keyed by its go.mod, go.sum and main.go", () => {
    const files = ["go.mod", "go.sum", path.join("gen-docs", "main.go")];
    const copy = (): string => {
      const dir = tempDir();
      for (const file of files) fs.cpSync(path.join(GEN_DOCS.moduleDir, file), path.join(dir, file));
      return dir;
    };
    const key = pinnedGoToolCacheKey(GEN_DOCS);
    expect(key).toMatch(new RegExp(`^gen-docs-v${GEN_DOCS.version.replace(/\./g, "\\.")}-${process.platform}-${process.arch}-[0-9a-f]{12}$`));
    expect(pinnedGoToolCacheKey({ ...GEN_DOCS, moduleDir: copy() })).toBe(key);
    for (const file of files) {
      const changed = copy();
      fs.appendFileSync(path.join(changed, file), "\n");
      expect(pinnedGoToolCacheKey({ ...GEN_DOCS, moduleDir: changed }), file).not.toBe(key);
    }
  });
});

/** Two examples for the DataSource's description: one in every language the pages render, one in two. */
const FIXTURE_EXAMPLES = [
  "{{% examples %}}",
  "## Example Usage",
  "{{% example %}}",
  "### A Postgres data source",
  "",
  ...DOC_LANGUAGES.flatMap((l) => [`\`\`\`${l.examples}`, `// ${l.name}: new DataSource("warehouse", { port: 5432 })`, "```"]),
  "{{% /example %}}",
  "{{% example %}}",
  "### An organization alone",
  "",
  ...["```typescript", 'new analytics.Organization("acme", { name: "Acme" });', "```", "```python", 'analytics.Organization("acme", name="Acme")', "```"],
  "{{% /example %}}",
  "{{% /examples %}}",
].join("\n");

const DATA_SOURCE = "analytics:index:DataSource";
const fixture: PackageSchema = structuredClone(committed);
// The fixture's examples replace any the committed description holds.
const withoutExamples = committed.resources[DATA_SOURCE]!.description!.replace(/\n*\{\{% examples %\}\}[\s\S]*?\{\{% \/examples %\}\}\n*/, "\n\n").trim();
fixture.resources[DATA_SOURCE]!.description = `${withoutExamples}\n\n${FIXTURE_EXAMPLES}`;
const where = `datasource/_index.md (${DATA_SOURCE})`;

type Break = (schema: PackageSchema, pages: Map<string, string>) => void;
/** Replaces `from` in the DataSource's page (or `page`). */
const editPage =
  (from: string | RegExp, to: string, page = "datasource/_index.md"): Break =>
  (_schema, pages) => {
    const text = pages.get(page)!;
    expect(text).toMatch(from);
    pages.set(page, text.replace(from, to));
  };
const portGo = /(<span id="port_go">[\s\S]*?<dd>)[\s\S]*?(<\/dd>)/;
const portDescription = committed.resources[DATA_SOURCE]!.inputProperties!.port!.description;

describe("the page check, on the pages of a schema with examples", () => {
  let pages: Map<string, string>;
  beforeAll(async () => {
    pages = await render(fixture);
  }, BUILD_TIMEOUT);

  it("finds nothing missing where the pages show both examples, each in the languages it has", () => {
    expect(schemaExamples(fixture.resources[DATA_SOURCE]!.description!).map((e) => [e.title, Object.keys(e.snippets).length])).toEqual([
      ["A Postgres data source", DOC_LANGUAGES.length],
      ["An organization alone", 2],
    ]);
    expect(missingFromPages(fixture, (page) => pages.get(page))).toEqual([]);
  });

  it.each<[string, Break, string]>([
    ["a page that is not there", (_s, p) => p.delete("organization/_index.md"), "organization/_index.md (analytics:index:Organization): no page"],
    [
      "a page with another title",
      editPage('title: "Organization"', 'title: "Org"', "organization/_index.md"),
      "organization/_index.md (analytics:index:Organization): not titled Organization",
    ],
    ["an input one language does not list", editPage('id="host_python"', 'id="gone_python"'), `${where} inputs: Python does not list host`],
    [
      "an input one language shows without its description",
      editPage(portGo, "$1$2"),
      `${where} inputs: Go shows port without its description "${portDescription}"`,
    ],
    ["an output one language does not list", editPage('id="lastsyncstatus_csharp"', 'id="gone_csharp"'), `${where} outputs: C# does not list lastSyncStatus`],
    ["an example that is not there", editPage("### A Postgres data source", "### Renamed"), `${where}: example "A Postgres data source" is missing`],
    ["an example without its Java snippet", editPage("// Java: new", "// Java: old"), `${where}: example "A Postgres data source" is missing its Java snippet`],
    [
      "a two-language example without its Python snippet",
      editPage('name="Acme")', 'name="Other")'),
      `${where}: example "An organization alone" is missing its Python snippet`,
    ],
    [
      "an example snippet in a language the pages do not render",
      (s) =>
        (s.resources[DATA_SOURCE]!.description = s.resources[DATA_SOURCE]!.description!.replace(
          "```python\nanalytics.",
          "```hcl\nx = 1\n```\n```python\nanalytics.",
        )),
      `${where}: example "An organization alone" has a hcl snippet, a language the pages do not render`,
    ],
  ])("finds %s", (_label, breakIt, problem) => {
    const schema = structuredClone(fixture);
    const broken = new Map(pages);
    breakIt(schema, broken);
    expect(missingFromPages(schema, (page) => broken.get(page))).toEqual([problem]);
  });
});

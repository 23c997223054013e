/**
 * What the Registry's pages of a package schema must show, read from the schema itself, and what
 * a set of rendered pages (tools/render-docs.js, codegen/docs) leaves out: for test/release/registry-docs.test.ts.
 * Pure (schema and pages in, findings out), so a table test can prove each check can fail.
 *
 * How codegen/docs lays a resource's page out, which the checks follow:
 * - `<module>/<name>/_index.md`, lower case, the `index` module at the top; the provider's at `provider/`;
 * - `### Inputs` lists every input but a constant, `### Outputs` the outputs that are not inputs (an
 *   output that is also an input is listed once, under Inputs, with the input's description);
 * - each language's list in a `<pulumi-choosable type="language" values="...">` block, each
 *   property as `<span id="<its name in the language, lower case>_<language>">` and its
 *   description, Markdown rendered to HTML, in the `<dd>` after it;
 * - the `{{% examples %}}` of the description under `<pulumi-examples>`: each example's `###` title,
 *   then a choosable block per language holding its code as a fenced block.
 */

/** A language of the pages: its name, the `values` of its choosable blocks in property lists and in examples, and its property ids' suffix. */
export interface DocLanguage {
  name: string;
  properties: string;
  examples: string;
  id: string;
}

/** The languages codegen/docs 3.143.0 renders every page in. */
export const DOC_LANGUAGES: readonly DocLanguage[] = [
  { name: "TypeScript", properties: "javascript,typescript", examples: "typescript", id: "nodejs" },
  { name: "Python", properties: "python", examples: "python", id: "python" },
  { name: "Go", properties: "go", examples: "go", id: "go" },
  { name: "C#", properties: "csharp", examples: "csharp", id: "csharp" },
  { name: "Java", properties: "java", examples: "java", id: "java" },
  { name: "YAML", properties: "yaml", examples: "yaml", id: "yaml" },
];

interface PropertySpec {
  description?: string;
  const?: unknown;
}
interface ResourceSpec {
  description?: string;
  inputProperties?: Record<string, PropertySpec>;
  properties?: Record<string, PropertySpec>;
}
/** The parts of a package schema the pages are checked against. */
export interface PackageSchema {
  name: string;
  provider: ResourceSpec;
  resources: Record<string, ResourceSpec>;
}

export interface Property {
  name: string;
  description: string;
}
export interface Example {
  title: string;
  /** Code by the language tag of its fence. */
  snippets: Record<string, string>;
}
/** What one resource's page must hold. */
export interface ExpectedPage {
  token: string;
  title: string;
  path: string;
  inputs: Property[];
  /** The outputs that are not inputs (the others are listed, and so checked, as inputs). */
  outputs: Property[];
  examples: Example[];
}

/** The page's path: `datasource/_index.md` for `analytics:index:DataSource`. */
export function pagePath(token: string): string {
  if (token.startsWith("pulumi:providers:")) return "provider/_index.md";
  const [, module = "", name = ""] = token.split(":");
  const top = module.split("/")[0]!;
  return [top === "index" ? "" : top, name.toLowerCase(), "_index.md"].filter(Boolean).join("/");
}

const described = (properties: Record<string, PropertySpec> = {}, keep: (name: string, p: PropertySpec) => boolean = () => true): Property[] =>
  Object.entries(properties)
    .filter(([name, p]) => keep(name, p))
    .map(([name, p]) => ({ name, description: p.description ?? "" }));

/** The `{{% example %}}` sections of a description's `{{% examples %}}` block, each with its `###` title and fenced snippets. */
export function schemaExamples(description: string): Example[] {
  const block = /\{\{% examples %\}\}([\s\S]*?)\{\{% \/examples %\}\}/.exec(description)?.[1] ?? "";
  return [...block.matchAll(/\{\{% example %\}\}([\s\S]*?)\{\{% \/example %\}\}/g)].map(([, body = ""]) => ({
    title: /^### (.+)$/m.exec(body)?.[1]?.trim() ?? "",
    snippets: Object.fromEntries([...body.matchAll(/^```(\S+)\n([\s\S]*?)^```$/gm)].map(([, language, code]) => [language!, code!])),
  }));
}

/** Every page the schema's resources (the provider among them) must have, with what each must show. */
export function expectedPages(schema: PackageSchema): ExpectedPage[] {
  const entries: [string, ResourceSpec][] = [[`pulumi:providers:${schema.name}`, schema.provider], ...Object.entries(schema.resources)];
  return entries.map(([token, resource]) => {
    const inputs = resource.inputProperties ?? {};
    return {
      token,
      title: token.startsWith("pulumi:providers:") ? "Provider" : token.split(":")[2]!,
      path: pagePath(token),
      inputs: described(inputs, (_, p) => p.const === undefined),
      outputs: described(resource.properties, (name) => !(name in inputs)),
      examples: schemaExamples(resource.description ?? ""),
    };
  });
}

/** Text of Markdown or of HTML, for comparing a description with what a page shows: no markup, entities decoded, spaces collapsed. */
export function plainText(text: string): string {
  return text
    .replace(/<[^>]+>/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[`*]/g, "")
    .replace(/&#34;|&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();
}

/** The text under `### heading`, up to the next `##` or `###` heading. */
export function section(page: string, heading: string): string {
  const start = page.search(new RegExp(`^### ${heading}$`, "m"));
  if (start < 0) return "";
  const rest = page.slice(start + heading.length + 4);
  const end = rest.search(/^#{2,3} /m);
  return end < 0 ? rest : rest.slice(0, end);
}

/** The content of the choosable blocks for `values` in `text`, joined. */
export function choosable(text: string, values: string): string {
  const blocks = text.split(`<pulumi-choosable type="language" values="${values}">`).slice(1);
  return blocks.map((block) => block.split("</pulumi-choosable>")[0]).join("\n");
}

/** The properties a language's list shows: the name of each (lower case, without `_`) to its description's text. */
export function listedProperties(list: string, language: DocLanguage): Map<string, string> {
  const entries = [...list.matchAll(/<span id="([^"]+)">[\s\S]*?<\/dt>\s*<dd>([\s\S]*?)<\/dd>/g)];
  const suffix = `_${language.id}`;
  return new Map(entries.filter(([, id]) => id!.endsWith(suffix)).map(([, id, dd]) => [id!.slice(0, -suffix.length).replace(/_/g, ""), plainText(dd!)]));
}

/** Where a property list of one page in one language leaves a property out or shows it without its description. */
function propertyProblems(where: string, list: string, properties: Property[], language: DocLanguage): string[] {
  const listed = listedProperties(choosable(list, language.properties), language);
  return properties.flatMap(({ name, description }) => {
    const shown = listed.get(name.toLowerCase());
    if (shown === undefined) return [`${where}: ${language.name} does not list ${name}`];
    return shown.includes(plainText(description)) ? [] : [`${where}: ${language.name} shows ${name} without its description "${description}"`];
  });
}

/** Where a page leaves out an example's title, or a snippet of it in a language the pages render or at all. */
function exampleProblems(where: string, page: string, examples: Example[]): string[] {
  const rendered = page.split("<pulumi-examples>")[1]?.split("</pulumi-examples>")[0] ?? "";
  return examples.flatMap(({ title, snippets }) => {
    const heading = `### ${title}`;
    const at = rendered.indexOf(`\n${heading}\n`);
    if (at < 0) return [`${where}: example "${title}" is missing`];
    const own = rendered.slice(at + heading.length + 2).split(/^### /m)[0]!;
    return Object.entries(snippets).flatMap(([tag, code]) => {
      const language = DOC_LANGUAGES.find((l) => l.examples === tag);
      if (!language) return [`${where}: example "${title}" has a ${tag} snippet, a language the pages do not render`];
      return choosable(own, tag).includes(`\`\`\`${tag}\n${code}\`\`\``) ? [] : [`${where}: example "${title}" is missing its ${language.name} snippet`];
    });
  });
}

/** Everything the rendered pages (path to text; undefined when absent) leave out of what the schema says. */
export function missingFromPages(schema: PackageSchema, readPage: (path: string) => string | undefined): string[] {
  return expectedPages(schema).flatMap((expected) => {
    const page = readPage(expected.path);
    const where = `${expected.path} (${expected.token})`;
    if (page === undefined) return [`${where}: no page`];
    if (!page.includes(`\ntitle: "${expected.title}"\n`)) return [`${where}: not titled ${expected.title}`];
    const inputs = section(page, "Inputs");
    const outputs = section(page, "Outputs");
    return [
      ...DOC_LANGUAGES.flatMap((language) => [
        ...propertyProblems(`${where} inputs`, inputs, expected.inputs, language),
        ...propertyProblems(`${where} outputs`, outputs, expected.outputs, language),
      ]),
      ...exampleProblems(where, page, expected.examples),
    ];
  });
}

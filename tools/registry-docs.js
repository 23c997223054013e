#!/usr/bin/env node
// @ts-check
/**
 * The two pages the Pulumi Registry takes from a provider's repository, docs/_index.md (overview
 * and example) and docs/installation-configuration.md (packages, plugin, configuration), written
 * from the package schema (src/native/schema.json: names, version, descriptions), the provider's
 * settings in src/kinds (built, dist/kinds) and the example programs (tools/example-programs.js).
 * Nothing in them is kept by hand: test/registry.test.ts fails when the committed pages differ.
 * Usage: npm run build && node tools/registry-docs.js   (writes both pages)
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { EXAMPLE_PROGRAMS, EXAMPLE_TITLE, programText } = require("./example-programs.js");
const { ROOT, projectIdentity, readManifest } = require("./project-identity.js");

/** @typedef {import("./generate-schema.js").PackageSchema} PackageSchema */
/** @typedef {typeof import("../src/kinds")} Kinds The built kind specs (dist/kinds). */
/** @typedef {import("../src/kinds").ProviderSettingName} SettingName */

/** The pages, relative to the repository. */
const PAGES = { index: "docs/_index.md", installation: "docs/installation-configuration.md" };

/** The package schema as committed. @type {() => PackageSchema} */
const readSchema = () => JSON.parse(fs.readFileSync(path.join(ROOT, "src", "native", "schema.json"), "utf8"));

/** A page's front matter, as the Registry reads it. @type {(title: string, metaDesc: string) => string} */
const frontMatter = (title, metaDesc) => ["---", `title: ${title}`, `meta_desc: ${metaDesc}`, "layout: package", "---", ""].join("\n");

/** The example in every language, in the Registry's language chooser. */
function exampleChooser() {
  const languages = EXAMPLE_PROGRAMS.map((p) => p.language).join(",");
  const panes = EXAMPLE_PROGRAMS.map((p) => [`{{% choosable language ${p.language} %}}`, "", `\`\`\`${p.language}`, programText(p), "```", "", "{{% /choosable %}}", ""].join("\n"));
  return [`{{< chooser language "${languages}" >}}`, "", ...panes, "{{< /chooser >}}"].join("\n");
}

/**
 * docs/_index.md: what the package is, its resources, and the example.
 * @param {PackageSchema} [schema] @param {Kinds} [kinds]
 */
function indexPage(schema = readSchema(), kinds = require(path.join(ROOT, "dist", "kinds"))) {
  const resources = kinds.allKindSpecs().map((s) => `\`${s.typeName}\``).join(" and ");
  return [
    frontMatter(schema.displayName, `Provides an overview of the ${schema.displayName} provider for Pulumi.`),
    `The ${schema.displayName} provider for Pulumi declares objects of the data-analytics service as code: ${resources}, in every Pulumi language.`,
    "",
    "The service's API can only create objects: every change to an input replaces the object, and the replaced or destroyed one stays in the service (the CLI names it).",
    "",
    "## Example",
    "",
    `${EXAMPLE_TITLE}, with the database's host, user and password from the stack's config:`,
    "",
    exampleChooser(),
    "",
  ].join("\n");
}

/**
 * The package each language installs, with the names the schema gives them.
 * @param {PackageSchema} schema @param {import("./project-identity.js").ProjectIdentity} identity
 */
function packageList(schema, identity) {
  const { language } = schema;
  return [
    `* JavaScript/TypeScript: \`${language.nodejs.packageName}\``,
    `* Python: \`${language.python.packageName}\``,
    `* Go: \`${language.go.importBasePath}\``,
    `* .NET: \`${language.csharp.rootNamespace}.${schema.name[0].toUpperCase()}${schema.name.slice(1)}\``,
    `* Java: \`${identity.javaGroupId}:${schema.name}\``,
  ].join("\n");
}

/**
 * The provider's settings of src/kinds, name and spec, in the spec's order.
 * @param {Kinds} kinds
 * @returns {[SettingName, import("../src/kinds").ProviderSettingSpec][]}
 */
function settingEntries(kinds) {
  const names = /** @type {SettingName[]} */ (Object.keys(kinds.providerConfigSpec));
  return names.map((name) => [name, kinds.providerConfigSpec[name]]);
}

/**
 * The configuration table: one row per provider setting of src/kinds, its stack config key, environment variable and description.
 * @param {PackageSchema} schema @param {Kinds} kinds
 */
function configurationTable(schema, kinds) {
  const rows = settingEntries(kinds).map(([name, setting]) => {
    const secret = setting.secret ? " Set it with `--secret`." : "";
    return `| \`${name}\` | \`${kinds.configKey(name)}\` | \`${setting.env}\` | ${schema.config.variables[name].description}${secret} |`;
  });
  return ["| Option | Stack config | Environment variable | Description |", "| --- | --- | --- | --- |", ...rows].join("\n");
}

/** The `pulumi config set` and `export` lines that set every setting. @param {Kinds} kinds */
function configurationCommands(kinds) {
  /** @type {Partial<Record<SettingName, string>>} */
  const examples = { baseUrl: "https://analytics.example.com", apiKey: "<your API key>" };
  const entries = settingEntries(kinds);
  const value = (/** @type {SettingName} */ name) => examples[name] ?? `<${name}>`;
  const config = entries.map(([name, s]) => `pulumi config set${s.secret ? " --secret" : ""} ${kinds.configKey(name)} ${value(name)}`);
  const env = entries.map(([name, s]) => `export ${s.env}=${JSON.stringify(value(name))}`);
  return { config, env };
}

/**
 * docs/installation-configuration.md: the packages, the plugin, the settings.
 * @param {PackageSchema} [schema] @param {Kinds} [kinds] @param {{ repository: { url: string } }} [manifest]
 */
function installationPage(schema = readSchema(), kinds = require(path.join(ROOT, "dist", "kinds")), manifest = readManifest()) {
  const identity = projectIdentity(manifest);
  const { version } = schema;
  const release = `${identity.repository}/releases/tag/v${version}`;
  const commands = configurationCommands(kinds);
  return [
    frontMatter(`${schema.displayName} Installation & Configuration`, `Information on how to install the ${schema.displayName} provider.`),
    "## Installation",
    "",
    `The ${schema.displayName} provider is available as a package in all Pulumi languages:`,
    "",
    packageList(schema, identity),
    "",
    `Each release publishes these packages as files of its GitHub release ([v${version}](${release})), not in the languages' package registries; the project's README (${identity.homepage}#install) has the command that installs each one from there.`,
    "",
    "### Provider binary",
    "",
    `A program on one of these packages needs no install step: on first use the engine downloads the plugin \`pulumi-resource-${schema.name}\` of the package's version from \`${schema.pluginDownloadURL}\`. To install it yourself:`,
    "",
    "```bash",
    `pulumi plugin install resource ${schema.name} ${version} --server ${schema.pluginDownloadURL.replace("${VERSION}", version)}`,
    "```",
    "",
    "## Configuration",
    "",
    "The provider reads these settings from the stack's config, then from the environment; an explicit provider takes them as arguments:",
    "",
    configurationTable(schema, kinds),
    "",
    "With `pulumi config set`:",
    "",
    "```bash",
    ...commands.config,
    "```",
    "",
    "Or with environment variables, which keep the key out of the stack's state:",
    "",
    "```bash",
    ...commands.env,
    "```",
    "",
  ].join("\n");
}

module.exports = { PAGES, indexPage, installationPage };

if (require.main === module) {
  fs.writeFileSync(path.join(ROOT, PAGES.index), indexPage());
  fs.writeFileSync(path.join(ROOT, PAGES.installation), installationPage());
  process.stdout.write(`wrote ${PAGES.index}, ${PAGES.installation}\n`);
}

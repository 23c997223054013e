#!/usr/bin/env node
// @ts-check
/**
 * Generates the native provider's Pulumi package schema (src/native/schema.json) from the kind
 * specs: field sets and types from the built specs (dist/kinds), every description from the doc
 * comment the same field carries in src/kinds (an input's followed by the rules its spec sets), an
 * enum type per input with a closed set of values, each resource's description from its class in
 * src/resources followed by the example programs (tools/example-programs.js), and the publisher's
 * metadata from package.json (tools/lib/project-identity.js). Nothing in the schema is written by
 * hand; test/schema.test.ts fails when the committed file and this output differ.
 * Usage: npm run build && node tools/generate-schema.js   (writes the file)
 *        ANALYTICS_PLUGIN_DOWNLOAD_URL=https://mirror.example.com/analytics/ node tools/generate-schema.js
 *        (a mirror's download address instead of the project's releases: for an internal build, not to commit)
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const ts = require("typescript");
const { examplesSection } = require("./example-programs.js");
const { projectIdentity } = require("./lib/project-identity.js");

const ROOT = path.join(__dirname, "..");
/** @typedef {typeof import("../src/kinds")} Kinds The built kind specs (dist/kinds). */
/** @typedef {import("../src/kinds").KindSpec} KindSpec */
/** @typedef {Kinds & { STATUS_OBSERVED_AT: string }} KindsWithStatus The kind specs and the name of the status output every resource has. */
/** @typedef {{ type: string, secret?: true, default?: boolean }} SchemaField A field of a kind spec or a provider setting, as a schema property shows it. */
/** @typedef {{ version: string, description: string, license: string, repository: { url: string } }} Manifest What the schema takes from package.json. */
/** @typedef {ReturnType<typeof generateSchema>} PackageSchema The package schema this script writes. */

/** Where the generated schema is committed; the plugin ships it from dist/native. */
const SCHEMA_FILE = path.join(ROOT, "src", "native", "schema.json");

/** The doc comment text of a node, its wrapped lines joined (paragraphs kept); "" when it has none. @param {import("typescript").Node} node */
function docOf(node) {
  const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  const text = docs
    .map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? "")
    .join("\n\n")
    .trim();
  return text.replace(/([^\n])\n(?=[^\n])/g, "$1 ");
}

/** Parses a source file of the repository. @param {string} relative */
function parse(relative) {
  const file = path.join(ROOT, relative);
  return ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
}

/**
 * The object literal that `name` is declared as (`export const name = { ... }`), in `source`.
 * @param {import("typescript").SourceFile} source @param {string} name
 * @returns {import("typescript").ObjectLiteralExpression}
 */
function declaredObject(source, name) {
  /** @type {import("typescript").ObjectLiteralExpression | undefined} */
  let found;
  source.forEachChild(function visit(/** @type {import("typescript").Node} */ node) {
    if (ts.isVariableDeclaration(node) && node.name.getText() === name && node.initializer) {
      let init = node.initializer;
      while (ts.isSatisfiesExpression(init) || ts.isAsExpression(init)) init = init.expression;
      if (ts.isObjectLiteralExpression(init)) found = init;
    }
    node.forEachChild(visit);
  });
  if (!found) throw new Error(`${source.fileName}: no object literal named ${name}`);
  return found;
}

/**
 * The doc comments of an object literal's properties (or of the object under `key`), by property name.
 * @param {import("typescript").ObjectLiteralExpression} object @param {string} [key]
 * @returns {Record<string, string>}
 */
function propertyDocs(object, key) {
  let target = object;
  if (key) {
    const prop = object.properties.find((p) => ts.isPropertyAssignment(p) && p.name.getText() === key);
    if (!prop || !ts.isPropertyAssignment(prop) || !ts.isObjectLiteralExpression(prop.initializer)) throw new Error(`no object under ${key}`);
    target = prop.initializer;
  }
  return Object.fromEntries(target.properties.map((p) => [p.name?.getText() ?? "", docOf(p)]));
}

/** The doc comment of the class `name` declared in `source`. @param {import("typescript").SourceFile} source @param {string} name */
function classDoc(source, name) {
  /** @type {string | undefined} */
  let doc;
  source.forEachChild((node) => {
    if (ts.isClassDeclaration(node) && node.name?.text === name) doc = docOf(node);
  });
  if (doc === undefined) throw new Error(`${source.fileName}: no class ${name}`);
  return doc;
}

/**
 * The doc comment of the member `member` of the interface `name` declared in `source`.
 * @param {import("typescript").SourceFile} source @param {string} name @param {string} member
 */
function interfaceMemberDoc(source, name, member) {
  /** @type {string | undefined} */
  let doc;
  source.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node) || node.name.text !== name) return;
    for (const m of node.members) if (m.name?.getText() === member) doc = docOf(m);
  });
  if (doc === undefined) throw new Error(`${source.fileName}: no member ${name}.${member}`);
  return doc;
}

/** A schema property of a spec field. @param {SchemaField} field @param {string} description @param {{ replaceOnChanges?: true }} [extra] */
function property(field, description, extra = {}) {
  return {
    type: field.type,
    description,
    ...(field.secret ? { secret: true } : {}),
    ...(field.default !== undefined ? { default: field.default } : {}),
    ...extra,
  };
}

/** The schema's reference to an enum type. @type {(token: string) => { $ref: string }} */
const typeRef = (token) => ({ $ref: `#/types/${token}` });

/**
 * The schema property of an input: its doc comment followed by the rules the spec sets for it
 * (kinds.inputRules). A closed input takes its enum type or any string, so programs that pass
 * the plain value keep compiling in every language; the engine sees the same string either way.
 * @param {Kinds} kinds @param {KindSpec} spec @param {string} name @param {string | undefined} doc @param {{ replaceOnChanges?: true }} [extra]
 */
function inputProperty(kinds, spec, name, doc, extra = {}) {
  const field = spec.inputs[name];
  const description = [doc, ...kinds.inputRules(spec, name)].join(" ");
  if (field.values === undefined) return property(field, description, extra);
  const { type: _plain, ...rest } = property(field, description, extra);
  return { ...rest, oneOf: [{ type: "string" }, typeRef(enumToken(kinds, spec, name))] };
}

/** The token of a closed input's enum type, e.g. `analytics:index:DataSourceType`. @param {Kinds} kinds @param {KindSpec} spec @param {string} name */
function enumToken(kinds, spec, name) {
  return `${kinds.PULUMI_MODULE}:index:${kinds.enumTypeName(spec, name)}`;
}

/**
 * The enum types of every closed input of every kind, by token: each value named and described as the spec does.
 * @param {Kinds} kinds
 */
function enumTypes(kinds) {
  /** @type {Record<string, { type: "string", description: string, enum: { name: string, value: string, description: string }[] }>} */
  const types = {};
  for (const spec of kinds.allKindSpecs()) {
    const docs = propertyDocs(declaredObject(kindSource(spec), kindSourceFiles(spec).declaration), "inputs");
    for (const [name, field] of Object.entries(spec.inputs)) {
      if (field.values === undefined) continue;
      const values = Object.entries(field.values).map(([value, description]) => ({ name: kinds.enumValueName(value), value, description }));
      types[enumToken(kinds, spec, name)] = {
        type: "string",
        description: `${docs[name]} The values the API allows for a ${spec.noun}'s \`${name}\`.`,
        enum: values,
      };
    }
  }
  return types;
}

/**
 * Where the doc comments of a kind are read from: kind `dataSource` is declared as `dataSourceSpec`
 * in src/kinds/data-source.ts, and its class (whose doc comment is the resource's description) in
 * src/resources/data-source.ts. Paths relative to the repository, with `/`.
 * @param {Pick<KindSpec, "kind">} spec
 */
function kindSourceFiles(spec) {
  return { spec: `src/kinds/${kebab(spec.kind)}.ts`, declaration: `${spec.kind}Spec`, resource: `src/resources/${kebab(spec.kind)}.ts` };
}

/** The parsed spec file of a kind ({@link kindSourceFiles}). @param {KindSpec} spec */
function kindSource(spec) {
  return parse(kindSourceFiles(spec).spec);
}

/** The schema of one kind's resource. @param {KindSpec} spec @param {KindsWithStatus} kinds @param {string} statusDoc */
function resourceSchema(spec, kinds, statusDoc) {
  const files = kindSourceFiles(spec);
  const object = declaredObject(kindSource(spec), files.declaration);
  const inputDocs = propertyDocs(object, "inputs");
  const outputDocs = propertyDocs(object, "outputs");
  /** @type {Record<string, ReturnType<typeof inputProperty>>} */
  const inputProperties = {};
  for (const name of Object.keys(spec.inputs)) inputProperties[name] = inputProperty(kinds, spec, name, inputDocs[name], { replaceOnChanges: true });
  /** @type {Record<string, ReturnType<typeof property>>} */
  const properties = {};
  for (const [name, field] of Object.entries(spec.outputs)) if (name !== "id") properties[name] = property(field, outputDocs[name]);
  properties[kinds.STATUS_OBSERVED_AT] = { type: "string", description: statusDoc };
  // Inputs the answer does not echo keep their declared value; outputs stay plain types, so reading them never changes type.
  for (const [name, field] of Object.entries(spec.inputs))
    if (!(name in properties)) properties[name] = property(field, inputProperty(kinds, spec, name, inputDocs[name]).description);
  const required = Object.entries(spec.outputs)
    .filter(([name, field]) => name !== "id" && !field.nullable)
    .map(([name]) => name);
  const resources = parse(files.resource);
  return {
    description: `${classDoc(resources, spec.typeName)}\n\n${examplesSection()}`,
    properties,
    required,
    inputProperties,
    requiredInputs: Object.entries(spec.inputs)
      .filter(([, field]) => field.required)
      .map(([name]) => name),
  };
}

/** `dataSource` → `data-source`. @param {string} name */
function kebab(name) {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** Names a mirror to download the plugin from instead of the project's releases, when generating the schema (and so the SDKs). */
const DOWNLOAD_URL_VARIABLE = "ANALYTICS_PLUGIN_DOWNLOAD_URL";

/**
 * Where the engine downloads the plugin from when a program needs it: the project's release of
 * that version (the engine fills in `${VERSION}` and appends
 * `pulumi-resource-<name>-v<version>-<os>-<arch>.tar.gz`), or the mirror named by
 * `ANALYTICS_PLUGIN_DOWNLOAD_URL`.
 * @param {{ repository: { url: string } }} manifest @param {NodeJS.ProcessEnv} [env]
 */
function pluginDownloadUrl(manifest, env = process.env) {
  const mirror = env[DOWNLOAD_URL_VARIABLE];
  if (mirror !== undefined && mirror !== "") {
    if (!/^https?:\/\/[^/]/.test(mirror))
      throw new Error(`${DOWNLOAD_URL_VARIABLE} must be an http(s) URL, got a value of ${mirror.length} characters that is not.`);
    return mirror;
  }
  return `${projectIdentity(manifest).repository}/releases/download/v\${VERSION}/`;
}

/** The package schema, from the built specs in dist/kinds and the doc comments in src. */
function generateSchema() {
  /** @type {Kinds} */
  const kinds = require(path.join(ROOT, "dist", "kinds"));
  /** @type {typeof import("../src/provider-core/status-observed-at")} */
  const status = require(path.join(ROOT, "dist", "provider-core", "status-observed-at"));
  /** @type {Manifest} */
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
  const statusDoc = interfaceMemberDoc(
    parse(path.join("src", "resources", "status-observed-at-output.ts")),
    "StatusObservedAtOutput",
    status.STATUS_OBSERVED_AT,
  );
  const configDocs = propertyDocs(declaredObject(parse(path.join("src", "kinds", "provider-config.ts")), "providerConfigSpec"));
  const settings = Object.fromEntries(Object.entries(kinds.providerConfigSpec).map(([name, field]) => [name, property(field, configDocs[name])]));
  /** @type {Record<string, ReturnType<typeof resourceSchema>>} */
  const resources = {};
  for (const spec of kinds.allKindSpecs())
    resources[kinds.nativeTypeToken(spec)] = resourceSchema(spec, { ...kinds, STATUS_OBSERVED_AT: status.STATUS_OBSERVED_AT }, statusDoc);
  const identity = projectIdentity(manifest);
  return {
    name: kinds.PULUMI_MODULE,
    displayName: "Analytics",
    version: manifest.version,
    description: manifest.description,
    keywords: ["pulumi", kinds.PULUMI_MODULE, identity.categoryKeyword, "kind/native"],
    homepage: identity.homepage,
    license: manifest.license,
    repository: identity.repository,
    publisher: identity.publisher,
    logoUrl: identity.logoUrl,
    pluginDownloadURL: pluginDownloadUrl(manifest),
    meta: { moduleFormat: "(.*)" },
    config: { variables: settings },
    provider: {
      description: "The analytics provider: where the service is and the key to create with. Each setting falls back to its environment variable.",
      inputProperties: settings,
      properties: settings,
    },
    types: enumTypes(kinds),
    resources,
    language: languageSections(kinds.PULUMI_MODULE, manifest),
  };
}

/**
 * The oldest Pulumi Python SDK the generated Python SDK accepts, and the `Requires-Python` of that
 * release's wheel: the generated SDK asks for the same interpreters, so pip never pairs it with a
 * Python its own `pulumi` floor refuses (test/languages/sdks.test.ts reads the wheel's metadata to hold it).
 */
const PYTHON_SDK_FLOOR = { pulumi: "3.165.0", requiresPython: ">=3.9" };

/**
 * What each SDK generator needs to name the package it writes (tools/generate-sdks.js writes them
 * to sdk/): the Go import path (the module sdk/go.mod declares), the .NET root namespace, the
 * Python distribution and the npm name of the generated Node.js SDK (not the npm package this
 * repository publishes, which does not ship sdk/).
 * @param {string} name @param {Manifest} manifest
 */
function languageSections(name, manifest) {
  const identity = projectIdentity(manifest);
  return {
    csharp: { rootNamespace: "PulumiAnalytics", respectSchemaVersion: true },
    go: { importBasePath: `${identity.goRepository}/sdk/go/${name}`, respectSchemaVersion: true },
    java: { basePackage: identity.javaBasePackage },
    nodejs: { packageName: `@${identity.owner}/${name}`, respectSchemaVersion: true },
    python: {
      packageName: `pulumi_${name}`,
      readme: pythonReadme(manifest, identity),
      respectSchemaVersion: true,
      pyproject: { enabled: true },
      requires: { pulumi: `>=${PYTHON_SDK_FLOOR.pulumi},<4.0.0` },
      pythonRequires: PYTHON_SDK_FLOOR.requiresPython,
    },
  };
}

/**
 * The Python SDK's README (its wheel's long description, which PyPI shows): what the package is
 * and where its documentation is.
 * @param {Manifest} manifest @param {import("./lib/project-identity.js").ProjectIdentity} identity
 */
function pythonReadme(manifest, identity) {
  return [
    `# pulumi_analytics`,
    "",
    manifest.description,
    "",
    "The Python SDK of the analytics provider for Pulumi (`pulumi-resource-analytics`): the resources `Organization` and `DataSource`, generated from the provider's package schema.",
    "",
    `Installation, configuration and examples: ${identity.homepage}#readme. Source and issues: ${identity.repository}.`,
    "",
  ].join("\n");
}

/** The schema as committed: two-space JSON with a final newline. */
function schemaText() {
  return `${JSON.stringify(generateSchema(), null, 2)}\n`;
}

module.exports = { SCHEMA_FILE, DOWNLOAD_URL_VARIABLE, PYTHON_SDK_FLOOR, generateSchema, kindSourceFiles, pluginDownloadUrl, schemaText };

if (require.main === module) {
  fs.writeFileSync(SCHEMA_FILE, schemaText());
  process.stdout.write(`wrote ${path.relative(process.cwd(), SCHEMA_FILE)}\n`);
}

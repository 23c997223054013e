#!/usr/bin/env node
// @ts-check
/**
 * The example program every language's documentation shows: the runnable projects of examples/,
 * one per language, and examples/typescript, which is `pulumi convert --from yaml --language
 * typescript` of examples/yaml, set to run compiled to JavaScript (the converters of the pinned CLI's hosts; C# has none here, and
 * the Go, Python and Java projects are the ones their tests run). tools/generate-schema.js puts
 * them in each resource's description as Pulumi's docs generator reads them ({{% examples %}}),
 * tools/registry-docs.js in docs/_index.md; test/languages/registry.test.ts converts examples/yaml again and
 * fails when examples/typescript differs.
 * Usage: npm run build && node tools/example-programs.js   (writes examples/typescript)
 */
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { ROOT } = require("./lib/project-identity.js");

/** @typedef {{ language: string, label: string, file: string }} ExampleProgram */
/** @typedef {typeof import("@pulumi-analytics/toolchain")} ToolchainModule The built toolchain (toolchain/dist), as the scripts load it. */

/** The program of each language, in the order the docs show the languages. @type {ExampleProgram[]} */
const EXAMPLE_PROGRAMS = [
  { language: "typescript", label: "TypeScript", file: "examples/typescript/index.ts" },
  { language: "python", label: "Python", file: "examples/python/__main__.py" },
  { language: "go", label: "Go", file: "examples/go/main.go" },
  { language: "csharp", label: "C#", file: "examples/csharp/Program.cs" },
  { language: "java", label: "Java", file: "examples/java/src/main/java/myproject/App.java" },
  { language: "yaml", label: "YAML", file: "examples/yaml/Pulumi.yaml" },
];

/** What the example does: its heading in the docs. */
const EXAMPLE_TITLE = "An organization with a PostgreSQL data source";

/** The folder `pulumi convert` writes the TypeScript project into. */
const CONVERTED_DIR = "examples/typescript";

/** A program's text, without a final newline. @type {(program: ExampleProgram, root?: string) => string} */
const programText = (program, root = ROOT) => fs.readFileSync(path.join(root, program.file), "utf8").replace(/\n+$/, "");

/** The examples section of a resource's description, as Pulumi's docs generator reads it: one fenced block per language. @param {string} [root] */
function examplesSection(root = ROOT) {
  const blocks = EXAMPLE_PROGRAMS.map((program) => `\`\`\`${program.language}\n${programText(program, root)}\n\`\`\``);
  return [
    "{{% examples %}}",
    "## Example Usage",
    "{{% example %}}",
    `### ${EXAMPLE_TITLE}`,
    "",
    blocks.join("\n"),
    "{{% /example %}}",
    "{{% /examples %}}",
  ].join("\n");
}

/**
 * The YAML converter, built from the module that pins the YAML language host (toolchain/go/pulumi-yaml), as a pinned Go tool of the toolchain.
 * @param {Pick<ToolchainModule, "PINNED_YAML_VERSION">} toolchainModule
 * @returns {import("@pulumi-analytics/toolchain").PinnedGoTool}
 */
function yamlConverterTool(toolchainModule) {
  return {
    name: "pulumi-converter-yaml",
    version: toolchainModule.PINNED_YAML_VERSION,
    moduleDir: path.join(ROOT, "toolchain", "go", "pulumi-yaml"),
    goPackage: "github.com/pulumi/pulumi-yaml/cmd/pulumi-converter-yaml",
    binary: "pulumi-converter-yaml",
  };
}

/**
 * Makes the converted project run as compiled JavaScript: `npm run build` (tsc, which stops at a
 * type error and then writes nothing) writes bin/, and Pulumi.yaml runs bin/index.js with the
 * Node.js host's TypeScript support off. The host would otherwise load the TypeScript compiler on
 * every preview and up, and type-check the program and the SDK with ts-node whenever they changed
 * (docs/native-provider.md).
 * @param {string} outDir
 */
function compiledToJavaScript(outDir) {
  /** @param {string} file @param {(text: string) => string} change */
  const edit = (file, change) => {
    const before = fs.readFileSync(path.join(outDir, file), "utf8");
    const after = change(before);
    if (after === before) throw new Error(`pulumi convert's ${file} changed shape: ${file} was not edited`);
    fs.writeFileSync(path.join(outDir, file), after);
  };
  edit("Pulumi.yaml", (text) => text.replace(/^runtime: nodejs\n/m, "runtime:\n  name: nodejs\n  options:\n    typescript: false\nmain: bin/index.js\n"));
  edit("package.json", (text) => {
    const { name, ...rest } = JSON.parse(text);
    return JSON.stringify({ name, scripts: { build: "tsc" }, ...rest }, null, "\t");
  });
  edit("tsconfig.json", (text) => text.replace(/^(\t+)"strict": true,\n/m, '$1"strict": true,\n$1"noEmitOnError": true,\n'));
}

/**
 * Converts examples/yaml to TypeScript into `outDir` with the toolchain's CLI, the built plugin
 * (dist/native, through a shim on PATH) answering for the package's schema. Returns the files written.
 * @param {string} outDir @param {import("@pulumi-analytics/toolchain").PulumiToolchain} toolchain
 * @param {Pick<ToolchainModule, "resolvePinnedGoTool" | "pulumiEnvironment" | "PINNED_YAML_VERSION">} toolchainModule
 * @returns {Promise<string[]>}
 */
async function convertYamlExample(outDir, toolchain, toolchainModule) {
  const converter = await toolchainModule.resolvePinnedGoTool(yamlConverterTool(toolchainModule));
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-convert-"));
  try {
    const shimDir = path.join(staging, "plugin-bin");
    fs.mkdirSync(shimDir);
    fs.writeFileSync(
      path.join(shimDir, "pulumi-resource-analytics"),
      `#!/bin/sh\nexec "${process.execPath}" "${path.join(ROOT, "dist", "native", "bin.js")}" "$@"\n`,
      { mode: 0o755 },
    );
    const source = path.join(staging, "yaml");
    fs.cpSync(path.join(ROOT, "examples", "yaml"), source, { recursive: true });
    const base = toolchainModule.pulumiEnvironment(toolchain);
    const env = { ...base, PULUMI_HOME: path.join(staging, ".pulumi"), PATH: [path.dirname(converter), shimDir, base.PATH].join(path.delimiter) };
    fs.rmSync(outDir, { recursive: true, force: true });
    execFileSync(toolchain.pulumi, ["convert", "--from", "yaml", "--language", "typescript", "--generate-only", "--out", outDir], {
      cwd: source,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    compiledToJavaScript(outDir);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return fs.readdirSync(outDir).sort();
}

module.exports = { CONVERTED_DIR, EXAMPLE_PROGRAMS, EXAMPLE_TITLE, convertYamlExample, examplesSection, programText };

if (require.main === module) {
  /** @type {ToolchainModule} */
  const toolchainModule = require(path.join(ROOT, "toolchain", "dist", "pulumi-cli.js"));
  toolchainModule
    .resolvePulumiToolchain()
    .then(async (toolchain) => {
      const staging = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-converted-"));
      try {
        const files = await convertYamlExample(staging, toolchain, toolchainModule);
        for (const file of files) {
          fs.copyFileSync(path.join(staging, file), path.join(ROOT, CONVERTED_DIR, file));
          fs.chmodSync(path.join(ROOT, CONVERTED_DIR, file), 0o644);
        }
        process.stdout.write(`wrote ${files.map((f) => `${CONVERTED_DIR}/${f}`).join(", ")}\n`);
      } finally {
        fs.rmSync(staging, { recursive: true, force: true });
      }
    })
    .catch((/** @type {unknown} */ err) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    });
}

#!/usr/bin/env node
// @ts-check
/**
 * Generates the native provider's SDKs from its package schema (src/native/schema.json) with the
 * pinned toolchain, into sdk/go, sdk/python, sdk/nodejs, sdk/dotnet and sdk/java. Nothing under
 * those directories is written by hand; test/languages/sdks.test.ts regenerates them into a temporary directory
 * and fails on any difference. sdk/go.mod and sdk/go.sum (the Go module holding sdk/go) are kept
 * by hand: `go mod tidy` in sdk/ after a change of imports.
 *
 * - Go, Python, Node.js: `pulumi package gen-sdk <schema> --language <lang>`, whose code
 *   generator in Pulumi 3.200 is each language's host (pulumi-language-go, pulumi-language-python,
 *   pulumi-language-nodejs), all built by the toolchain.
 * - C#: pulumi-language-dotnet is not built here (its module is not served by the Go module
 *   proxy), so the toolchain's `gen-dotnet` runs the same release's codegen/dotnet instead.
 * - Java: `pulumi package gen-sdk --language java --local`, whose generator is pulumi-java's
 *   host (pulumi-language-java, built by the toolchain). `--local` writes the sources and
 *   version.txt without Gradle files; sdk/java/pom.xml, written here from the schema, builds and
 *   installs it with Maven (`mvn install`), on com.pulumi:pulumi of the host's pulumi-java release.
 *
 * Usage: npm run build && node tools/generate-sdks.js [out-dir]   (default: sdk/)
 */
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { DOTNET_ICON_SIZE, logoPng } = require("./logo.js");
const { projectIdentity } = require("./lib/project-identity.js");

/** @typedef {import("./generate-schema.js").PackageSchema} PackageSchema */
/** @typedef {import("@pulumi-analytics/toolchain").PulumiToolchain} PulumiToolchain */
/** @typedef {typeof import("@pulumi-analytics/toolchain")} ToolchainModule The built toolchain (toolchain/dist). */
/** @typedef {{ artifactId: string, version: string }} MavenPlugin */

const ROOT = path.join(__dirname, "..");
const SCHEMA_FILE = path.join(ROOT, "src", "native", "schema.json");
/** The generated directories under sdk/, each replaced as a whole. */
const LANGUAGES = ["go", "python", "nodejs", "dotnet", "java"];

/** The one compile-time dependency the generated Java code has besides com.pulumi:pulumi (javax.annotation.Nullable): the generator's default, which its Gradle file would declare. */
const JSR305 = { groupId: "com.google.code.findbugs", artifactId: "jsr305", version: "3.0.2" };

/** Escapes text for an XML element. @type {(text: string) => string} */
const xml = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Where each license the schema may name is published, for the POM (Maven Central asks for its URL). @type {Record<string, string>} */
const LICENSE_URLS = { "Apache-2.0": "https://www.apache.org/licenses/LICENSE-2.0.txt" };

/**
 * The Maven plugins of the SDK's build, pinned: the jar (3.4.2 dates its entries with
 * `project.build.outputTimestamp`; Maven 3.8's default 2.4 uses the build's time), and the sources
 * and javadoc jars Maven Central asks for, both bound to `package`.
 */
const MAVEN_PLUGINS = {
  compiler: { artifactId: "maven-compiler-plugin", version: "3.13.0" },
  jar: { artifactId: "maven-jar-plugin", version: "3.4.2" },
  source: { artifactId: "maven-source-plugin", version: "3.4.0" },
  javadoc: { artifactId: "maven-javadoc-plugin", version: "3.12.0" },
};

/** One `<plugin>` of the POM, with its inner XML (executions, configuration). @type {(plugin: MavenPlugin, inner?: string) => string} */
const mavenPlugin = ({ artifactId, version }, inner = "") =>
  `      <plugin>\n        <groupId>org.apache.maven.plugins</groupId>\n        <artifactId>${artifactId}</artifactId>\n        <version>${version}</version>\n${inner}      </plugin>\n`;

/** The `<execution>` of a plugin's goal, bound to `package`. @type {(id: string, goal: string) => string} */
const packageExecution = (id, goal) =>
  `        <executions>\n          <execution>\n            <id>${id}</id>\n            <goals><goal>${goal}</goal></goals>\n          </execution>\n        </executions>\n`;

/**
 * The javadoc jar's configuration: no timestamp in the pages and a fixed footer (the default one
 * names the current year), so two builds of a commit give the same bytes; no link detection (it
 * would fetch the JDK's package list) and no doclint (the generated comments are the schema's).
 * @type {(license: string) => string}
 */
const JAVADOC_CONFIGURATION = (license) =>
  `        <configuration>\n          <notimestamp>true</notimestamp>\n          <bottom>${xml(license)}</bottom>\n          <detectJavaApiLink>false</detectJavaApiLink>\n          <doclint>none</doclint>\n          <quiet>true</quiet>\n        </configuration>\n`;

/**
 * The POM's project metadata Maven Central asks for: name, url, licenses, developers, scm.
 * @param {Pick<PackageSchema, "displayName" | "description" | "license">} schema @param {import("./lib/project-identity.js").ProjectIdentity} identity
 */
function pomMetadata({ displayName, description, license }, identity) {
  const licenseUrl = LICENSE_URLS[license];
  if (licenseUrl === undefined) throw new Error(`No license URL known for ${license}: add it to LICENSE_URLS in tools/generate-sdks.js.`);
  return `  <name>${xml(displayName)} provider for Pulumi (Java SDK)</name>
  <description>${xml(description)}</description>
  <url>${identity.homepage}</url>
  <licenses>
    <license>
      <name>${license}</name>
      <url>${licenseUrl}</url>
      <distribution>repo</distribution>
    </license>
  </licenses>
  <developers>
    <developer>
      <id>${identity.owner}</id>
      <name>${xml(identity.publisher)}</name>
      <url>https://github.com/${identity.owner}</url>
    </developer>
  </developers>
  <scm>
    <connection>scm:git:${identity.repository}.git</connection>
    <developerConnection>scm:git:ssh://git@github.com/${identity.owner}/${identity.name}.git</developerConnection>
    <url>${identity.repository}</url>
  </scm>
`;
}

/**
 * The Maven build of sdk/java: the artifact `<groupId>:<name>` (the project's own namespace,
 * tools/lib/project-identity.js) at the schema's version, compiled for Java 11 (the generator's Gradle
 * toolchain) against com.pulumi:pulumi of pulumi-java `javaSdkVersion`, which programs get with it;
 * `mvn package` writes the jar, the sources jar and the javadoc jar.
 * @param {PackageSchema} schema @param {string} javaSdkVersion @param {import("./lib/project-identity.js").ProjectIdentity} [identity]
 */
function javaPom(schema, javaSdkVersion, identity = projectIdentity()) {
  /** @type {(d: { groupId: string, artifactId: string, version: string }) => string} */
  const dependency = (d) =>
    `    <dependency>\n      <groupId>${d.groupId}</groupId>\n      <artifactId>${d.artifactId}</artifactId>\n      <version>${d.version}</version>\n    </dependency>\n`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by tools/generate-sdks.js with the SDK pulumi-language-java generates from src/native/schema.json: do not edit. -->
<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>${identity.javaGroupId}</groupId>
  <artifactId>${schema.name}</artifactId>
  <version>${schema.version}</version>
  <packaging>jar</packaging>
${pomMetadata(schema, identity)}
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.release>11</maven.compiler.release>
  </properties>

  <dependencies>
${dependency({ groupId: "com.pulumi", artifactId: "pulumi", version: javaSdkVersion })}${dependency(JSR305)}  </dependencies>

  <build>
    <plugins>
${mavenPlugin(MAVEN_PLUGINS.compiler)}${mavenPlugin(MAVEN_PLUGINS.jar)}${mavenPlugin(MAVEN_PLUGINS.source, packageExecution("attach-sources", "jar-no-fork"))}${mavenPlugin(MAVEN_PLUGINS.javadoc, packageExecution("attach-javadocs", "jar") + JAVADOC_CONFIGURATION(schema.license))}    </plugins>
  </build>
</project>
`;
}

/**
 * What the generators leave out of the package metadata, added from the schema: the publisher as
 * the npm package's author and the Python project's author, and the Python README where
 * pyproject.toml's `readme` looks for it (the generator writes it inside the package, so the
 * wheel had no long description). The .NET icon is the project's logo as PNG.
 * @param {string} staging @param {PackageSchema} schema
 */
function completeMetadata(staging, schema) {
  const nodeManifest = path.join(staging, "nodejs", "package.json");
  const manifest = JSON.parse(fs.readFileSync(nodeManifest, "utf8"));
  fs.writeFileSync(nodeManifest, `${JSON.stringify({ ...manifest, author: schema.publisher }, null, 4)}\n`);
  const python = path.join(staging, "python");
  const packageName = schema.language.python.packageName;
  fs.copyFileSync(path.join(python, packageName, "README.md"), path.join(python, "README.md"));
  const pyproject = path.join(python, "pyproject.toml");
  const text = fs.readFileSync(pyproject, "utf8");
  if (!text.startsWith("[project]\n")) throw new Error("pyproject.toml: expected to start with [project]");
  fs.writeFileSync(pyproject, text.replace("[project]\n", `[project]\n  authors = [{ name = ${JSON.stringify(schema.publisher)} }]\n`));
  fs.writeFileSync(path.join(staging, "dotnet", "logo.png"), logoPng(DOTNET_ICON_SIZE));
}

/**
 * The Node.js code generator of Pulumi 3.200 (as of 3.188), built with Go >= 1.26, writes imports
 * of the package's root modules from files of subdirectories as if those files were at the root:
 * `"./utilities"` in config/vars.ts, `"./types/input"` in types/input.ts, where `"../utilities"`
 * and `"../types/input"` are meant. It computes the path with filepath.Rel, whose result for this
 * case changed in Go 1.26 (fixed in the generator upstream in Pulumi 3.221). This rewrites every
 * `./` import of a subdirectory's file that names no file beside it but one at the package's root
 * to the path of that root file, which is what the fixed generator writes; files at the root are
 * left as they are, so the output is the same whichever Go built the host.
 * @param {string} nodeDir
 */
function fixNodeRootImports(nodeDir) {
  /** @type {(base: string) => boolean} */
  const exists = (base) => [".ts", "/index.ts"].some((ext) => fs.existsSync(`${base}${ext}`));
  for (const file of listFiles(nodeDir)) {
    if (!file.endsWith(".ts") || !file.includes("/")) continue;
    const target = path.join(nodeDir, file);
    const dir = path.dirname(target);
    const text = fs.readFileSync(target, "utf8");
    const fixed = text.replace(/(from |require\()"\.\/([^"]+)"/g, (whole, lead, name) => {
      if (exists(path.join(dir, name)) || !exists(path.join(nodeDir, name))) return whole;
      return `${lead}"${path.relative(dir, nodeDir).split(path.sep).join("/")}/${name}"`;
    });
    if (fixed !== text) fs.writeFileSync(target, fixed);
  }
}

/** Files under `dir`, relative, with `/` separators, sorted. @param {string} dir */
function listFiles(dir) {
  /** @type {string[]} */
  const out = [];
  (function walk(/** @type {string} */ rel) {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else out.push(child);
    }
  })("");
  return out.sort();
}

/**
 * Throws unless `toolchain` has the Go, Python and Java hosts and the C# generator.
 * @param {PulumiToolchain} toolchain
 * @returns {asserts toolchain is PulumiToolchain & Required<Pick<PulumiToolchain, "goLanguageHost" | "pythonLanguageHost" | "dotnetGenerator" | "javaLanguageHost">>}
 */
function requireGenerators(toolchain) {
  for (const what of /** @type {const} */ (["goLanguageHost", "pythonLanguageHost", "dotnetGenerator", "javaLanguageHost"])) {
    if (!toolchain[what]) throw new Error(`The Pulumi toolchain has no ${what}; see docs/maintainers/toolchain.md (the language hosts).`);
  }
}

/**
 * Generates the SDKs of {@link LANGUAGES} into `outDir` (sdk/go, sdk/python, ...), each directory
 * replaced whole. `toolchain` is a resolved PulumiToolchain with its Go, Python and Java hosts and
 * the C# generator; `module` is the toolchain module (toolchain/src/pulumi-cli).
 * @param {string} outDir @param {PulumiToolchain} toolchain @param {Pick<ToolchainModule, "pulumiEnvironment" | "PINNED_JAVA_VERSION">} module
 */
function generateSdks(outDir, toolchain, { pulumiEnvironment, PINNED_JAVA_VERSION }) {
  requireGenerators(toolchain);
  /** @type {PackageSchema} */
  const schema = JSON.parse(fs.readFileSync(SCHEMA_FILE, "utf8"));
  const { version } = schema;
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-sdks-"));
  const env = { ...pulumiEnvironment(toolchain), PULUMI_HOME: path.join(staging, ".pulumi") };
  try {
    for (const language of ["go", "python", "nodejs"]) {
      execFileSync(toolchain.pulumi, ["package", "gen-sdk", SCHEMA_FILE, "--language", language, "--out", staging, "--version", version], {
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
    }
    // codegen/dotnet downloads logoUrl for the icon; NuGet takes no SVG, so it gets a schema without
    // one (gen-dotnet answers the default logo's request offline) and completeMetadata writes the PNG.
    const { logoUrl: _svg, ...dotnetSchema } = schema;
    const dotnetSchemaFile = path.join(staging, "schema-dotnet.json");
    fs.writeFileSync(dotnetSchemaFile, JSON.stringify(dotnetSchema));
    execFileSync(toolchain.dotnetGenerator, [dotnetSchemaFile, path.join(staging, "dotnet"), version], { env, stdio: ["ignore", "pipe", "pipe"] });
    execFileSync(toolchain.pulumi, ["package", "gen-sdk", SCHEMA_FILE, "--language", "java", "--local", "--out", staging, "--version", version], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    fs.writeFileSync(path.join(staging, "java", "pom.xml"), javaPom(schema, PINNED_JAVA_VERSION));
    fixNodeRootImports(path.join(staging, "nodejs"));
    completeMetadata(staging, schema);
    fs.mkdirSync(outDir, { recursive: true });
    for (const language of LANGUAGES) {
      const target = path.join(outDir, language);
      fs.rmSync(target, { recursive: true, force: true });
      fs.cpSync(path.join(staging, language), target, { recursive: true });
      // The hosts write 0600 files; the committed ones are ordinary 0644 files.
      for (const file of listFiles(target)) fs.chmodSync(path.join(target, file), 0o644);
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

module.exports = { LANGUAGES, MAVEN_PLUGINS, generateSdks, javaPom, listFiles, fixNodeRootImports };

if (require.main === module) {
  /** @type {ToolchainModule} */
  const toolchainModule = require(path.join(ROOT, "toolchain", "dist", "pulumi-cli.js"));
  const outDir = path.resolve(process.argv[2] ?? path.join(ROOT, "sdk"));
  toolchainModule.resolvePulumiToolchain().then(
    (toolchain) => {
      generateSdks(outDir, toolchain, toolchainModule);
      process.stdout.write(`wrote ${LANGUAGES.map((l) => path.relative(process.cwd(), path.join(outDir, l))).join(", ")}\n`);
    },
    (/** @type {unknown} */ err) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}

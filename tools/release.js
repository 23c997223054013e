#!/usr/bin/env node
// @ts-check
/**
 * Builds every artifact of a release into one folder, then SHA256SUMS over all of them:
 * - the npm package (`npm pack`) and its SBOM (`npm sbom`, CycloneDX, runtime dependencies);
 * - the plugin: the single-file executables' archives this platform builds (tools/build-plugin-binary.js:
 *   on linux-x64, Linux x64, Linux arm64 and Windows x64; on macOS, its own), the script archive as
 *   the platform-independent fallback (tools/build-plugin-archive.js), and a CycloneDX SBOM of the
 *   packages bundled into it and of the Node.js the executables embed;
 * - the reference server (`analytics-reference-server`) as single-file executables, one archive per
 *   platform this platform builds (tools/build-reference-server-binary.js: on linux-x64, Linux x64,
 *   Linux arm64 and Windows x64; on macOS, its own), and a CycloneDX SBOM of the packages bundled
 *   into it (pg among them) and of the Node.js they embed;
 * - the reference server's container image, linux/amd64 and linux/arm64, as an OCI archive built
 *   from the Dockerfile with the Linux executables of the release's archives, and the SBOM of the
 *   Debian packages of its libraries (tools/build-reference-server-image.js; on linux-x64, with the executables);
 * - the Go SDK in the module proxy layout under go-proxy/ (tools/lib/go-module-proxy.js);
 * - the C# SDK's sources as a .tar.gz;
 * - the Python SDK's sdist and wheel (`python -m build --no-isolation`, so the interpreter given by
 *   `--python`, default `python3`, needs `build` and `setuptools`, as tools/pinned/python-env/requirements.txt pins them);
 * - CycloneDX SBOMs of the Python, Go and Java SDKs, each by its ecosystem's tool (tools/lib/release-sboms.js;
 *   the interpreter also needs `cyclonedx-bom`, Go builds cyclonedx-gomod, Maven fetches its plugin);
 * - the YAML package file `analytics-<version>.yaml`, which a YAML project copies to `sdks/analytics/`
 *   so the engine fetches the plugin from the schema's pluginDownloadURL;
 * - the Java SDK's jar, sources jar, javadoc jar and pom (Maven 3 and a JDK >= 11 on PATH);
 * - the Node.js SDK of the native types as an npm tarball (tools/lib/node-sdk-package.js).
 * Another artifact is one more entry of RELEASE_STEPS: a `run(context)` that writes its files
 * into `context.out`.
 * `--no-binary` leaves out every single-file executable (the SBOMs stay).
 * Usage: npm run release -- --out <dir> [--no-binary] [--python <interpreter>]
 */
"use strict";
const { execFileSync } = require("node:child_process");
const crypto = require("node:crypto");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { PLUGIN, ROOT, buildPluginArchive, bundlePlugin, packageVersion, writeTarGz } = require("./build-plugin-archive.js");
const { buildPluginBinaries } = require("./build-plugin-binary.js");
const { REFERENCE_SERVER, buildReferenceServerBinaries, referenceServerArchiveName, referenceServerBundle } = require("./build-reference-server-binary.js");
const { buildReferenceServerImage } = require("./build-reference-server-image.js");
const { writeGoModuleProxy } = require("./lib/go-module-proxy.js");
const { buildNodeSdkPackage } = require("./lib/node-sdk-package.js");
const { PLUGIN_LINE, nodePackage, supportedLine } = require("./lib/node-runtime.js");
const { copyJavaSdkSbom, goSdkSbom, javaSdkSbomArguments, pythonSdkSbom } = require("./lib/release-sboms.js");
const { normalizeSdist } = require("./lib/python-sdist.js");

/** What every step gets: the repository, the output folder, the version, the release's time, whether to build the executables and the Python interpreter. */
/** @typedef {{ root: string, out: string, version: string, time: Date, binary: boolean, python: string }} ReleaseContext */
/** @typedef {{ name: string, run: (ctx: ReleaseContext) => unknown }} ReleaseStep One artifact of the release: `run` writes its files into `ctx.out`. */
/**
 * What {@link release} takes: the folder, whether to build the single-file executables, the Python interpreter, the steps, where progress goes.
 * @typedef {{ out: string, binary?: boolean, python?: string | undefined, steps?: ReleaseStep[], log?: (line: string) => void }} ReleaseOptions
 */

/**
 * Runs npm in the repository; the output as text when `options` names an encoding.
 * @overload
 * @param {string[]} args @param {import("node:child_process").ExecFileSyncOptionsWithStringEncoding} options
 * @returns {string}
 */
/**
 * @overload
 * @param {string[]} args @param {import("node:child_process").ExecFileSyncOptions} [options]
 * @returns {string | Buffer}
 */
/** @param {string[]} args @param {import("node:child_process").ExecFileSyncOptions} [options] */
const npm = (args, options = {}) =>
  execFileSync(process.platform === "win32" ? "npm.cmd" : "npm", args, { cwd: ROOT, shell: process.platform === "win32", ...options });

/**
 * The npm tarball and its SBOM (runtime dependencies only: no development ones, and not the private
 * toolchain/ workspace, which is not in the package). `npm sbom` names the root after the folder it runs in and stamps a
 * random serial number and the time: the root gets the package's name, the release's time, and
 * no serial number, so two builds of one commit give the same file.
 * @param {ReleaseContext} ctx
 */
function npmPackage(ctx) {
  npm(["pack", "--pack-destination", ctx.out], { stdio: ["ignore", "ignore", "inherit"] });
  const { serialNumber: _random, ...sbom } = JSON.parse(
    npm(["sbom", "--sbom-format", "cyclonedx", "--omit", "dev", "--workspaces=false"], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }),
  );
  const { name } = JSON.parse(fs.readFileSync(path.join(ctx.root, "package.json"), "utf8"));
  sbom.metadata = { ...sbom.metadata, timestamp: ctx.time.toISOString(), component: { ...sbom.metadata.component, name } };
  fs.writeFileSync(path.join(ctx.out, `pulumi-analytics-v${ctx.version}.npm.cdx.json`), `${JSON.stringify(sbom, null, 2)}\n`);
}

/**
 * The Node.js the single files embed (tools/lib/single-executable.js), as a CycloneDX
 * component: the pinned release of PLUGIN_LINE, a runtime ("platform" in CycloneDX 1.5), with the
 * purl and CPE scanners look Node.js up by, and the sha512 of each npm package an executable is
 * made from. The script archive runs on the `node` of PATH instead.
 */
function embeddedNodeComponent() {
  const { pinned, integrity = {} } = supportedLine(PLUGIN_LINE);
  const purl = `pkg:generic/node@${pinned}`;
  const distributions = /** @type {import("./lib/node-runtime.js").NodePlatform[]} */ (Object.keys(integrity)).map((platform) => {
    const pkg = nodePackage(PLUGIN_LINE, platform);
    const sha512 = Buffer.from(pkg.integrity.replace(/^sha512-/, ""), "base64").toString("hex");
    return {
      type: "distribution",
      url: `https://registry.npmjs.org/${pkg.name}/-/${pkg.name}-${pinned}.tgz`,
      comment: `The ${platform} build, as the npm registry serves it`,
      hashes: [{ alg: "SHA-512", content: sha512 }],
    };
  });
  return {
    type: "platform",
    "bom-ref": purl,
    name: "node",
    version: pinned,
    description: `Node.js ${pinned}, built into the single-file executables of the plugin and the reference server (the macOS ones from nodejs.org's build of the same release)`,
    licenses: [{ license: { id: "MIT" } }],
    purl,
    cpe: `cpe:2.3:a:nodejs:node.js:${pinned}:*:*:*:*:*:*:*`,
    externalReferences: [{ type: "website", url: "https://nodejs.org/" }, ...distributions],
  };
}

/**
 * A CycloneDX SBOM of the npm packages esbuild bundled into the program `name` (from its metafile),
 * and of the Node.js its single files embed.
 * @param {import("esbuild").Metafile} metafile @param {string} name @param {string} version
 */
function bundleSbom(metafile, name, version) {
  /** @type {Map<string, { name: string, version: string, license?: string }>} */
  const packages = new Map();
  for (const input of Object.keys(metafile.inputs)) {
    const match = /^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\//.exec(input);
    if (!match || packages.has(match[1])) continue;
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, match[1], "package.json"), "utf8"));
    packages.set(match[1], { name: manifest.name, version: manifest.version, license: manifest.license });
  }
  const unique = [...new Map([...packages.values()].map((p) => [`${p.name}@${p.version}`, p])).values()].sort((a, b) => a.name.localeCompare(b.name));
  /** @type {(p: { name: string, version: string }) => string} */
  const purl = (p) => `pkg:npm/${p.name.replace(/^@/, "%40")}@${p.version}`;
  const components = unique.map((p) => ({
    type: "library",
    "bom-ref": purl(p),
    name: p.name,
    version: p.version,
    purl: purl(p),
    ...(p.license ? { licenses: [{ expression: p.license }] } : {}),
  }));
  return {
    bomFormat: "CycloneDX",
    specVersion: "1.5",
    version: 1,
    metadata: { component: { type: "application", name, version } },
    components: [...components, embeddedNodeComponent()],
  };
}

/** The plugin's SBOM (see {@link bundleSbom}). @param {import("esbuild").Metafile} metafile @param {string} version */
const pluginSbom = (metafile, version) => bundleSbom(metafile, PLUGIN, version);

/** The plugin archives and the plugin's SBOM. @param {ReleaseContext} ctx */
async function pluginArchives(ctx) {
  buildPluginArchive(ctx.out);
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-release-"));
  try {
    const metafile = bundlePlugin(path.join(staging, PLUGIN));
    fs.writeFileSync(path.join(ctx.out, `${PLUGIN}-v${ctx.version}.cdx.json`), `${JSON.stringify(pluginSbom(metafile, ctx.version), null, 2)}\n`);
    if (ctx.binary) {
      for (const { archive } of await buildPluginBinaries(path.join(staging, "binary"))) fs.copyFileSync(archive, path.join(ctx.out, path.basename(archive)));
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * The reference server's single files' archives this platform builds (tools/build-reference-server-binary.js)
 * and their SBOM: the packages bundled into them and the Node.js they embed.
 * @param {ReleaseContext} ctx
 */
async function referenceServerArchives(ctx) {
  const { metafile } = await referenceServerBundle();
  fs.writeFileSync(
    path.join(ctx.out, `${REFERENCE_SERVER}-v${ctx.version}.cdx.json`),
    `${JSON.stringify(bundleSbom(metafile, REFERENCE_SERVER, ctx.version), null, 2)}\n`,
  );
  if (!ctx.binary) return;
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-release-server-"));
  try {
    for (const { archive } of await buildReferenceServerBinaries(staging)) fs.copyFileSync(archive, path.join(ctx.out, path.basename(archive)));
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** The Go SDK as `GOPROXY=file://<out>/go-proxy` serves it, and its SBOM. @param {ReleaseContext} ctx */
async function goSdk(ctx) {
  writeGoModuleProxy({ root: ctx.root, dir: path.join(ctx.root, "sdk"), version: `v${ctx.version}`, time: ctx.time, outDir: path.join(ctx.out, "go-proxy") });
  await goSdkSbom(ctx);
}

/** The C# SDK's sources (the files git tracks under sdk/dotnet). @param {ReleaseContext} ctx */
function dotnetSdk(ctx) {
  const files = execFileSync("git", ["ls-files", "-z", "--", "sdk/dotnet"], { cwd: ctx.root, encoding: "utf8" }).split("\0").filter(Boolean).sort();
  const entries = files.map((file) => ({
    name: path.posix.relative("sdk/dotnet", file.split(path.sep).join("/")),
    source: path.join(ctx.root, file),
    mode: 0o644,
  }));
  writeTarGz(path.join(ctx.out, `pulumi-analytics-dotnet-sdk-v${ctx.version}.tar.gz`), entries, Math.floor(ctx.time.getTime() / 1000));
}

/** The Python SDK's sdist and wheel, built from a copy of sdk/python so nothing is written into the repository. @param {ReleaseContext} ctx */
function pythonSdk(ctx) {
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-release-python-"));
  try {
    const source = path.join(staging, "python");
    fs.cpSync(path.join(ctx.root, "sdk", "python"), source, { recursive: true });
    execFileSync(ctx.python, ["-m", "build", "--no-isolation", "--outdir", ctx.out, source], {
      cwd: staging,
      // The wheel's entries are dated SOURCE_DATE_EPOCH (the release's time), not the build's.
      env: {
        ...process.env,
        PYTHONDONTWRITEBYTECODE: "1",
        PIP_DISABLE_PIP_VERSION_CHECK: "1",
        SOURCE_DATE_EPOCH: String(Math.floor(ctx.time.getTime() / 1000)),
      },
      stdio: ["ignore", "ignore", "inherit"],
    });
    // The sdist's are not (setuptools dates them with the build's time): written again, dated the release's.
    normalizeSdist(ctx.python, path.join(ctx.out, `pulumi_analytics-${ctx.version}.tar.gz`), Math.floor(ctx.time.getTime() / 1000));
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** The files of the Java SDK as Maven Central takes them: the jar, its sources and javadoc jars, and the POM. @type {(version: string) => { jars: string[], pom: string }} */
const javaSdkFiles = (version) => ({
  jars: [`analytics-${version}.jar`, `analytics-${version}-sources.jar`, `analytics-${version}-javadoc.jar`],
  pom: `analytics-${version}.pom`,
});

/**
 * The Java SDK as Maven publishes it: the jars of `mvn package` of a copy of sdk/java (its POM
 * pins the jar, sources and javadoc plugins, which date every entry with the release's time) and
 * the POM, and the SBOM the same Maven run makes.
 * @param {ReleaseContext} ctx
 */
function javaSdk(ctx) {
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-release-java-"));
  try {
    const source = path.join(staging, "java");
    fs.cpSync(path.join(ctx.root, "sdk", "java"), source, { recursive: true });
    const mvn = process.platform === "win32" ? "mvn.cmd" : "mvn";
    const goals = ["package", ...javaSdkSbomArguments(ctx.version)];
    execFileSync(mvn, ["-B", "-q", ...goals, "-Dmaven.test.skip=true", `-Dproject.build.outputTimestamp=${ctx.time.toISOString().replace(/\.\d+Z$/, "Z")}`], {
      cwd: source,
      shell: process.platform === "win32",
      stdio: ["ignore", "ignore", "inherit"],
    });
    const { jars, pom } = javaSdkFiles(ctx.version);
    for (const jar of jars) fs.copyFileSync(path.join(source, "target", jar), path.join(ctx.out, jar));
    fs.copyFileSync(path.join(source, "pom.xml"), path.join(ctx.out, pom));
    copyJavaSdkSbom(ctx, source);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** The name of the YAML package file of a version, as `sdks/analytics/` of a YAML project holds it. @param {string} version */
function yamlPackageFileName(version) {
  return `analytics-${version}.yaml`;
}

/** The YAML package file: the package's name, version and plugin download URL (the schema's). @param {ReleaseContext} ctx */
function yamlPackageFile(ctx) {
  /** @type {import("./generate-schema.js").PackageSchema} */
  const schema = JSON.parse(fs.readFileSync(path.join(ctx.root, "src", "native", "schema.json"), "utf8"));
  const lines = ["packageDeclarationVersion: 1", `name: ${schema.name}`, `version: ${ctx.version}`, `downloadUrl: ${schema.pluginDownloadURL}`];
  fs.writeFileSync(path.join(ctx.out, yamlPackageFileName(ctx.version)), `${lines.join("\n")}\n`);
}

/**
 * The reference server's container image (its OCI archive and the SBOM of its libraries), made
 * from the Linux executables in the reference server's archives of this release, so the image
 * holds the very files released beside it. Only where those are built: on linux-x64, with the executables.
 * @param {ReleaseContext} ctx
 */
async function referenceServerImage(ctx) {
  if (!ctx.binary || process.platform !== "linux" || process.arch !== "x64") return;
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-release-image-"));
  try {
    /** @type {(arch: string) => string} */
    const executable = (arch) => {
      const archive = path.join(ctx.out, referenceServerArchiveName(ctx.version, { os: "linux", arch }));
      if (!fs.existsSync(archive))
        throw new Error(`the reference server's image needs ${path.basename(archive)}, which the reference server step writes first`);
      fs.mkdirSync(path.join(staging, arch));
      execFileSync("tar", ["-xzf", archive, "-C", path.join(staging, arch), REFERENCE_SERVER]);
      return path.join(staging, arch, REFERENCE_SERVER);
    };
    const image = await buildReferenceServerImage({ binaries: { amd64: executable("amd64"), arm64: executable("arm64") }, outDir: staging, time: ctx.time });
    for (const file of [image.archive, image.sbom]) fs.copyFileSync(file, path.join(ctx.out, path.basename(file)));
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** The release's steps, in order; each writes its files into `context.out`. @type {ReleaseStep[]} */
const RELEASE_STEPS = [
  { name: "npm package", run: npmPackage },
  { name: "plugin archives", run: pluginArchives },
  { name: "reference server archives", run: referenceServerArchives },
  { name: "reference server image", run: referenceServerImage },
  { name: "Go SDK", run: goSdk },
  { name: "C# SDK", run: dotnetSdk },
  { name: "Python SDK", run: pythonSdk },
  // A step of its own (it reads the wheel the step before wrote), so a build of the archives alone skips it.
  { name: "Python SDK SBOM", run: pythonSdkSbom },
  { name: "Java SDK", run: javaSdk },
  { name: "YAML package file", run: yamlPackageFile },
  { name: "Node.js SDK", run: (ctx) => buildNodeSdkPackage({ root: ctx.root, outDir: ctx.out }) },
];

/** Every file under `dir`, relative with forward slashes, sorted. @param {string} dir @returns {string[]} */
function listFiles(dir, prefix = "") {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? listFiles(path.join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`]))
    .sort();
}

/** Writes `<out>/SHA256SUMS` in the format `sha256sum -c` reads, over every other file. @param {string} out */
function writeChecksums(out) {
  const lines = listFiles(out)
    .filter((file) => file !== "SHA256SUMS")
    .map(
      (file) =>
        `${crypto
          .createHash("sha256")
          .update(fs.readFileSync(path.join(out, file)))
          .digest("hex")}  ${file}\n`,
    );
  fs.writeFileSync(path.join(out, "SHA256SUMS"), lines.join(""));
}

/** The last commit's time (SOURCE_DATE_EPOCH when set). */
function releaseTime() {
  const epoch = process.env.SOURCE_DATE_EPOCH ?? execFileSync("git", ["log", "-1", "--format=%ct"], { cwd: ROOT, encoding: "utf8" }).trim();
  return new Date(Number(epoch) * 1000);
}

/** Builds the release into `out` (emptied first) and returns its files. @param {ReleaseOptions} options */
async function release({ out, binary = true, python = "python3", steps = RELEASE_STEPS, log = (line) => process.stderr.write(`${line}\n`) }) {
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  // The interpreter by its path: cyclonedx-py reads the environment of a path, not of a command name.
  const interpreter = execFileSync(python, ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim();
  const ctx = { root: ROOT, out, version: packageVersion(), time: releaseTime(), binary, python: interpreter };
  for (const step of steps) {
    log(`release: ${step.name}`);
    await step.run(ctx);
  }
  writeChecksums(out);
  return listFiles(out);
}

module.exports = { RELEASE_STEPS, bundleSbom, javaSdkFiles, pluginSbom, release, yamlPackageFileName };

if (require.main === module) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--out");
  if (at < 0 || !args[at + 1]) {
    process.stderr.write("usage: npm run release -- --out <dir> [--no-binary] [--python <interpreter>]\n");
    process.exit(2);
  }
  const python = args.includes("--python") ? args[args.indexOf("--python") + 1] : undefined;
  release({ out: path.resolve(args[at + 1]), binary: !args.includes("--no-binary"), python }).then(
    (files) => process.stdout.write(files.map((file) => `${file}\n`).join("")),
    (error) => {
      process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}

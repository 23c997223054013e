// @ts-check
/**
 * The release's SBOMs of the Python, Go and Java SDKs, each made by CycloneDX's tool for that
 * ecosystem, from what the machine already has (the release's Python environment, the Go module
 * cache, the Maven repository), and made deterministic (no serial number or the tool's
 * name-based one, the release's time or no timestamp), since SHA256SUMS covers them:
 * - Python: `cyclonedx-py environment` (pinned in tools/pinned/python-env/requirements.txt) over the
 *   release's interpreter, cut down to the wheel's dependency closure: its Requires-Dist and theirs,
 *   markers evaluated for that interpreter, at the versions installed there;
 * - Go: `cyclonedx-gomod mod` (pinned in tools/pinned/cyclonedx-gomod, built into the project cache on
 *   first use) over the Go SDK's module: every module of its go.sum's graph, licenses as evidence;
 * - Java: the `makeBom` goal of `cyclonedx-maven-plugin`, in the Maven run that packages the jar.
 */
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

/** @typedef {Pick<import("../release.js").ReleaseContext, "root" | "out" | "version" | "time" | "python">} SbomContext What making an SBOM needs of the release. */
/** @typedef {{ "bom-ref": string, name: string, purl: string, version?: string, [field: string]: unknown }} BomComponent */
/** @typedef {{ ref: string, dependsOn?: string[] }} BomDependency */
/**
 * The parts of a CycloneDX SBOM that are rewritten here; every other field passes through as the tool wrote it.
 * @typedef {{ metadata: { component: BomComponent, [field: string]: unknown }, components?: BomComponent[], dependencies?: BomDependency[], [field: string]: unknown }} Bom
 */

/** cyclonedx-gomod, as a PinnedGoTool of toolchain/src/pulumi-cli.ts; tools/pinned/cyclonedx-gomod/go.mod pins the same version. */
const CYCLONEDX_GOMOD = {
  name: "cyclonedx-gomod",
  version: "1.10.0",
  moduleDir: path.join(__dirname, "..", "pinned", "cyclonedx-gomod"),
  goPackage: "github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod",
  binary: process.platform === "win32" ? "cyclonedx-gomod.exe" : "cyclonedx-gomod",
};

/** The Maven plugin's goal, pinned (the generated sdk/java/pom.xml stays as it is). */
const CYCLONEDX_MAVEN_GOAL = "org.cyclonedx:cyclonedx-maven-plugin:2.9.3:makeBom";

/** File names of the SBOMs in the release folder. @param {string} version */
const sbomNames = (version) => ({
  python: `pulumi_analytics-${version}.cdx.json`,
  go: `pulumi-analytics-go-sdk-v${version}.cdx.json`,
  java: `analytics-${version}.cdx.json`,
});

/** Writes `value` as two-space JSON with a final newline. @type {(file: string, value: unknown) => void} */
const writeJson = (file, value) => fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);

/**
 * Python that prints the dependency closure of the wheel given as its argument, as
 * `{"direct": [...], "all": [...]}` of normalised names: Requires-Dist whose markers hold for this
 * interpreter (extras followed), looked up among the installed distributions.
 */
const PYTHON_CLOSURE = `
import email, json, sys, zipfile
from importlib.metadata import distribution
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
with zipfile.ZipFile(sys.argv[1]) as wheel:
    metadata = email.message_from_bytes(wheel.read(next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))))
pending = [(Requirement(r), "", True) for r in metadata.get_all("Requires-Dist") or []]
seen, direct = set(), set()
while pending:
    req, extra, top = pending.pop()
    if req.marker and not req.marker.evaluate({"extra": extra}):
        continue
    key = canonicalize_name(req.name)
    if top:
        direct.add(key)
    for wanted in ["", *sorted(req.extras)]:
        if (key, wanted) not in seen:
            seen.add((key, wanted))
            pending += [(Requirement(r), wanted, False) for r in distribution(req.name).requires or []]
print(json.dumps({"direct": sorted(direct), "all": sorted({key for key, _ in seen})}))
`;

/** @type {(name: string) => string} */
const normalisedPythonName = (name) => name.toLowerCase().replace(/[-_.]+/g, "-");

/**
 * The environment's SBOM cut down to the components of `closure` and the edges between them.
 * @param {Bom & { components: BomComponent[], dependencies: BomDependency[] }} bom
 * @param {{ direct: string[], all: string[] }} closure
 */
function cutToClosure(bom, closure) {
  const all = new Set(closure.all);
  const components = bom.components.filter((c) => all.has(normalisedPythonName(c.name)));
  const rootRef = bom.metadata.component["bom-ref"];
  const refs = new Set([rootRef, ...components.map((c) => c["bom-ref"])]);
  const directRefs = new Set(components.filter((c) => closure.direct.includes(normalisedPythonName(c.name))).map((c) => c["bom-ref"]));
  const dependencies = bom.dependencies
    .filter((d) => refs.has(d.ref))
    .map((d) => {
      const dependsOn = (d.dependsOn ?? []).filter((ref) => (d.ref === rootRef ? directRefs : refs).has(ref));
      return dependsOn.length > 0 ? { ...d, dependsOn } : { ref: d.ref };
    });
  return { ...bom, components, dependencies };
}

/** The Python SDK's SBOM, from the wheel in `ctx.out` and the interpreter that built it. @param {SbomContext} ctx */
function pythonSdkSbom(ctx) {
  const wheel = fs.readdirSync(ctx.out).find((file) => file.startsWith(`pulumi_analytics-${ctx.version}-`) && file.endsWith(".whl"));
  if (!wheel) throw new Error(`the Python SDK's wheel pulumi_analytics-${ctx.version}-*.whl is not in ${ctx.out}`);
  /** @type {(args: string[], env?: Record<string, string>) => string} */
  const run = (args, env = {}) =>
    execFileSync(ctx.python, args, {
      cwd: ctx.out,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
  const closure = JSON.parse(run(["-c", PYTHON_CLOSURE, wheel]));
  const pyproject = path.join(ctx.root, "sdk", "python", "pyproject.toml");
  const epoch = String(Math.floor(ctx.time.getTime() / 1000));
  const bom = JSON.parse(
    run(["-m", "cyclonedx_py", "environment", "--pyproject", pyproject, "--mc-type", "library", "--output-reproducible", "-o", "-", ctx.python], {
      SOURCE_DATE_EPOCH: epoch,
    }),
  );
  writeJson(path.join(ctx.out, sbomNames(ctx.version).python), cutToClosure(bom, closure));
}

/**
 * The Go SBOM with the main module at the release's version. The tool takes the main module's
 * version from git: none in a folder without one, a pseudo-version in a checkout; either way it
 * lands in the module's bom-ref and the dependency graph, so both are rewritten, with the
 * component's keys in one order.
 * @param {Bom} bom @param {string} version
 */
function withMainVersion(bom, version) {
  const { "bom-ref": oldRef, version: _ignored, purl, ...rest } = bom.metadata.component;
  /** @type {(ref: string) => string} */
  const unversioned = (ref) => ref.replace(/@[^?#]*/, "");
  const ref = unversioned(oldRef).replace(/(\?|$)/, `@${version}$1`);
  bom.metadata.component = { "bom-ref": ref, ...rest, version, purl: `${unversioned(purl)}@${version}` };
  /** @type {(ref: string) => string} */
  const rename = (r) => (r === oldRef ? ref : r);
  bom.dependencies = (bom.dependencies ?? []).map((d) => ({ ...d, ref: rename(d.ref), ...(d.dependsOn ? { dependsOn: d.dependsOn.map(rename) } : {}) }));
  return bom;
}

/**
 * The Go SDK's SBOM: cyclonedx-gomod over sdk/'s module (the module's versions from its go.sum,
 * read from the Go module cache, which the module proxy fills on first use), without serial number
 * or timestamp, qualifier-free purls (a module is the same on every platform), and the release's
 * version on the main module, which the tool would take from a git tag.
 * @param {SbomContext} ctx
 */
async function goSdkSbom(ctx) {
  /** @type {typeof import("@pulumi-analytics/toolchain")} */
  const { resolvePinnedGoTool } = require(path.join(ctx.root, "toolchain", "dist", "pulumi-cli.js"));
  const binary = await resolvePinnedGoTool(CYCLONEDX_GOMOD);
  const args = ["mod", "-json", "-type", "library", "-licenses", "-short-purls", "-noserial", "-notimestamp", "-output", "-", "."];
  const env = { ...process.env, GOTOOLCHAIN: "local", GOFLAGS: "-mod=readonly" };
  const bom = JSON.parse(
    execFileSync(binary, args, { cwd: path.join(ctx.root, "sdk"), env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "pipe"] }),
  );
  writeJson(path.join(ctx.out, sbomNames(ctx.version).go), withMainVersion(bom, `v${ctx.version}`));
}

/** Maven arguments that add the SBOM to a `package` run: `target/<name>` of {@link copyJavaSdkSbom}. @param {string} version */
function javaSdkSbomArguments(version) {
  return [CYCLONEDX_MAVEN_GOAL, "-DoutputFormat=json", `-DoutputName=${sbomNames(version).java.replace(/\.json$/, "")}`];
}

/** Copies the SBOM of that Maven run from the project in `source` into `ctx.out`. @param {SbomContext} ctx @param {string} source */
function copyJavaSdkSbom(ctx, source) {
  const name = sbomNames(ctx.version).java;
  fs.copyFileSync(path.join(source, "target", name), path.join(ctx.out, name));
}

module.exports = { CYCLONEDX_GOMOD, copyJavaSdkSbom, goSdkSbom, javaSdkSbomArguments, pythonSdkSbom, sbomNames };

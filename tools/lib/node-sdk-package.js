// @ts-check
/**
 * Builds the generated Node.js SDK (sdk/nodejs, `@pulumi-analytics/analytics`, the native types)
 * into an npm tarball a TypeScript or JavaScript program installs: the sources compiled to
 * JavaScript and .d.ts at the package's root (the generated `utilities.ts` reads `./package.json`
 * beside it), with the generated package.json minus its build script and dev dependencies, so
 * its `pulumi` block (resource, name, version, server = the schema's pluginDownloadURL) tells the
 * engine which plugin the package needs and where to fetch it. Compiled by the repository's
 * TypeScript against the repository's @pulumi/pulumi and @types/node, in a staging copy, so
 * nothing is written into sdk/; `npm pack` then gives the same bytes for the same sources.
 */
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

/** The fields of the generated package.json that only building the SDK from source needs. */
const BUILD_ONLY_FIELDS = ["scripts", "devDependencies"];

/**
 * The package.json of the tarball: the generated one without {@link BUILD_ONLY_FIELDS}.
 * @param {Record<string, unknown>} generated
 */
function publishedManifest(generated) {
  const manifest = { ...generated };
  for (const field of BUILD_ONLY_FIELDS) delete manifest[field];
  return manifest;
}

/**
 * Compiles `<root>/sdk/nodejs` in a staging copy and packs it into `outDir` with `npm pack`;
 * returns the tarball's path (`pulumi-analytics-analytics-<version>.tgz` for the scoped name).
 * @param {{ root: string, outDir: string }} where
 * @returns {string}
 */
function buildNodeSdkPackage({ root, outDir }) {
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-release-nodejs-"));
  try {
    const source = path.join(staging, "nodejs");
    fs.cpSync(path.join(root, "sdk", "nodejs"), source, { recursive: true });
    // The repository's dependencies (@pulumi/pulumi, @types/node) are the compiler's, as for sdk/nodejs in place.
    fs.symlinkSync(path.join(root, "node_modules"), path.join(source, "node_modules"), "dir");
    const pkg = path.join(source, "bin");
    // The generated tsconfig writes into bin/; source maps would point at .ts files the package does not hold.
    execFileSync(process.execPath, [require.resolve("typescript/bin/tsc", { paths: [root] }), "-p", source, "--sourceMap", "false"], {
      cwd: source,
      stdio: ["ignore", "inherit", "inherit"],
    });
    const generated = JSON.parse(fs.readFileSync(path.join(source, "package.json"), "utf8"));
    fs.writeFileSync(path.join(pkg, "package.json"), `${JSON.stringify(publishedManifest(generated), null, 4)}\n`);
    fs.copyFileSync(path.join(source, "README.md"), path.join(pkg, "README.md"));
    fs.copyFileSync(path.join(root, "LICENSE"), path.join(pkg, "LICENSE"));
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const report = execFileSync(npm, ["pack", "--json", "--pack-destination", outDir], {
      cwd: pkg,
      encoding: "utf8",
      shell: process.platform === "win32",
      stdio: ["ignore", "pipe", "inherit"],
    });
    const [{ filename }] = JSON.parse(report.slice(report.indexOf("[")));
    return path.join(outDir, filename);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

module.exports = { BUILD_ONLY_FIELDS, buildNodeSdkPackage };

#!/usr/bin/env node
// @ts-check
/**
 * Publishes a release folder (`npm run release`, tools/release.js) to the registries users install
 * from. The release workflow (.github/workflows/release.yml) runs each command against the public
 * registry; run by act in the test suite (test/support/release-run.ts), the same workflow runs it
 * against the same registry software on 127.0.0.1, whose packages the publish rehearsal
 * (test/release/release-rehearsal-*.test.ts) installs. Only the registry address and the credentials, which
 * every command reads from its environment, differ.
 *
 *   check-tag <ref>                      fails unless a tag ref is refs/tags/v<package.json version>
 *   npm   --release <dir> --registry <url>  both npm tarballs (`npm publish`; npm's own config
 *                                          gives the token, or trusted publishing and
 *                                          NPM_CONFIG_PROVENANCE=true in the workflow)
 *   pypi  --release <dir> --registry <url> [--python <interpreter>]
 *                                          the sdist and the wheel (`twine upload`; TWINE_USERNAME
 *                                          and TWINE_PASSWORD, or PyPI trusted publishing when unset)
 *   maven --release <dir> --registry <url>  the Java SDK's POM and jars, signed (`mvn
 *                                          gpg:sign-and-deploy-file`, MAVEN_GPG_KEY and
 *                                          MAVEN_GPG_PASSPHRASE; MAVEN_USERNAME and MAVEN_PASSWORD
 *                                          for the repository, when set)
 *   central-portal --api <url>           hands the `maven` deployment on the Central Portal's OSSRH
 *                                          staging API to the Portal, to be published
 *   go    --remote <git url>               the tag sdk/v<version> on this checkout's HEAD, pushed
 *   nuget --registry <url> --out <dir>     the C# SDK packed by `dotnet pack` and pushed
 *                                          (NUGET_API_KEY)
 *   container --release <dir> --repository <host/path> [--tls-verify false]
 *                                          the reference server's image index (the release's
 *                                          oci-archive) pushed by `skopeo copy --all` by its
 *                                          digest, then tagged <version> (the credentials of
 *                                          `docker login` or `skopeo login`); prints the digest,
 *                                          and writes `digest=` and `name=` to $GITHUB_OUTPUT
 *                                          when that is set
 * Every name and version comes from the package's manifests: package.json, sdk/nodejs/package.json,
 * sdk/python/pyproject.toml, sdk/java/pom.xml, sdk/go.mod and the C# project.
 */
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { modulePath } = require("./lib/go-module-proxy.js");

/** @typedef {Record<string, string>} CommandOptions The `--name value` pairs of a command line, by name. */

const ROOT = path.join(__dirname, "..");
const windows = process.platform === "win32";

/** The version of the release: package.json's. @type {() => string} */
const releaseVersion = () => JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).version;

/**
 * Runs `command args`, its output passed through; a failure throws with the command's name.
 * @param {string} command @param {string[]} args @param {import("node:child_process").ExecFileSyncOptions} [options]
 */
function run(command, args, options = {}) {
  execFileSync(command, args, { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"], shell: windows, ...options });
}

/**
 * The release tag's check: a tag ref must be `refs/tags/v<version>` of package.json, since the
 * plugin's download URL and every SDK carry that version; another ref (a manual run on a branch)
 * passes and publishes nothing. Returns the tag, or undefined for a branch.
 * @param {string} ref @param {string} [version]
 * @returns {string | undefined}
 */
function checkTag(ref, version = releaseVersion()) {
  if (!ref.startsWith("refs/tags/")) return undefined;
  const tag = ref.slice("refs/tags/".length);
  if (tag !== `v${version}`)
    throw new Error(`the tag ${tag} is not v${version}, package.json's version: the release's archives would not be where pluginDownloadURL looks`);
  return tag;
}

/** The file `npm pack` names a package's tarball: the name without its `@`, `/` as `-`. @type {(name: string, version: string) => string} */
const npmTarballName = (name, version) => `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;

/** The npm packages of a release: the dynamic classes (package.json) and the native types (sdk/nodejs). */
function npmPackages() {
  return ["package.json", "sdk/nodejs/package.json"].map((file) => {
    /** @type {{ name: string, version: string }} */
    const { name, version } = JSON.parse(fs.readFileSync(path.join(ROOT, file), "utf8"));
    return { name, version, tarball: npmTarballName(name, version) };
  });
}

/** `npm publish` of each tarball of the release folder to `registry`, public. @param {CommandOptions} options */
function publishNpm({ release, registry }) {
  for (const { tarball } of npmPackages()) {
    run(windows ? "npm.cmd" : "npm", ["publish", path.join(release, tarball), "--registry", registry, "--access", "public"]);
  }
}

/** The Python SDK's distribution name and version, from sdk/python/pyproject.toml. */
function pythonProject() {
  const text = fs.readFileSync(path.join(ROOT, "sdk", "python", "pyproject.toml"), "utf8");
  /** @type {(key: string) => string | undefined} */
  const field = (key) => new RegExp(`^\\s*${key}\\s*=\\s*"([^"]+)"`, "m").exec(text)?.[1];
  const name = field("name");
  const version = field("version");
  if (!name || !version) throw new Error("sdk/python/pyproject.toml names no project name or version");
  return { name, version };
}

/** The sdist and the wheel of the release folder (their names normalized as PEP 625 and 427 say). @param {string} release */
function pythonDistributions(release) {
  const { name, version } = pythonProject();
  const stem = `${name.replace(/[-_.]+/g, "_").toLowerCase()}-${version}`;
  const files = fs.readdirSync(release).filter((file) => file === `${stem}.tar.gz` || (file.startsWith(`${stem}-`) && file.endsWith(".whl")));
  if (files.length !== 2) throw new Error(`the release folder has ${files.join(", ") || "nothing"} for ${stem}, not one sdist and one wheel`);
  return files.sort().map((file) => path.join(release, file));
}

/** `twine upload` of the sdist and the wheel to `registry` (an upload URL, e.g. PyPI's legacy API). @param {CommandOptions} options */
function publishPypi({ release, registry, python = "python3" }) {
  run(python, ["-m", "twine", "upload", "--non-interactive", "--repository-url", registry, ...pythonDistributions(release)]);
}

/** The Java SDK's coordinates, from sdk/java/pom.xml (its own elements, not its parent's or dependencies'). */
function javaCoordinates() {
  const pom = fs.readFileSync(path.join(ROOT, "sdk", "java", "pom.xml"), "utf8").replace(/<(dependencies|build|parent)>[\s\S]*?<\/\1>/g, "");
  /** @type {(name: string) => string | undefined} */
  const element = (name) => new RegExp(`<${name}>([^<]+)</${name}>`).exec(pom)?.[1];
  const [groupId, artifactId, version] = ["groupId", "artifactId", "version"].map(element);
  if (!groupId || !artifactId || !version) throw new Error("sdk/java/pom.xml names no groupId, artifactId or version");
  return { groupId, artifactId, version };
}

/** The release folder's Java files: the POM, the jar and, when the release has them, the sources and javadoc jars. @param {string} release */
function javaFiles(release) {
  const { artifactId, version } = javaCoordinates();
  const base = path.join(release, `${artifactId}-${version}`);
  /** @type {(suffix: string) => string[]} */
  const optional = (suffix) => (fs.existsSync(`${base}-${suffix}.jar`) ? [`-D${suffix}=${base}-${suffix}.jar`] : []);
  return [`-DpomFile=${base}.pom`, `-Dfile=${base}.jar`, ...optional("sources"), ...optional("javadoc")];
}

/** The pinned maven-gpg-plugin goal that signs each file (the key from MAVEN_GPG_KEY, no gpg agent) and deploys it with its signature. */
const MAVEN_SIGN_AND_DEPLOY = "org.apache.maven.plugins:maven-gpg-plugin:3.2.8:sign-and-deploy-file";

/** Maven settings naming the repository `publish`, its credentials read by Maven from the environment. */
const MAVEN_SETTINGS = `<settings><servers><server><id>publish</id><username>\${env.MAVEN_USERNAME}</username><password>\${env.MAVEN_PASSWORD}</password></server></servers></settings>\n`;

/**
 * Signs the Java SDK's files and deploys them with their signatures to the Maven repository
 * `registry`. The plugin writes each signature beside the file it signs, so it signs copies in a
 * scratch folder: the release folder stays as the release wrote it (its SHA256SUMS whole).
 * @param {CommandOptions} options
 */
function publishMaven({ release, registry }) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-publish-maven-"));
  const settings = path.join(scratch, "settings.xml");
  try {
    fs.writeFileSync(settings, MAVEN_SETTINGS);
    for (const arg of javaFiles(release)) {
      const file = arg.slice(arg.indexOf("=") + 1);
      fs.copyFileSync(file, path.join(scratch, path.basename(file)));
    }
    const args = ["-B", "--settings", settings, MAVEN_SIGN_AND_DEPLOY, "-Dgpg.signer=bc", `-Durl=${registry}`, "-DrepositoryId=publish", ...javaFiles(scratch)];
    run(windows ? "mvn.cmd" : "mvn", args, { cwd: scratch });
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** The Go SDK's tag: its module's folder and the release's version, as Go resolves a module in a subdirectory. @param {string} [version] */
function goTag(version = releaseVersion()) {
  const dir = path.join(ROOT, "sdk");
  modulePath(dir);
  return `${path.relative(ROOT, dir).split(path.sep).join("/")}/v${version}`;
}

/** Pushes the tag `sdk/v<version>` on this checkout's HEAD to the git remote `remote`. @param {CommandOptions} options */
function publishGo({ remote }) {
  const commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
  run("git", ["push", remote, `${commit}:refs/tags/${goTag()}`]);
}

/** `dotnet pack` of sdk/dotnet into `out`, then `dotnet nuget push` of the package to `registry`. @param {CommandOptions} options */
function publishNuget({ registry, out }) {
  run("dotnet", ["pack", path.join(ROOT, "sdk", "dotnet"), "--configuration", "Release", "--output", out]);
  const packages = fs.readdirSync(out).filter((file) => file.endsWith(".nupkg") && !file.endsWith(".symbols.nupkg"));
  if (packages.length !== 1) throw new Error(`dotnet pack made ${packages.join(", ") || "no package"}, not one`);
  const key = process.env.NUGET_API_KEY;
  if (!key) throw new Error("NUGET_API_KEY is not set");
  run("dotnet", ["nuget", "push", path.join(out, packages[0]), "--source", registry, "--api-key", key]);
}

/**
 * Hands what `maven` deployed to the Central Portal's OSSRH staging API over to the Portal, which
 * validates and publishes it (`publishing_type=automatic`): a POST naming the POM's groupId as the
 * namespace, with the Portal user token of MAVEN_USERNAME and MAVEN_PASSWORD.
 * @param {CommandOptions} options
 */
async function centralPortal({ api }) {
  const { groupId } = javaCoordinates();
  const token = Buffer.from(`${process.env.MAVEN_USERNAME ?? ""}:${process.env.MAVEN_PASSWORD ?? ""}`).toString("base64");
  const url = new URL(`manual/upload/defaultRepository/${encodeURIComponent(groupId)}?publishing_type=automatic`, api.endsWith("/") ? api : `${api}/`);
  const response = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`${url.origin} answered ${response.status}: ${await response.text()}`);
}

/**
 * The release's oci-archive of the reference server's image index: the name
 * tools/build-reference-server-image.js gives it (which this script cannot load: it needs esbuild,
 * and the publishing jobs run no npm ci); test/release/release-rehearsal-container.test.ts holds them equal.
 * @param {string} [version]
 */
const containerArchiveName = (version = releaseVersion()) => `analytics-reference-server-v${version}-oci.tar`;

/** The media type of an OCI image index. */
const OCI_INDEX = "application/vnd.oci.image.index.v1+json";

/**
 * The digest of the image index an oci-archive holds: its index.json must name exactly one
 * descriptor, an image index (the linux/amd64 and linux/arm64 manifests are in that index).
 * @param {string} archive
 * @returns {string}
 */
function containerIndexDigest(archive) {
  if (!fs.existsSync(archive)) throw new Error(`${archive} is missing: the release folder has no image of the reference server (npm run release makes it)`);
  const entry = execFileSync("tar", ["-tf", archive], { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 })
    .split("\n")
    .find((name) => /^(\.\/)?index\.json$/.test(name));
  if (!entry) throw new Error(`${archive} has no index.json: it is not an oci-archive`);
  /** @type {{ manifests?: Array<{ mediaType?: string, digest?: string }> }} */
  const layout = JSON.parse(execFileSync("tar", ["-xOf", archive, entry], { encoding: "utf8" }));
  const [index, ...more] = layout.manifests ?? [];
  if (!index || more.length > 0 || index.mediaType !== OCI_INDEX || !/^sha256:[0-9a-f]{64}$/.test(index.digest ?? "")) {
    throw new Error(`${archive}'s index.json names ${layout.manifests?.length ?? 0} descriptors, not one image index (${OCI_INDEX})`);
  }
  return /** @type {string} */ (index.digest);
}

/**
 * Pushes the release's image index to `repository` (`host[:port]/path`) with `skopeo copy --all
 * --preserve-digests`: first by its digest, then as the tag <version>; checks that the registry
 * took it under that digest. `tls-verify false` talks plain HTTP (a registry on 127.0.0.1), as does
 * a registry that containers-registries.conf marks `insecure` when it is not given: the machine's,
 * or the file CONTAINERS_REGISTRIES_CONF names (passed as `--registries-conf`: skopeo 1.9 does not
 * read that variable). The
 * credentials are those of skopeo's (or docker's) own login, as `npm` takes npm's. Returns the digest.
 * @param {CommandOptions} options
 */
function publishContainer({ release, repository, "tls-verify": tlsVerify = "true" }) {
  if (!repository || !/^[^/@]+\/[^:@]+$/.test(repository))
    throw new Error(`--repository: give host/path without a tag or digest, e.g. ghcr.io/<owner>/analytics-reference-server (got ${repository ?? "nothing"})`);
  if (tlsVerify !== "true" && tlsVerify !== "false") throw new Error(`--tls-verify: true or false, not ${tlsVerify}`);
  const archive = path.join(release, containerArchiveName());
  const digest = containerIndexDigest(archive);
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-publish-container-"));
  try {
    for (const destination of [`${repository}@${digest}`, `${repository}:${releaseVersion()}`]) {
      const digestFile = path.join(temp, "digest");
      const registriesConf = process.env.CONTAINERS_REGISTRIES_CONF ? ["--registries-conf", process.env.CONTAINERS_REGISTRIES_CONF] : [];
      run("skopeo", [
        ...registriesConf,
        "copy",
        "--all",
        "--preserve-digests",
        ...(tlsVerify === "false" ? ["--dest-tls-verify=false"] : []),
        "--digestfile",
        digestFile,
        `oci-archive:${archive}`,
        `docker://${destination}`,
      ]);
      const pushed = fs.readFileSync(digestFile, "utf8").trim();
      if (pushed !== digest) throw new Error(`${destination} was stored as ${pushed}, not the release's index ${digest}`);
    }
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
  process.stdout.write(`pushed ${repository}@${digest} as ${repository}:${releaseVersion()}\n`);
  if (process.env.GITHUB_OUTPUT) fs.appendFileSync(process.env.GITHUB_OUTPUT, `digest=${digest}\nname=${repository}\n`);
  return digest;
}

/** The publish commands, by the registry kind the command line names. @type {Record<string, (options: CommandOptions) => unknown>} */
const COMMANDS = {
  npm: publishNpm,
  pypi: publishPypi,
  maven: publishMaven,
  "central-portal": centralPortal,
  go: publishGo,
  nuget: publishNuget,
  container: publishContainer,
};

/** `--name value` pairs of `args`, as an object. @param {string[]} args */
function options(args) {
  /** @type {CommandOptions} */
  const result = {};
  for (let i = 0; i < args.length; i += 2) {
    if (!args[i]?.startsWith("--") || args[i + 1] === undefined) throw new Error(`expected --name value pairs, got ${args.slice(i).join(" ")}`);
    result[args[i].slice(2)] = args[i + 1];
  }
  return result;
}

/** The command line: `check-tag <ref>` or `<registry kind> --name value …`. @param {string[]} argv */
async function main(argv) {
  const [command, ...rest] = argv;
  if (command === "check-tag") {
    const tag = checkTag(rest[0] ?? "");
    process.stdout.write(tag ? `${tag} is package.json's version\n` : `${rest[0]} is not a tag: nothing will be published\n`);
    return;
  }
  const publish = command ? COMMANDS[command] : undefined;
  if (!publish) throw new Error(`usage: publish.js check-tag <ref> | ${Object.keys(COMMANDS).join("|")} --name value …`);
  const opts = options(rest);
  if (opts.release) opts.release = path.resolve(opts.release);
  if (opts.out) opts.out = path.resolve(opts.out);
  await publish(opts);
}

module.exports = {
  checkTag,
  containerArchiveName,
  containerIndexDigest,
  goTag,
  javaCoordinates,
  npmPackages,
  npmTarballName,
  pythonDistributions,
  publishGo,
  publishMaven,
  publishContainer,
  publishNpm,
  publishPypi,
};

if (require.main === module) {
  main(process.argv.slice(2)).catch((error) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}

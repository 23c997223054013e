#!/usr/bin/env node
// @ts-check
/**
 * Builds the reference server's container image from the Dockerfile at the repository's root:
 * lays out its build context from the Linux x64 and arm64 single-file executables
 * (tools/build-reference-server-binary.js) and the C and C++ runtime libraries Node.js links,
 * copied from this machine's Debian packages ({@link RUNTIME}); has BuildKit build linux/amd64 and
 * linux/arm64 (tools/lib/buildkit.js: the pinned buildkitd, started for the build, or `docker
 * buildx` when IMAGE_BUILDER=buildx, as the release workflow does) into an OCI image layout,
 * `analytics-reference-server-oci/`, whose index.json names its image index by the image's full
 * name (ghcr.io/<owner>/analytics-reference-server:<version>, which `podman load` and `docker load`
 * give it); and writes the layout as one tar (node-tar), `analytics-reference-server-v<version>-oci.tar`,
 * beside a CycloneDX SBOM of the Debian packages.
 *
 * Two builds from the same files and time give the same bytes: BuildKit dates the image and every
 * file of its layer with the release's time (SOURCE_DATE_EPOCH with rewrite-timestamp), and the
 * tar has sorted entries, one mtime and no owner.
 * Usage: node tools/build-reference-server-image.js --amd64 <file> --arm64 <file> [--out <dir>, default build/image]
 */
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const tar = require("tar");
const { packageVersion, sourceDateEpoch } = require("./build-plugin-archive.js");
const { REFERENCE_SERVER: SERVER } = require("./build-reference-server-binary.js");
const { buildWithBuildctl, buildWithBuildx } = require("./lib/buildkit.js");
const { ROOT, projectIdentity, readManifest } = require("./lib/project-identity.js");

/** The Dockerfile, whose USER, VOLUME, EXPOSE, HEALTHCHECK, ENTRYPOINT, CMD and LABELs say what the image is. */
const DOCKERFILE = path.join(ROOT, "Dockerfile");

/** The user the server runs as, and who owns /data (the Dockerfile's USER): the conventional "nonroot" ids of distroless images. */
const USER = { name: "analytics", uid: 65532, gid: 65532 };

/** @typedef {"amd64" | "arm64"} ImageArch */
/** @typedef {{ name: string, source: string, package: string }} RuntimeLibrary A library of the image: its file name, the file it is copied from, the Debian package (with its architecture) that installs that file here. */
/**
 * What one platform's image holds besides the executable: the folder of its libraries, the
 * libraries, and the dynamic loader's path the executable names (a link into that folder).
 * @typedef {{ libDir: string, loader: { path: string, target: string }, libraries: RuntimeLibrary[] }} PlatformRuntime
 */

/**
 * The libraries the pinned Node.js links (`readelf -d`: libdl, libstdc++, libm, libgcc_s,
 * libpthread, libc, libatomic since Node.js 26, and the loader), each by the role of the Debian
 * package that holds it.
 * @type {[name: string, role: "libc" | "libstdcxx" | "libgcc" | "libatomic"][]}
 */
const LINKED = [
  ["libc.so.6", "libc"],
  ["libm.so.6", "libc"],
  ["libdl.so.2", "libc"],
  ["libpthread.so.0", "libc"],
  ["libstdc++.so.6", "libstdcxx"],
  ["libgcc_s.so.1", "libgcc"],
  ["libatomic.so.1", "libatomic"],
];

/**
 * Each platform's libraries from the Debian packages of this machine: amd64's own (libc6,
 * libstdc++6, libgcc-s1, libatomic1) and arm64's cross packages (libc6-arm64-cross,
 * libstdc++6-arm64-cross, libgcc-s1-arm64-cross, libatomic1-arm64-cross), which hold the arm64
 * builds of the same sources.
 * @type {Record<ImageArch, PlatformRuntime>}
 */
const RUNTIME = {
  amd64: runtimeOf("x86_64-linux-gnu", "ld-linux-x86-64.so.2", "lib64", {
    libc: ["libc6:amd64", "/lib/x86_64-linux-gnu"],
    libstdcxx: ["libstdc++6:amd64", "/usr/lib/x86_64-linux-gnu"],
    libgcc: ["libgcc-s1:amd64", "/lib/x86_64-linux-gnu"],
    libatomic: ["libatomic1:amd64", "/usr/lib/x86_64-linux-gnu"],
  }),
  arm64: runtimeOf("aarch64-linux-gnu", "ld-linux-aarch64.so.1", "lib", {
    libc: ["libc6-arm64-cross", "/usr/aarch64-linux-gnu/lib"],
    libstdcxx: ["libstdc++6-arm64-cross", "/usr/aarch64-linux-gnu/lib"],
    libgcc: ["libgcc-s1-arm64-cross", "/usr/aarch64-linux-gnu/lib"],
    libatomic: ["libatomic1-arm64-cross", "/usr/aarch64-linux-gnu/lib"],
  }),
};

/**
 * One platform's runtime: the libraries in /lib/<triplet>, the loader linked from /<loaderDir>/<loader>.
 * @param {string} triplet @param {string} loader @param {string} loaderDir
 * @param {Record<"libc" | "libstdcxx" | "libgcc" | "libatomic", [pkg: string, dir: string]>} from each role's Debian package and the folder of its files
 * @returns {PlatformRuntime}
 */
function runtimeOf(triplet, loader, loaderDir, from) {
  /** @type {[string, keyof typeof from][]} */
  const files = [[loader, "libc"], ...LINKED];
  const libDir = `lib/${triplet}`;
  return {
    libDir,
    loader: { path: `${loaderDir}/${loader}`, target: `/${libDir}/${loader}` },
    libraries: files.map(([name, role]) => ({ name, source: path.join(from[role][1], name), package: from[role][0] })),
  };
}

/** Each Debian package of `runtime` and its installed version (`dpkg-query`). @param {PlatformRuntime} runtime @returns {{ name: string, version: string, architecture: string }[]} */
function debianPackages(runtime) {
  const names = [...new Set(runtime.libraries.map((library) => library.package))].sort();
  return names.map((name) => {
    const [version, architecture] = execFileSync("dpkg-query", ["--show", "--showformat=${Version} ${Architecture}", name], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    })
      .trim()
      .split(" ");
    return { name, version, architecture };
  });
}

/** The commit being built, or undefined outside a git checkout. */
function gitRevision() {
  try {
    return execFileSync("git", ["rev-parse", "HEAD"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return undefined;
  }
}

/**
 * A CycloneDX SBOM of what the image holds besides the server: each platform's Debian packages.
 * @param {string} version @param {Date} time
 */
function imageSbom(version, time) {
  const distribution = osReleaseId();
  const components = /** @type {ImageArch[]} */ (Object.keys(RUNTIME)).flatMap((arch) =>
    debianPackages(RUNTIME[arch]).map((p) => {
      const purl = `pkg:deb/${distribution}/${p.name.replace(/:.*$/, "")}@${encodeURIComponent(p.version)}?arch=${p.architecture}`;
      return {
        type: "library",
        "bom-ref": `${arch}:${purl}`,
        name: p.name.replace(/:.*$/, ""),
        version: p.version,
        purl,
        description: `In the linux/${arch} image: ${RUNTIME[arch].libraries
          .filter((l) => l.package === p.name)
          .map((l) => l.name)
          .join(", ")}`,
      };
    }),
  );
  return {
    bomFormat: "CycloneDX",
    specVersion: "1.5",
    version: 1,
    metadata: { timestamp: time.toISOString(), component: { type: "container", name: SERVER, version } },
    components,
  };
}

/** The distribution whose packages these are (`ID` of /etc/os-release: debian, ubuntu), the namespace of their purls. */
function osReleaseId() {
  const text = fs.existsSync("/etc/os-release") ? fs.readFileSync("/etc/os-release", "utf8") : "";
  return /^ID="?([^"\n]+)"?$/m.exec(text)?.[1] ?? "debian";
}

/** The platforms of the image, in the index's order. @type {Record<ImageArch, string>} */
const PLATFORMS = { amd64: "linux/amd64", arm64: "linux/arm64" };

/** The image's full name as the release publishes it: ghcr.io/<owner, lower case>/analytics-reference-server:<version>. @param {string} version */
const imageName = (version) => `ghcr.io/${projectIdentity().owner.toLowerCase()}/${SERVER}:${version}`;

/** Copies `source` to `target` with `mode`. @param {string} source @param {string} target @param {number} mode */
function copyFile(source, target, mode) {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.copyFileSync(source, target);
  fs.chmodSync(target, mode);
}

/** Sets every folder under `dir` to 0755, whatever this machine's umask made them. @param {string} dir */
function fixFolderModes(dir) {
  fs.chmodSync(dir, 0o755);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) fixFolderModes(path.join(dir, entry.name));
}

/**
 * Lays out the Dockerfile's build context in `dir` (the list at the Dockerfile's top): each
 * platform's executable, libraries and loader link; /etc/passwd and /etc/group with the user, and
 * /tmp; an empty folder.
 * @param {string} dir @param {Record<ImageArch, string>} binaries
 */
function layContext(dir, binaries) {
  for (const arch of /** @type {ImageArch[]} */ (Object.keys(PLATFORMS))) {
    const runtime = RUNTIME[arch];
    for (const library of runtime.libraries) copyFile(library.source, path.join(dir, arch, runtime.libDir, library.name), 0o755);
    const loader = path.join(dir, arch, "loader", runtime.loader.path);
    fs.mkdirSync(path.dirname(loader), { recursive: true });
    fs.symlinkSync(runtime.loader.target, loader);
    copyFile(binaries[arch], path.join(dir, arch, SERVER), 0o755);
  }
  fs.mkdirSync(path.join(dir, "common", "etc"), { recursive: true });
  fs.writeFileSync(path.join(dir, "common", "etc", "group"), `root:x:0:\n${USER.name}:x:${USER.gid}:\n`, { mode: 0o644 });
  fs.writeFileSync(
    path.join(dir, "common", "etc", "passwd"),
    `root:x:0:0:root:/root:/sbin/nologin\n${USER.name}:x:${USER.uid}:${USER.gid}:${USER.name}:/data:/sbin/nologin\n`,
    { mode: 0o644 },
  );
  fs.mkdirSync(path.join(dir, "common", "tmp"));
  fs.mkdirSync(path.join(dir, "empty"));
  fixFolderModes(dir);
  fs.chmodSync(path.join(dir, "common", "tmp"), 0o1777);
}

/** The Dockerfile's build arguments: its labels' values, from package.json, the commit and the Debian packages of both platforms' libraries. @param {string} version @returns {Record<string, string>} */
function buildArgs(version) {
  const manifest = readManifest();
  const { repository, javaGroupId, name } = projectIdentity(manifest);
  const packages = /** @type {ImageArch[]} */ (Object.keys(PLATFORMS)).flatMap((arch) => debianPackages(RUNTIME[arch]));
  return {
    VERSION: version,
    REVISION: gitRevision() ?? "",
    DESCRIPTION: manifest.description,
    SOURCE: repository,
    LICENSES: manifest.license,
    LABEL_NAMESPACE: `${javaGroupId}.${name}`,
    DEBIAN_PACKAGES: packages.map((p) => `${p.name}=${p.version}`).join(" "),
  };
}

/** The builders IMAGE_BUILDER names: the pinned BuildKit (the default), or docker buildx's (the release workflow's). */
const BUILDERS = { buildctl: buildWithBuildctl, buildx: buildWithBuildx };

/** The builder IMAGE_BUILDER names, buildctl when unset. @param {string | undefined} name */
function imageBuilder(name = "buildctl") {
  if (!Object.hasOwn(BUILDERS, name)) throw new Error(`IMAGE_BUILDER=${name} is none of ${Object.keys(BUILDERS).join(", ")}`);
  return BUILDERS[/** @type {keyof typeof BUILDERS} */ (name)];
}

/** The exporter's options: an OCI layout in `layout`, every file dated SOURCE_DATE_EPOCH, each layer gzipped at level 9. @param {string} layout */
const ociOutput = (layout) => `type=oci,dest=${layout},tar=false,rewrite-timestamp=true,compression=gzip,compression-level=9,force-compression=true`;

/**
 * Names the layout's image index `name` in its index.json (`org.opencontainers.image.ref.name`,
 * which podman reads, and `io.containerd.image.name`, which docker reads), which changes no digest.
 * @param {string} layout @param {string} name
 */
function nameImage(layout, name) {
  const file = path.join(layout, "index.json");
  const top = JSON.parse(fs.readFileSync(file, "utf8"));
  if (top.manifests?.length !== 1) throw new Error(`the builder's ${file} names ${top.manifests?.length ?? 0} descriptors, not one image index`);
  top.manifests[0].annotations = { "io.containerd.image.name": name, "org.opencontainers.image.ref.name": name };
  fs.writeFileSync(file, JSON.stringify(top));
}

/** Writes the OCI layout `layout` as the tar `archive` (node-tar): entries sorted, every mtime `epoch`, no owner. @param {string} layout @param {string} archive @param {number} epoch */
function writeLayoutTar(layout, archive, epoch) {
  const blobs = fs
    .readdirSync(path.join(layout, "blobs", "sha256"))
    .sort()
    .map((file) => `blobs/sha256/${file}`);
  tar.create({ file: archive, sync: true, portable: true, mtime: new Date(epoch * 1000), cwd: layout, noDirRecurse: true }, [
    "blobs",
    "blobs/sha256",
    ...blobs,
    "index.json",
    "oci-layout",
  ]);
}

/** @typedef {{ platform: string, digest: string, compressedSize: number }} BuiltManifest One platform's image: `linux/<arch>`, its manifest's digest, the sum of its config's and layers' sizes. */
/** @typedef {{ layout: string, archive: string, sbom: string, indexDigest: string, manifests: BuiltManifest[] }} BuiltImage What {@link buildReferenceServerImage} writes. */

/** Each platform's image of the layout, in the index's order. @param {string} layout @param {string} indexDigest @returns {BuiltManifest[]} */
function builtManifests(layout, indexDigest) {
  /** @type {(digest: string) => any} */
  const read = (digest) => JSON.parse(fs.readFileSync(path.join(layout, "blobs", "sha256", digest.replace(/^sha256:/, "")), "utf8"));
  return read(indexDigest).manifests.map((/** @type {{ digest: string, platform: { os: string, architecture: string } }} */ descriptor) => {
    const manifest = read(descriptor.digest);
    const compressedSize =
      manifest.config.size + manifest.layers.reduce((/** @type {number} */ sum, /** @type {{ size: number }} */ layer) => sum + layer.size, 0);
    return { platform: `${descriptor.platform.os}/${descriptor.platform.architecture}`, digest: descriptor.digest, compressedSize };
  });
}

/** The name of the image's tar file in a release. @param {string} version */
const imageArchiveName = (version) => `${SERVER}-v${version}-oci.tar`;

/**
 * Builds the reference server's linux/amd64 and linux/arm64 images from the Dockerfile into the
 * OCI layout `<outDir>/analytics-reference-server-oci/`, the same as one tar,
 * `<outDir>/analytics-reference-server-v<version>-oci.tar`, and the SBOM of their Debian packages
 * beside it; `time` dates the images, their files and the tar.
 * @param {{ binaries: Record<ImageArch, string>, outDir: string, time: Date, log?: (line: string) => void }} options
 * @returns {Promise<BuiltImage>}
 */
async function buildReferenceServerImage({ binaries, outDir, time, log = (line) => process.stderr.write(`${line}\n`) }) {
  const version = packageVersion();
  const epoch = Math.floor(time.getTime() / 1000);
  const layout = path.join(outDir, `${SERVER}-oci`);
  const context = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-image-context-"));
  try {
    layContext(context, binaries);
    fs.rmSync(layout, { recursive: true, force: true });
    fs.mkdirSync(outDir, { recursive: true });
    const build = { dockerfile: DOCKERFILE, context, platforms: Object.values(PLATFORMS), args: buildArgs(version), epoch, output: ociOutput(layout) };
    await imageBuilder(process.env.IMAGE_BUILDER || undefined)(build, { log });
  } finally {
    fs.rmSync(context, { recursive: true, force: true });
  }
  nameImage(layout, imageName(version));
  const archive = path.join(outDir, imageArchiveName(version));
  writeLayoutTar(layout, archive, epoch);
  const sbom = path.join(outDir, `${SERVER}-v${version}-oci.cdx.json`);
  fs.writeFileSync(sbom, `${JSON.stringify(imageSbom(version, time), null, 2)}\n`);
  const indexDigest = JSON.parse(fs.readFileSync(path.join(layout, "index.json"), "utf8")).manifests[0].digest;
  const manifests = builtManifests(layout, indexDigest);
  for (const m of manifests) log(`image: ${m.platform} ${m.digest} (${(m.compressedSize / 1e6).toFixed(1)} MB compressed)`);
  log(`image: index ${indexDigest}, ${imageName(version)}, in ${archive}`);
  return { layout, archive, sbom, indexDigest, manifests };
}

module.exports = { buildReferenceServerImage, imageArchiveName, imageName };

if (require.main === module) {
  const args = process.argv.slice(2);
  /** @param {string} flag */
  const value = (flag) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
  const amd64 = value("--amd64");
  const arm64 = value("--arm64");
  if (!amd64 || !arm64) {
    process.stderr.write(
      "usage: node tools/build-reference-server-image.js --amd64 <linux-x64 executable> --arm64 <linux-arm64 executable> [--out <dir>, default build/image]\n",
    );
    process.exit(2);
  }
  const main = async () => {
    const out = path.resolve(value("--out") ?? path.join(ROOT, "build", "image"));
    await buildReferenceServerImage({
      binaries: { amd64: path.resolve(amd64), arm64: path.resolve(arm64) },
      outDir: out,
      time: new Date(sourceDateEpoch() * 1000),
    });
  };
  main().catch((error) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}

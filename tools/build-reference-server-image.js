#!/usr/bin/env node
// @ts-check
/**
 * Builds the reference server's container image without a container engine: from the Linux x64
 * and arm64 single-file executables (tools/build-reference-server-binary.js), an OCI image layout
 * (`oci-layout`, `index.json`, `blobs/sha256/`) whose `index.json` names one image index, tagged
 * with the package's version, of a linux/amd64 and a linux/arm64 image, and the same layout as
 * one tar file, `analytics-reference-server-v<version>-oci.tar`, which
 * `skopeo copy oci-archive:<file>:<version> ...` and `podman load` read.
 *
 * Each platform's image is one gzipped layer: the executable at
 * /usr/local/bin/analytics-reference-server; the C and C++ runtime libraries Node.js links
 * (the dynamic loader, libc, libm, libdl, libpthread, libstdc++, libgcc_s), copied from this
 * machine's Debian packages ({@link RUNTIME}), whose names and versions the image's labels and a
 * CycloneDX SBOM record; /etc/passwd and /etc/group with the user `analytics` (65532:65532), who
 * owns the volume /data; and /tmp. No shell and no other program.
 *
 * Two builds from the same files and time give the same bytes: tar entries sorted, one mtime,
 * fixed owners, gzip without a timestamp or name (tools/lib/tar-gz.js), and canonical JSON (keys
 * sorted, no spaces).
 * Usage: node tools/build-reference-server-image.js --amd64 <file> --arm64 <file> [--out <dir>, default build/image]
 */
"use strict";
const { execFileSync } = require("node:child_process");
const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");
const { packageVersion, sourceDateEpoch } = require("./build-plugin-archive.js");
const { REFERENCE_SERVER: SERVER } = require("./build-reference-server-binary.js");
const { ROOT, projectIdentity, readManifest } = require("./lib/project-identity.js");
const { gzipReproducible, tarBytes, writeTar } = require("./lib/tar-gz.js");

/** The user the server runs as, and who owns /data: the conventional "nonroot" ids of distroless images. */
const USER = { name: "analytics", uid: 65532, gid: 65532 };

/** The port the server listens on inside the container. */
const PORT = 8080;

/** @typedef {"amd64" | "arm64"} ImageArch */
/** @typedef {{ name: string, source: string, package: string }} RuntimeLibrary A library of the image: its file name, the file it is copied from, the Debian package (with its architecture) that installs that file here. */
/**
 * What one platform's image holds besides the executable: the folder of its libraries, the
 * libraries, and the dynamic loader's path the executable names (a link into that folder).
 * @typedef {{ libDir: string, loader: { path: string, target: string }, libraries: RuntimeLibrary[] }} PlatformRuntime
 */

/**
 * The libraries the pinned Node.js links (`readelf -d`: libdl, libstdc++, libm, libgcc_s,
 * libpthread, libc, and the loader), from the Debian packages of this machine: amd64's own
 * (libc6, libstdc++6, libgcc-s1) and arm64's cross packages (libc6-arm64-cross,
 * libstdc++6-arm64-cross, libgcc-s1-arm64-cross), which hold the arm64 builds of the same sources.
 * @type {Record<ImageArch, PlatformRuntime>}
 */
const RUNTIME = {
  amd64: runtimeOf("x86_64-linux-gnu", "ld-linux-x86-64.so.2", "lib64", {
    "libc6:amd64": "/lib/x86_64-linux-gnu",
    "libstdc++6:amd64": "/usr/lib/x86_64-linux-gnu",
    "libgcc-s1:amd64": "/lib/x86_64-linux-gnu",
  }),
  arm64: runtimeOf("aarch64-linux-gnu", "ld-linux-aarch64.so.1", "lib", {
    "libc6-arm64-cross": "/usr/aarch64-linux-gnu/lib",
    "libstdc++6-arm64-cross": "/usr/aarch64-linux-gnu/lib",
    "libgcc-s1-arm64-cross": "/usr/aarch64-linux-gnu/lib",
  }),
};

/**
 * One platform's runtime: the libraries in /lib/<triplet>, the loader linked from /<loaderDir>/<loader>.
 * @param {string} triplet @param {string} loader @param {string} loaderDir
 * @param {{ [libc: string]: string }} from the folder of each package's files, libc's first, then libstdc++'s, then libgcc's
 * @returns {PlatformRuntime}
 */
function runtimeOf(triplet, loader, loaderDir, from) {
  const [libc, libstdcxx, libgcc] = Object.keys(from);
  /** @type {[string, string][]} */
  const files = [[loader, libc], ["libc.so.6", libc], ["libm.so.6", libc], ["libdl.so.2", libc], ["libpthread.so.0", libc], ["libstdc++.so.6", libstdcxx], ["libgcc_s.so.1", libgcc]];
  const libDir = `lib/${triplet}`;
  return {
    libDir,
    loader: { path: `${loaderDir}/${loader}`, target: `/${libDir}/${loader}` },
    libraries: files.map(([name, pkg]) => ({ name, source: path.join(from[pkg], name), package: pkg })),
  };
}

/** Each Debian package of `runtime` and its installed version (`dpkg-query`). @param {PlatformRuntime} runtime @returns {{ name: string, version: string, architecture: string }[]} */
function debianPackages(runtime) {
  const names = [...new Set(runtime.libraries.map((library) => library.package))].sort();
  return names.map((name) => {
    const [version, architecture] = execFileSync("dpkg-query", ["--show", "--showformat=${Version} ${Architecture}", name], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim().split(" ");
    return { name, version, architecture };
  });
}

/** `value` as canonical JSON: object keys sorted at every level, no spaces. @param {unknown} value @returns {string} */
function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const record = /** @type {Record<string, unknown>} */ (value);
    return `{${Object.keys(record).sort().filter((key) => record[key] !== undefined).map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The sha256 of `data` as an OCI digest. @param {Buffer | string} data */
const sha256 = (data) => `sha256:${crypto.createHash("sha256").update(data).digest("hex")}`;

/**
 * The entries of one platform's file system, sorted by name (a folder before what it holds).
 * @param {string} binary @param {PlatformRuntime} runtime
 * @returns {import("./lib/tar-gz.js").TarEntry[]}
 */
function rootfsEntries(binary, runtime) {
  const owned = { uid: USER.uid, gid: USER.gid };
  /** @type {import("./lib/tar-gz.js").TarEntry[]} */
  const entries = [
    { name: "data/", type: "directory", mode: 0o755, ...owned },
    { name: "etc/", type: "directory", mode: 0o755 },
    { name: "etc/group", mode: 0o644, data: Buffer.from(`root:x:0:\n${USER.name}:x:${USER.gid}:\n`) },
    { name: "etc/passwd", mode: 0o644, data: Buffer.from(`root:x:0:0:root:/root:/sbin/nologin\n${USER.name}:x:${USER.uid}:${USER.gid}:${USER.name}:/data:/sbin/nologin\n`) },
    { name: "tmp/", type: "directory", mode: 0o1777 },
    { name: "usr/", type: "directory", mode: 0o755 },
    { name: "usr/local/", type: "directory", mode: 0o755 },
    { name: "usr/local/bin/", type: "directory", mode: 0o755 },
    { name: `usr/local/bin/${SERVER}`, mode: 0o755, source: binary },
    { name: runtime.loader.path, type: "symlink", mode: 0o777, target: runtime.loader.target },
    ...runtime.libraries.map((library) => ({ name: `${runtime.libDir}/${library.name}`, mode: 0o755, source: library.source })),
  ];
  const folders = new Set(entries.filter((entry) => entry.type === "directory").map((entry) => entry.name));
  for (const entry of [...entries]) {
    const parts = entry.name.replace(/\/$/, "").split("/");
    for (let i = 1; i < parts.length; i++) {
      const folder = `${parts.slice(0, i).join("/")}/`;
      if (!folders.has(folder)) entries.push({ name: folder, type: "directory", mode: 0o755 }), folders.add(folder);
    }
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The image's annotations (and labels): the OCI ones from package.json, and the Debian packages of `arch`'s libraries when given. @param {string} version @param {ImageArch} [arch] */
function annotations(version, arch) {
  const manifest = readManifest();
  const identity = projectIdentity(manifest);
  const { repository } = identity;
  /** @type {Record<string, string>} */
  const result = {
    "org.opencontainers.image.title": SERVER,
    "org.opencontainers.image.description": manifest.description,
    "org.opencontainers.image.source": repository,
    "org.opencontainers.image.url": repository,
    "org.opencontainers.image.version": version,
    "org.opencontainers.image.licenses": manifest.license,
  };
  const revision = gitRevision();
  if (revision) result["org.opencontainers.image.revision"] = revision;
  if (arch) result[`${identity.javaGroupId}.${identity.name}.debian-packages`] = debianPackages(RUNTIME[arch]).map((p) => `${p.name}=${p.version}`).join(" ");
  return result;
}

/** The commit being built, or undefined outside a git checkout. */
function gitRevision() {
  try {
    return execFileSync("git", ["rev-parse", "HEAD"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return undefined;
  }
}

/** @typedef {{ mediaType: string, digest: string, size: number, platform?: { os: string, architecture: string, variant?: string }, annotations?: Record<string, string> }} Descriptor An OCI content descriptor. */
/** @typedef {{ platform: string, digest: string, compressedSize: number }} BuiltManifest One platform's image: `linux/<arch>`, its manifest's digest, the sum of its config's and layer's sizes. */
/**
 * What {@link buildReferenceServerImage} writes: the layout folder, the tar of it, the index's
 * digest (the tag's), each platform's image, and the CycloneDX SBOM of the Debian packages.
 * @typedef {{ layout: string, archive: string, sbom: string, indexDigest: string, manifests: BuiltManifest[] }} BuiltImage
 */

/** The blobs of a layout being written: digest to bytes. */
class Blobs {
  /** @type {Map<string, Buffer>} */
  byDigest = new Map();
  /** Stores `data` and returns its descriptor. @param {string} mediaType @param {Buffer | string} data @returns {Descriptor} */
  add(mediaType, data) {
    const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data);
    const digest = sha256(bytes);
    this.byDigest.set(digest, bytes);
    return { mediaType, digest, size: bytes.length };
  }
}

/**
 * One platform's image config: how the server starts (the entrypoint, and the arguments a `run`
 * replaces: every interface, port 8080, the state in the volume, a key for the user `ci`), who
 * it runs as, its labels and its single layer.
 * @param {ImageArch} arch @param {string} diffId @param {Date} time @param {Record<string, string>} labels
 */
function imageConfig(arch, diffId, time, labels) {
  return {
    architecture: arch,
    os: "linux",
    variant: arch === "arm64" ? "v8" : undefined,
    created: time.toISOString(),
    config: {
      User: `${USER.uid}:${USER.gid}`,
      Env: ["PATH=/usr/local/bin:/usr/bin:/bin"],
      Entrypoint: [`/usr/local/bin/${SERVER}`],
      Cmd: ["--host", "0.0.0.0", "--port", String(PORT), "--state", "/data/state.json", "--key-user", "ci"],
      ExposedPorts: { [`${PORT}/tcp`]: {} },
      Volumes: { "/data": {} },
      WorkingDir: "/data",
      StopSignal: "SIGTERM",
      Labels: labels,
    },
    rootfs: { type: "layers", diff_ids: [diffId] },
    history: [{ created: time.toISOString(), created_by: "tools/build-reference-server-image.js" }],
  };
}

/**
 * Adds one platform's layer, config and manifest to `blobs`; returns the manifest's descriptor.
 * @param {Blobs} blobs @param {ImageArch} arch @param {string} binary @param {Date} time @param {string} version
 */
function addPlatformImage(blobs, arch, binary, time, version) {
  const tar = tarBytes(rootfsEntries(binary, RUNTIME[arch]), Math.floor(time.getTime() / 1000));
  const layer = blobs.add("application/vnd.oci.image.layer.v1.tar+gzip", gzipReproducible(tar));
  const labels = annotations(version, arch);
  const config = blobs.add("application/vnd.oci.image.config.v1+json", canonicalJson(imageConfig(arch, sha256(tar), time, labels)));
  const manifest = { schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json", config, layers: [layer], annotations: { ...labels, "org.opencontainers.image.created": time.toISOString() } };
  const descriptor = blobs.add(manifest.mediaType, canonicalJson(manifest));
  const platform = { os: "linux", architecture: arch, variant: arch === "arm64" ? "v8" : undefined };
  return { descriptor: { ...descriptor, platform }, compressedSize: config.size + layer.size };
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
      return { type: "library", "bom-ref": `${arch}:${purl}`, name: p.name.replace(/:.*$/, ""), version: p.version, purl, description: `In the linux/${arch} image: ${RUNTIME[arch].libraries.filter((l) => l.package === p.name).map((l) => l.name).join(", ")}` };
    }),
  );
  return { bomFormat: "CycloneDX", specVersion: "1.5", version: 1, metadata: { timestamp: time.toISOString(), component: { type: "container", name: SERVER, version } }, components };
}

/** The distribution whose packages these are (`ID` of /etc/os-release: debian, ubuntu), the namespace of their purls. */
function osReleaseId() {
  const text = fs.existsSync("/etc/os-release") ? fs.readFileSync("/etc/os-release", "utf8") : "";
  return /^ID="?([^"\n]+)"?$/m.exec(text)?.[1] ?? "debian";
}

/** The name of the image's tar file in a release. @param {string} version */
const imageArchiveName = (version) => `${SERVER}-v${version}-oci.tar`;

/**
 * Writes the OCI image layout of the reference server's linux/amd64 and linux/arm64 images into
 * `<outDir>/${SERVER}-oci/`, the same as one tar, `<outDir>/${SERVER}-v<version>-oci.tar`, and the
 * SBOM of their Debian packages beside it; `time` dates every file and the images.
 * @param {{ binaries: Record<ImageArch, string>, outDir: string, time: Date, log?: (line: string) => void }} options
 * @returns {BuiltImage}
 */
function buildReferenceServerImage({ binaries, outDir, time, log = (line) => process.stderr.write(`${line}\n`) }) {
  const version = packageVersion();
  const blobs = new Blobs();
  const built = /** @type {ImageArch[]} */ (["amd64", "arm64"]).map((arch) => ({ arch, ...addPlatformImage(blobs, arch, binaries[arch], time, version) }));
  const index = { schemaVersion: 2, mediaType: "application/vnd.oci.image.index.v1+json", manifests: built.map((b) => b.descriptor), annotations: { ...annotations(version), "org.opencontainers.image.created": time.toISOString() } };
  const indexDescriptor = blobs.add(index.mediaType, canonicalJson(index));
  const top = { schemaVersion: 2, mediaType: index.mediaType, manifests: [{ ...indexDescriptor, annotations: { "org.opencontainers.image.ref.name": version } }] };
  const files = new Map(/** @type {[string, Buffer][]} */ ([["oci-layout", Buffer.from(canonicalJson({ imageLayoutVersion: "1.0.0" }))], ["index.json", Buffer.from(canonicalJson(top))]]));
  for (const [digest, data] of blobs.byDigest) files.set(`blobs/sha256/${digest.slice("sha256:".length)}`, data);
  const layout = path.join(outDir, `${SERVER}-oci`);
  fs.rmSync(layout, { recursive: true, force: true });
  fs.mkdirSync(path.join(layout, "blobs", "sha256"), { recursive: true });
  for (const [name, data] of files) fs.writeFileSync(path.join(layout, name), data);
  /** @type {import("./lib/tar-gz.js").TarEntry[]} */
  const entries = [{ name: "blobs/", type: "directory", mode: 0o755 }, { name: "blobs/sha256/", type: "directory", mode: 0o755 }, ...[...files].map(([name, data]) => ({ name, mode: 0o644, data }))];
  const archive = path.join(outDir, imageArchiveName(version));
  writeTar(archive, entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)), Math.floor(time.getTime() / 1000));
  const sbom = path.join(outDir, `${SERVER}-v${version}-oci.cdx.json`);
  fs.writeFileSync(sbom, `${JSON.stringify(imageSbom(version, time), null, 2)}\n`);
  const manifests = built.map((b) => ({ platform: `linux/${b.arch}`, digest: b.descriptor.digest, compressedSize: b.compressedSize }));
  for (const m of manifests) log(`image: ${m.platform} ${m.digest} (${(m.compressedSize / 1e6).toFixed(1)} MB compressed)`);
  log(`image: index ${indexDescriptor.digest}, tag ${version}, in ${archive}`);
  return { layout, archive, sbom, indexDigest: indexDescriptor.digest, manifests };
}

module.exports = { PORT, RUNTIME, SERVER, USER, buildReferenceServerImage, canonicalJson, imageArchiveName, rootfsEntries };

if (require.main === module) {
  const args = process.argv.slice(2);
  /** @param {string} flag */
  const value = (flag) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
  const amd64 = value("--amd64");
  const arm64 = value("--arm64");
  if (!amd64 || !arm64) {
    process.stderr.write("usage: node tools/build-reference-server-image.js --amd64 <linux-x64 executable> --arm64 <linux-arm64 executable> [--out <dir>, default build/image]\n");
    process.exit(2);
  }
  try {
    const out = path.resolve(value("--out") ?? path.join(ROOT, "build", "image"));
    buildReferenceServerImage({ binaries: { amd64: path.resolve(amd64), arm64: path.resolve(arm64) }, outDir: out, time: new Date(sourceDateEpoch() * 1000) });
  } catch (error) {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}

/**
 * tools/build-reference-server-image.js (the Dockerfile, built by the pinned BuildKit: buildkitd
 * started for each build) on two small stand-in executables: two builds give the same bytes; the
 * OCI layout names one index of linux/amd64 and linux/arm64 by the image's full name, which
 * `podman load` gives the image; each config is the Dockerfile's as BuildKit writes it (the user,
 * port, volume, entrypoint, labels and the exec-form health check); the layers, one per COPY and
 * WORKDIR's empty one, hold the executable, the Debian runtime libraries, the user and the volume,
 * dated with the build's time; the archive is the layout in one tar, entries sorted. And
 * tools/lib/buildkit.js: buildkitd answers while the build runs and is stopped after it, failed or
 * not. test/release/reference-image.test.ts runs the real image.
 */
import { execFileSync } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { buildReferenceServerImage, imageName } from "../../tools/build-reference-server-image.js";
import { BUILDCTL, BUILDKITD, BUILDKIT_VERSION, withBuildkitd } from "../../tools/lib/buildkit.js";
import { projectIdentity } from "../../tools/lib/project-identity.js";
import { repoRoot } from "../support/pulumi-workspace";

const TIME = new Date("2026-01-02T03:04:05Z");
/** The Dockerfile's labels besides the Debian packages', whose namespace is the project's (its Maven groupId and name). */
const LABELS = ["title", "description", "source", "url", "version", "revision", "licenses"].map((key) => `org.opencontainers.image.${key}`);
const LABEL_NAMESPACE = `${projectIdentity().javaGroupId}.${projectIdentity().name}`;
const VERSION = (JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }).version;
const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reference-image-build-"));
  dirs.push(dir);
  return dir;
};

/** Two stand-in executables, one per platform. */
function fakeBinaries(): { amd64: string; arm64: string } {
  const dir = tempDir();
  const files = { amd64: path.join(dir, "amd64"), arm64: path.join(dir, "arm64") };
  for (const [arch, file] of Object.entries(files)) fs.writeFileSync(file, `not really the ${arch} server\n`, { mode: 0o755 });
  return files;
}

interface TarMember {
  name: string;
  mode: number;
  uid: number;
  gid: number;
  type: string;
  link: string;
  mtime: number;
  data: Buffer;
}

/** The members of a tar archive (an empty numeric field reads as 0). */
function readTar(tar: Buffer): TarMember[] {
  const members: TarMember[] = [];
  const text = (offset: number, length: number) => tar.toString("utf8", offset, offset + length).replace(/\0.*$/s, "");
  const octal = (offset: number, length: number) => parseInt(text(offset, length) || "0", 8);
  for (let at = 0; at + 512 <= tar.length && tar[at] !== 0; ) {
    const size = octal(at + 124, 12);
    members.push({
      name: text(at, 100),
      mode: octal(at + 100, 8) & 0o7777,
      uid: octal(at + 108, 8),
      gid: octal(at + 116, 8),
      mtime: octal(at + 136, 12),
      type: text(at + 156, 1),
      link: text(at + 157, 100),
      data: tar.subarray(at + 512, at + 512 + size),
    });
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return members;
}

describe("the reference server's image, built from the Dockerfile", () => {
  let first: Awaited<ReturnType<typeof buildReferenceServerImage>>;
  let second: Awaited<ReturnType<typeof buildReferenceServerImage>>;
  let binaries: { amd64: string; arm64: string };
  const blob = (digest: string) => fs.readFileSync(path.join(first.layout, "blobs", "sha256", digest.replace(/^sha256:/, "")));
  const json = (digest: string) => JSON.parse(blob(digest).toString("utf8"));

  // The first build of the pinned BuildKit into the project cache takes minutes.
  beforeAll(async () => {
    binaries = fakeBinaries();
    first = await buildReferenceServerImage({ binaries, outDir: tempDir(), time: TIME, log: () => {} });
    second = await buildReferenceServerImage({ binaries, outDir: tempDir(), time: TIME, log: () => {} });
  }, 1_800_000);
  afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

  it("gives the same bytes, so the same digests, when built twice from the same files", () => {
    expect(second.indexDigest).toBe(first.indexDigest);
    expect(second.manifests).toEqual(first.manifests);
    expect(fs.readFileSync(second.archive).equals(fs.readFileSync(first.archive))).toBe(true);
  });

  it("writes an OCI layout whose index.json names an index of linux/amd64 and linux/arm64 by the image's full name", () => {
    expect(JSON.parse(fs.readFileSync(path.join(first.layout, "oci-layout"), "utf8"))).toEqual({ imageLayoutVersion: "1.0.0" });
    const top = JSON.parse(fs.readFileSync(path.join(first.layout, "index.json"), "utf8"));
    expect(imageName(VERSION)).toMatch(new RegExp(`^ghcr\\.io/[a-z0-9-]+/analytics-reference-server:${VERSION.replace(/\./g, "\\.")}$`));
    expect(top.manifests).toEqual([
      expect.objectContaining({
        digest: first.indexDigest,
        mediaType: "application/vnd.oci.image.index.v1+json",
        annotations: { "org.opencontainers.image.ref.name": imageName(VERSION), "io.containerd.image.name": imageName(VERSION) },
      }),
    ]);
    const index = json(first.indexDigest);
    expect(index.manifests.map((m: { platform: unknown }) => m.platform)).toEqual([
      { os: "linux", architecture: "amd64" },
      { os: "linux", architecture: "arm64" },
    ]);
    expect(first.manifests.map((m) => m.platform)).toEqual(["linux/amd64", "linux/arm64"]);
    for (const file of fs.readdirSync(path.join(first.layout, "blobs", "sha256"))) {
      expect(
        crypto
          .createHash("sha256")
          .update(fs.readFileSync(path.join(first.layout, "blobs", "sha256", file)))
          .digest("hex"),
      ).toBe(file);
    }
  });

  it("configures each image as the Dockerfile says: 65532 on 8080, the state in /data, the labels, and the health check in exec form", () => {
    for (const [i, arch] of [
      [0, "amd64"],
      [1, "arm64"],
    ] as const) {
      const manifest = json(first.manifests[i]!.digest);
      const config = json(manifest.config.digest);
      expect(config).toMatchObject({ architecture: arch, os: "linux", created: TIME.toISOString().replace(".000Z", "Z") });
      expect(config.config).toMatchObject({
        User: "65532:65532",
        ExposedPorts: { "8080/tcp": {} },
        Entrypoint: ["/usr/local/bin/analytics-reference-server"],
        Cmd: ["--host", "0.0.0.0", "--port", "8080", "--state", "/data/state.json", "--key-user", "ci"],
        WorkingDir: "/data",
        Volumes: { "/data": {} },
        StopSignal: "SIGTERM",
        Healthcheck: { Test: ["CMD", "/usr/local/bin/analytics-reference-server", "ready"], Interval: 2e9, Timeout: 5e9, StartPeriod: 30e9, Retries: 3 },
      });
      expect(config.config.Labels).toMatchObject({
        "org.opencontainers.image.title": "analytics-reference-server",
        "org.opencontainers.image.licenses": "Apache-2.0",
        "org.opencontainers.image.version": VERSION,
      });
      expect(Object.keys(config.config.Labels).sort()).toEqual([...LABELS, `${LABEL_NAMESPACE}.debian-packages`].sort());
      expect(Object.entries(config.config.Labels).find(([key]) => key.endsWith(".debian-packages"))?.[1]).toMatch(
        /^libatomic1:amd64=\S+ libc6:amd64=\S+ libgcc-s1:amd64=\S+ libstdc\+\+6:amd64=\S+ libatomic1-arm64-cross=\S+ libc6-arm64-cross=\S+ libgcc-s1-arm64-cross=\S+ libstdc\+\+6-arm64-cross=\S+$/,
      );
      const layers = manifest.layers as { digest: string; size: number }[];
      expect(config.rootfs.diff_ids).toEqual(
        layers.map(
          (layer) =>
            `sha256:${crypto
              .createHash("sha256")
              .update(zlib.gunzipSync(blob(layer.digest)))
              .digest("hex")}`,
        ),
      );
      expect(first.manifests[i]!.compressedSize).toBe(manifest.config.size + layers.reduce((sum, layer) => sum + layer.size, 0));
    }
  });

  it("puts each COPY of the Dockerfile in a layer, in order, then WORKDIR's empty one, every entry dated with the build's time", () => {
    for (const [i, arch, triplet, loader] of [
      [0, "amd64", "x86_64-linux-gnu", "lib64/ld-linux-x86-64.so.2"],
      [1, "arm64", "aarch64-linux-gnu", "lib/ld-linux-aarch64.so.1"],
    ] as const) {
      const manifest = json(first.manifests[i]!.digest);
      const layers = (manifest.layers as { digest: string }[]).map((layer) => readTar(zlib.gunzipSync(blob(layer.digest))));
      const libraries = ["libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "libstdc++.so.6", "libgcc_s.so.1", "libatomic.so.1", path.basename(loader)];
      // Each layer's files and links: the libraries, the loader's link, /etc, /data (a folder alone), the executable, WORKDIR's.
      expect(
        layers.map((members) =>
          members
            .filter((m) => m.type !== "5")
            .map((m) => m.name)
            .sort(),
        ),
      ).toEqual([
        libraries.map((lib) => `lib/${triplet}/${lib}`).sort(),
        [loader],
        ["etc/group", "etc/passwd"],
        [],
        ["usr/local/bin/analytics-reference-server"],
        [],
      ]);
      const members = layers.flat();
      const byName = new Map(members.map((m) => [m.name, m]));
      expect(new Set(members.map((m) => m.mtime))).toEqual(new Set([TIME.getTime() / 1000]));
      expect(new Set(members.filter((m) => m.name !== "data/").map((m) => `${m.uid}:${m.gid}`))).toEqual(new Set(["0:0"]));
      expect(byName.get("usr/local/bin/analytics-reference-server")).toMatchObject({ mode: 0o755, data: fs.readFileSync(binaries[arch]) });
      expect(byName.get("data/")).toMatchObject({ type: "5", uid: 65532, gid: 65532 });
      expect(byName.get("tmp/")).toMatchObject({ type: "5", mode: 0o1777 });
      expect(byName.get("etc/passwd")?.data.toString()).toContain("analytics:x:65532:65532:");
      expect(byName.get("etc/group")?.data.toString()).toContain("analytics:x:65532:");
      expect(byName.get(loader)).toMatchObject({ type: "2", link: `/lib/${triplet}/${path.basename(loader)}` });
      for (const lib of libraries) expect(byName.get(`lib/${triplet}/${lib}`)?.data.subarray(0, 4).toString("latin1"), lib).toBe("\x7fELF");
    }
  });

  it("packs the layout into one tar, entries sorted, dated with the build's time and owned by no one", () => {
    const members = readTar(fs.readFileSync(first.archive));
    expect(path.basename(first.archive)).toBe(`analytics-reference-server-v${VERSION}-oci.tar`);
    expect(members.map((m) => m.name)).toEqual([
      "blobs/",
      "blobs/sha256/",
      ...fs
        .readdirSync(path.join(first.layout, "blobs", "sha256"))
        .sort()
        .map((f) => `blobs/sha256/${f}`),
      "index.json",
      "oci-layout",
    ]);
    expect(new Set(members.filter((m) => m.type === "0").map((m) => m.mtime))).toEqual(new Set([TIME.getTime() / 1000]));
    expect(new Set(members.map((m) => `${m.uid}:${m.gid}`))).toEqual(new Set(["0:0"]));
    expect(members.find((m) => m.name === "index.json")?.data.equals(fs.readFileSync(path.join(first.layout, "index.json")))).toBe(true);
  });

  it("is loaded by `podman load` under its full name, not localhost/<version>", () => {
    const store = tempDir();
    const podman = (...args: string[]) =>
      execFileSync("podman", ["--root", path.join(store, "root"), "--runroot", path.join(store, "run"), "--storage-driver", "vfs", ...args], {
        encoding: "utf8",
      });
    expect(podman("load", "--quiet", "--input", first.archive)).toContain(`Loaded image: ${imageName(VERSION)}`);
    expect(podman("images", "--format", "{{.Repository}}:{{.Tag}}").trim()).toBe(imageName(VERSION));
  }, 120_000);
});

/** Whether process `pid` still runs (signal 0 checks without sending). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("BuildKit for one build (tools/lib/buildkit.js)", () => {
  it("is pinned by tools/pinned/buildkit at the release it names, both mains imported, with a complete go.sum", () => {
    const version = BUILDKIT_VERSION.replace(/\./g, "\\.");
    const file = (name: string) => fs.readFileSync(path.join(BUILDKITD.moduleDir, name), "utf8");
    expect(BUILDCTL.moduleDir).toBe(BUILDKITD.moduleDir);
    expect(file("go.mod")).toMatch(new RegExp(`^require github\\.com/moby/buildkit v${version}$`, "m"));
    for (const tool of [BUILDKITD, BUILDCTL]) expect(file("tools.go")).toContain(`_ "${tool.goPackage}"`);
    // The build runs with -mod=readonly and never asks the checksum database.
    expect(file("go.sum")).toMatch(new RegExp(`^github\\.com/moby/buildkit v${version} h1:`, "m"));
  });

  it("starts buildkitd in a folder of its own, answering buildctl during the build, and stops it after, the folder gone", async () => {
    let seen: { pid: number; dir: string; workers: string; during: boolean; socket: boolean } | undefined;
    await withBuildkitd(
      async ({ buildctl, pid, dir }) => {
        seen = {
          pid,
          dir,
          workers: await buildctl(["debug", "workers"], "buildctl debug workers"),
          during: running(pid),
          socket: fs.existsSync(path.join(dir, "buildkitd.sock")),
        };
      },
      { log: () => {} },
    );
    expect(seen?.workers).toMatch(/linux\/amd64/);
    expect(seen).toMatchObject({ during: true, socket: true });
    expect(running(seen!.pid)).toBe(false);
    expect(fs.existsSync(seen!.dir)).toBe(false);
  }, 1_800_000);

  it("stops buildkitd when the build fails, and gives the failure", async () => {
    let started: { pid: number; dir: string } | undefined;
    const failing = withBuildkitd(
      async ({ buildctl, pid, dir }) => {
        started = { pid, dir };
        await buildctl(["build", "--frontend", "dockerfile.v0", "--local", `context=${tempDir()}`, "--local", `dockerfile=${tempDir()}`], "buildctl build");
      },
      { log: () => {} },
    );
    await expect(failing).rejects.toThrow(/^buildctl build failed/);
    expect(started).toBeDefined();
    expect(running(started!.pid)).toBe(false);
    expect(fs.existsSync(started!.dir)).toBe(false);
  }, 1_800_000);

  it("takes no builder IMAGE_BUILDER does not name (buildctl, the default, or buildx)", async () => {
    vi.stubEnv("IMAGE_BUILDER", "kaniko");
    try {
      await expect(buildReferenceServerImage({ binaries: fakeBinaries(), outDir: tempDir(), time: TIME, log: () => {} })).rejects.toThrow(
        "IMAGE_BUILDER=kaniko is none of buildctl, buildx",
      );
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

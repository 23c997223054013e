/**
 * Release rehearsal, the container image: the release folder's oci-archive of the reference
 * server's image index pushed by `tools/publish.js container` (skopeo copy --all, by digest then
 * tagged <version>, as the release workflow pushes it to ghcr.io) to Debian's docker-registry
 * (distribution 2.8.2) on 127.0.0.1; the registry's tag read back as the same index, byte for byte,
 * with its linux/amd64 and linux/arm64 manifests; then `podman pull` of that digest and the pulled
 * image run: ready answers, and a create with the key given in ANALYTICS_API_KEY gets 201. An
 * archive holding anything but one image index is refused before anything is pushed.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { imageArchiveName } from "../../tools/build-reference-server-image.js";
import { containerArchiveName, containerIndexDigest } from "../../tools/publish.js";
import { startDockerRegistry, type ContainerRegistry } from "../support/registries";
import { removeContainers, startContainer } from "../support/reference-image";
import { publish, VERSION } from "../support/release-rehearsal";
import { sharedReleaseFolder } from "../support/release-folder";

/** The repository's path in the registry, as on ghcr.io. */
const REPOSITORY = "pulumi-analytics/analytics-reference-server";
const OCI_INDEX = "application/vnd.oci.image.index.v1+json";
const KEY = `analytics_key_${"R3hearsal".repeat(4).slice(0, 32)}`;

describe("the release's container image, as the release workflow publishes it", () => {
  let dir: string;
  let release: string;
  let registry: ContainerRegistry;
  let pushLog = "";
  let digest: string;

  beforeAll(async () => {
    release = await sharedReleaseFolder();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-rehearsal-container-"));
    registry = await startDockerRegistry(path.join(dir, "registry"));
    digest = containerIndexDigest(path.join(release, containerArchiveName()));
    pushLog = await publish("container", { release, repository: `${registry.host}/${REPOSITORY}`, "tls-verify": "false" });
  }, 900_000);

  afterAll(async () => {
    await registry?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("takes the archive the image builder names (publish.js stays free of the build's dependencies, so it names it too)", () => {
    expect(containerArchiveName()).toBe(imageArchiveName(VERSION));
  });

  it("stores the release's image index under its digest and the version's tag, with both platforms' images", async () => {
    expect(pushLog).toContain(`pushed ${registry.host}/${REPOSITORY}@${digest} as ${registry.host}/${REPOSITORY}:${VERSION}`);
    for (const reference of [VERSION, digest]) {
      const answer = await fetch(`http://${registry.host}/v2/${REPOSITORY}/manifests/${reference}`, { headers: { accept: OCI_INDEX } });
      expect(answer.status).toBe(200);
      const body = Buffer.from(await answer.arrayBuffer());
      expect(answer.headers.get("docker-content-digest")).toBe(digest);
      expect(`sha256:${createHash("sha256").update(body).digest("hex")}`).toBe(digest);
      const index = JSON.parse(body.toString("utf8")) as { mediaType: string; manifests: Array<{ platform: { os: string; architecture: string } }> };
      expect(index.mediaType).toBe(OCI_INDEX);
      expect(index.manifests.map((m) => `${m.platform.os}/${m.platform.architecture}`).sort()).toEqual(["linux/amd64", "linux/arm64"]);
    }
  });

  it("pulls by digest with podman and runs: ready answers, and a create with the key it was given gets 201", async () => {
    const image = `${registry.host}/${REPOSITORY}@${digest}`;
    execFileSync("podman", ["pull", "--quiet", "--tls-verify=false", image], { stdio: ["ignore", "pipe", "inherit"] });
    try {
      const container = await startContainer({ image, env: { ANALYTICS_API_KEY: KEY } });
      expect((await fetch(`${container.url}/_reference/ready`)).status).toBe(200);
      const created = await fetch(`${container.url}/api/public/organizations`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Pulled" }),
      });
      expect(created.status).toBe(201);
      expect(((await created.json()) as { data: { name: string } }).data.name).toBe("Pulled");
      expect(await container.logs()).not.toContain(KEY);
    } finally {
      await removeContainers();
      execFileSync("podman", ["rmi", "--force", image], { stdio: "ignore" });
    }
  }, 300_000);

  it("refuses an archive whose index.json names more than one descriptor, pushing nothing", async () => {
    const copy = path.join(dir, "bad-release");
    const layout = path.join(dir, "bad-layout");
    fs.mkdirSync(copy);
    fs.mkdirSync(layout);
    execFileSync("tar", ["-xf", path.join(release, containerArchiveName()), "-C", layout]);
    const index = JSON.parse(fs.readFileSync(path.join(layout, "index.json"), "utf8")) as { manifests: unknown[] };
    index.manifests.push(index.manifests[0]);
    fs.writeFileSync(path.join(layout, "index.json"), JSON.stringify(index));
    execFileSync("tar", ["-cf", path.join(copy, containerArchiveName()), "-C", layout, "."]);
    const before = await (await fetch(`http://${registry.host}/v2/_catalog`)).text();
    await expect(publish("container", { release: copy, repository: `${registry.host}/other/analytics-reference-server`, "tls-verify": "false" })).rejects.toThrow(
      /index\.json names 2 descriptors, not one image index/,
    );
    expect(await (await fetch(`http://${registry.host}/v2/_catalog`)).text()).toBe(before);
  }, 120_000);
});

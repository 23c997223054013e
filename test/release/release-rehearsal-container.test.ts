/**
 * Release rehearsal, the container image: the release folder's oci-archive of the reference
 * server's image index as the release workflow's container job pushed it in the release run
 * (`tools/publish.js container`: skopeo copy --all, by digest then tagged <version>, to Debian's
 * docker-registry, distribution 2.8.2, on 127.0.0.1), served again by docker-registry; the
 * registry's tag read back as the same index, byte for byte,
 * with its linux/amd64 and linux/arm64 manifests; then `podman pull` of that digest and the pulled
 * image run: ready answers, and a create with the key given in ANALYTICS_API_KEY gets 201. Then
 * Debian's Docker daemon (test/support/dockerd.ts) pulls the same digest and runs it with no
 * health options, as a `services:` entry of GitHub Actions does: healthy by the image's own
 * HEALTHCHECK, `docker stop` within 2 s with the state in the volume, started again and a new
 * container on the same volume. An archive holding anything but one image index is refused before
 * anything is pushed.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { imageArchiveName } from "../../tools/build-reference-server-image.js";
import { containerArchiveName, containerIndexDigest } from "../../tools/publish.js";
import { forwardPolicy, startDockerd, type Dockerd } from "../support/dockerd";
import type { ContainerRegistry } from "../support/registries";
import { servePublishedImages } from "../support/release-run-registries";
import { removeContainers, startContainer } from "../support/reference-image";
import { publish, VERSION } from "../support/release-rehearsal";
import { sharedReleaseRun } from "../support/release-folder";

/** The repository's path in the registry, as on ghcr.io. */
const REPOSITORY = "pulumi-analytics/analytics-reference-server";
const OCI_INDEX = "application/vnd.oci.image.index.v1+json";
const KEY = `analytics_key_${"R3hearsal".repeat(4).slice(0, 32)}`;

describe("the release's container image, as the release workflow publishes it", () => {
  let dir: string;
  let release: string;
  let registry: ContainerRegistry;
  let digest: string;

  beforeAll(async () => {
    const run = await sharedReleaseRun();
    release = run.folder;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-rehearsal-container-"));
    registry = await servePublishedImages(run, path.join(dir, "registry"));
    digest = containerIndexDigest(path.join(release, containerArchiveName()));
  }, 900_000);

  afterAll(async () => {
    await registry?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("takes the archive the image builder names (publish.js stays free of the build's dependencies, so it names it too)", () => {
    expect(containerArchiveName()).toBe(imageArchiveName(VERSION));
  });

  it("serves the release's image index under its digest and the version's tag, with both platforms' images", async () => {
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

  describe("run by Docker", () => {
    let dockerd: Dockerd;
    let policy: string;
    let hadBridge: boolean;
    const created: string[] = [];
    beforeAll(async () => {
      policy = forwardPolicy();
      hadBridge = fs.existsSync("/sys/class/net/docker0");
      dockerd = await startDockerd();
    }, 120_000);
    afterAll(async () => {
      // The daemon's data root, volumes and all, goes with it.
      for (const id of created) await dockerd?.docker(["rm", "--force", id]).catch(() => "");
      await dockerd?.close();
    }, 120_000);

    /** `docker run -d` of `image` with `args` (no health options), remembered for removal. */
    const runDetached = async (args: string[], image: string) => {
      const id = await dockerd.docker(["run", "-d", "--publish", "127.0.0.1::8080", ...args, image]);
      created.push(id);
      return id;
    };
    /** The container's health status once it is no longer `starting`, logging each change. */
    const settledHealth = async (id: string) => {
      for (const started = Date.now(); ; ) {
        const status = await dockerd.docker(["inspect", "--format", "{{.State.Health.Status}}", id]);
        if (status !== "starting" || Date.now() - started > 60_000) {
          process.stderr.write(`[docker] ${id.slice(0, 12)} ${status} after ${Date.now() - started} ms\n`);
          return status;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    /** POST an organization named `name` with the key through the container's published port: the status. */
    const createOrganization = async (id: string, name: string) => {
      const port = /:(\d+)$/.exec(await dockerd.docker(["port", id, "8080/tcp"]))![1];
      const answer = await fetch(`http://127.0.0.1:${port}/api/public/organizations`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ name }),
      });
      return answer.status;
    };

    it("pulls the index by digest, runs it healthy by its own HEALTHCHECK, stops within 2 s keeping the state, and starts again on the same volume", async () => {
      const image = `${registry.host}/${REPOSITORY}@${digest}`;
      await dockerd.docker(["pull", "--quiet", image], 300_000);
      expect(JSON.parse(await dockerd.docker(["image", "inspect", "--format", "{{json .Config.Healthcheck.Test}}", image]))).toEqual([
        "CMD",
        "/usr/local/bin/analytics-reference-server",
        "ready",
      ]);
      const volume = `analytics-rehearsal-${process.pid}`;
      const first = await runDetached(["--volume", `${volume}:/data`, "--env", `ANALYTICS_API_KEY=${KEY}`], image);
      expect(await settledHealth(first)).toBe("healthy");
      process.stderr.write(`[docker] health log: ${await dockerd.docker(["inspect", "--format", "{{json .State.Health}}", first])}\n`);
      expect(await createOrganization(first, "before-stop")).toBe(201);
      const stopping = Date.now();
      await dockerd.docker(["stop", first]);
      const stopMs = Date.now() - stopping;
      process.stderr.write(`[docker] docker stop took ${stopMs} ms\n`);
      expect(stopMs).toBeLessThan(2_000);
      expect(await dockerd.docker(["inspect", "--format", "{{.State.ExitCode}}", first])).toBe("0");
      const stateFile = path.join(await dockerd.docker(["volume", "inspect", "--format", "{{.Mountpoint}}", volume]), "state.json");
      expect(fs.readFileSync(stateFile, "utf8")).toContain("before-stop");
      await dockerd.docker(["start", first]);
      expect(await settledHealth(first)).toBe("healthy");
      expect(await createOrganization(first, "after-start")).toBe(201);
      await dockerd.docker(["stop", first]);
      const second = await runDetached(["--volume", `${volume}:/data`, "--env", `ANALYTICS_API_KEY=${KEY}`], image);
      expect(await settledHealth(second)).toBe("healthy");
      expect(await createOrganization(second, "new-container")).toBe(201);
      await dockerd.docker(["stop", second]);
      const state = fs.readFileSync(stateFile, "utf8");
      for (const name of ["before-stop", "after-start", "new-container"]) expect(state).toContain(name);
      expect(state).not.toContain(KEY);
      expect(await dockerd.docker(["logs", second])).not.toContain(KEY);
    }, 300_000);

    it("stops the daemon, leaving the FORWARD chain's policy and the bridge docker0 as it found them", async () => {
      for (const id of created.splice(0)) await dockerd.docker(["rm", "--force", id]);
      await dockerd.close();
      expect(forwardPolicy()).toBe(policy);
      expect(fs.existsSync("/sys/class/net/docker0")).toBe(hadBridge);
    }, 120_000);
  });

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
    await expect(
      publish("container", { release: copy, repository: `${registry.host}/other/analytics-reference-server`, "tls-verify": "false" }),
    ).rejects.toThrow(/index\.json names 2 descriptors, not one image index/);
    expect(await (await fetch(`http://${registry.host}/v2/_catalog`)).text()).toBe(before);
  }, 120_000);
});

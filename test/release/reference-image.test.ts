/**
 * The reference server's container image as the release ships it (the test run's release folder,
 * `analytics-reference-server-v<version>-oci.tar`), run by podman: a valid OCI index of linux/amd64
 * and linux/arm64, each within 60 MB compressed, rebuilt from the Dockerfile byte for byte from the
 * release's executables; the server as PID 1 running as 65532, on 0.0.0.0:8080, healthy through its own
 * `ready` subcommand, its key from ANALYTICS_API_KEY or minted once per volume, its state in the
 * volume across stops, restarts and new containers, stopping at once on SIGTERM; the Host rule on
 * the published port, and another container reaching it by its network alias when
 * ANALYTICS_ALLOWED_HOSTS names it; the arm64 image under qemu.
 */
import { execFile, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REFERENCE_SERVER, referenceServerArchiveName } from "../../tools/build-reference-server-binary.js";
import { repoRoot } from "../support/pulumi-workspace";
import {
  createNetwork,
  createVolume,
  podman,
  referenceImage,
  removeContainers,
  run,
  startContainer,
  type ReferenceImage,
  type StartedContainer,
} from "../support/reference-image";

const LIMIT_BYTES = 60_000_000;
const KEY = "analytics_key_0123456789abcdefghijklmnopqrstuv";
const MINTED = /API key for ci \(shown once\): (\S+)/g;

let image: ReferenceImage;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "reference-image-test-"));

/** POST /api/public/organizations with `key`: the status and the body. */
async function createOrganization(server: StartedContainer, key: string, name: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${server.url}/api/public/organizations`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name }),
  });
  return { status: response.status, body: await response.text() };
}

/** GET `path` with the Host header `host` (fetch sets its own). */
function getWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { host } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      })
      .on("error", reject);
  });
}

/** The state file of a named volume, as the host sees it. */
async function stateFile(volume: string): Promise<string> {
  return fs.readFileSync(path.join(await podman(["volume", "inspect", "--format", "{{.Mountpoint}}", volume]), "state.json"), "utf8");
}

/** The executable of the release's archive for linux/`arch`, unpacked into the scratch folder. */
function releasedExecutable(release: string, arch: "amd64" | "arm64"): string {
  const dir = path.join(scratch, `bin-${arch}`);
  fs.mkdirSync(dir, { recursive: true });
  execFileSync("tar", ["-xzf", path.join(release, referenceServerArchiveName(image.version, { os: "linux", arch })), "-C", dir, REFERENCE_SERVER]);
  return path.join(dir, REFERENCE_SERVER);
}

beforeAll(async () => {
  image = await referenceImage();
}, 3_600_000);

afterAll(async () => {
  await removeContainers();
  fs.rmSync(scratch, { recursive: true, force: true });
}, 120_000);

describe("the reference server's OCI image", () => {
  it("is an index of linux/amd64 and linux/arm64, each within 60 MB compressed, that umoci unpacks", async () => {
    const index = JSON.parse(execFileSync("skopeo", ["inspect", "--raw", `oci-archive:${image.archive}`], { encoding: "utf8" }));
    expect(index.manifests.map((m: { platform: { architecture: string } }) => m.platform.architecture)).toEqual(["amd64", "arm64"]);
    for (const { digest, platform } of index.manifests as { digest: string; platform: { architecture: string } }[]) {
      const manifest = JSON.parse(execFileSync("tar", ["-xOf", image.archive, `blobs/sha256/${digest.replace(/^sha256:/, "")}`], { encoding: "utf8" }));
      const compressed = manifest.config.size + manifest.layers.reduce((sum: number, layer: { size: number }) => sum + layer.size, 0);
      process.stderr.write(`[image] linux/${platform.architecture}: ${compressed} bytes compressed\n`);
      expect(compressed).toBeLessThanOrEqual(LIMIT_BYTES);
    }
    const layout = path.join(scratch, "layout");
    execFileSync("skopeo", ["copy", "--quiet", "--override-arch", "amd64", `oci-archive:${image.archive}`, `oci:${layout}:amd64`]);
    expect((await run("umoci", ["stat", "--image", `${layout}:amd64`])).code).toBe(0);
    const bundle = path.join(scratch, "bundle");
    execFileSync("umoci", ["unpack", "--image", `${layout}:amd64`, bundle]);
    const rootfs = path.join(bundle, "rootfs");
    expect(fs.statSync(path.join(rootfs, "data"))).toMatchObject({ uid: 65532, gid: 65532 });
    expect(fs.statSync(path.join(rootfs, "tmp")).mode & 0o7777).toBe(0o1777);
    expect(
      fs.readFileSync(path.join(rootfs, "usr/local/bin", REFERENCE_SERVER)).equals(fs.readFileSync(releasedExecutable(path.dirname(image.archive), "amd64"))),
    ).toBe(true);
    expect(fs.readdirSync(path.join(rootfs, "lib/x86_64-linux-gnu")).sort()).toEqual([
      "ld-linux-x86-64.so.2",
      "libatomic.so.1",
      "libc.so.6",
      "libdl.so.2",
      "libgcc_s.so.1",
      "libm.so.6",
      "libpthread.so.0",
      "libstdc++.so.6",
    ]);
  }, 300_000);

  it("is rebuilt byte for byte from the release's executables", async () => {
    const release = path.dirname(image.archive);
    const out = path.join(scratch, "rebuilt");
    // In a child process: the tool as a user runs it (it writes its 110 MB tar synchronously, which would stall this worker).
    const tool = path.join(repoRoot, "tools", "build-reference-server-image.js");
    await promisify(execFile)(process.execPath, [
      tool,
      "--amd64",
      releasedExecutable(release, "amd64"),
      "--arm64",
      releasedExecutable(release, "arm64"),
      "--out",
      out,
    ]);
    const rebuilt = JSON.parse(fs.readFileSync(path.join(out, `${REFERENCE_SERVER}-oci`, "index.json"), "utf8")).manifests[0].digest;
    process.stderr.write(`[image] index ${image.indexDigest}, rebuilt ${rebuilt}\n`);
    expect(rebuilt).toBe(image.indexDigest);
    expect(fs.readFileSync(path.join(out, path.basename(image.archive))).equals(fs.readFileSync(image.archive))).toBe(true);
  }, 600_000);
});

describe("a container of the image", () => {
  it("runs the server as PID 1 as 65532 on 0.0.0.0:8080, healthy through `analytics-reference-server ready`", async () => {
    const server = await startContainer({ runOptions: ["--health-cmd", JSON.stringify([REFERENCE_SERVER, "ready"]), "--health-interval", "disable"] });
    await server.waitForLogs("listening on http://0.0.0.0:8080");
    expect(await podman(["port", server.containerId, "8080/tcp"])).toMatch(/^127\.0\.0\.1:\d+$/);
    const pid = await podman(["inspect", "--format", "{{.State.Pid}}", server.containerId]);
    expect(fs.readFileSync(`/proc/${pid}/status`, "utf8")).toMatch(/^Uid:\t65532\t65532\t65532\t65532$/m);
    expect(fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0]).toBe(`/usr/local/bin/${REFERENCE_SERVER}`);
    const health = await run("podman", ["healthcheck", "run", server.containerId]);
    expect(health.code).toBe(0);
    expect(await podman(["inspect", "--format", "{{.State.Health.Status}}", server.containerId])).toBe("healthy");
    await server.stop();
    expect((await run("podman", ["healthcheck", "run", server.containerId])).code).not.toBe(0);
  }, 120_000);

  it("takes its key from ANALYTICS_API_KEY and never prints it", async () => {
    const server = await startContainer({ env: { ANALYTICS_API_KEY: KEY } });
    const created = await createOrganization(server, KEY, "from-env");
    expect(created.status).toBeLessThan(300);
    expect(JSON.parse(created.body).data.name).toBe("from-env");
    expect((await createOrganization(server, `${KEY.slice(0, -1)}x`, "wrong-key")).status).toBe(401);
    const logs = await server.logs();
    expect(logs).not.toMatch(MINTED);
    expect(logs).not.toContain(KEY);
  }, 120_000);

  it("mints a key once per volume, keeps its state across stop, start and a new container, and stops within 2 s on SIGTERM", async () => {
    const volume = await createVolume();
    const first = await startContainer({ volume });
    const minted = [...(await first.waitForLogs(MINTED)).matchAll(MINTED)].map((match) => match[1]);
    expect(minted).toHaveLength(1);
    expect((await createOrganization(first, minted[0], "before-stop")).status).toBeLessThan(300);
    const stopping = Date.now();
    await first.stop();
    const stopMs = Date.now() - stopping;
    process.stderr.write(`[image] podman stop took ${stopMs} ms\n`);
    expect(stopMs).toBeLessThan(2_000);
    expect(await podman(["inspect", "--format", "{{.State.ExitCode}}", first.containerId])).toBe("0");
    expect(await stateFile(volume)).toContain("before-stop");
    expect(await stateFile(volume)).not.toContain(minted[0]);
    await first.start();
    expect((await createOrganization(first, minted[0], "after-restart")).status).toBeLessThan(300);
    // The request's log line comes after whatever the start printed.
    expect([...(await first.waitForLogs(/(POST \/api\/public\/organizations[^]*){2}/)).matchAll(MINTED)]).toHaveLength(1);
    await first.stop();
    const second = await startContainer({ volume });
    expect((await createOrganization(second, minted[0], "new-container")).status).toBeLessThan(300);
    expect(await second.waitForLogs("POST /api/public/organizations")).not.toMatch(MINTED);
    await second.stop();
    const state = await stateFile(volume);
    for (const name of ["before-stop", "after-restart", "new-container"]) expect(state).toContain(name);
  }, 180_000);

  it("refuses a foreign Host on the published port, and answers another container by the alias ANALYTICS_ALLOWED_HOSTS names", async () => {
    const network = await createNetwork();
    const allowed = await startContainer({ network, alias: "analytics", env: { ANALYTICS_ALLOWED_HOSTS: "analytics" } });
    expect(await getWithHost(`${allowed.url}/_reference/ready`, "evil.example")).toBe(403);
    expect(await getWithHost(`${allowed.url}/_reference/ready`, "analytics")).toBe(200);
    await startContainer({ network, alias: "unlisted" });
    /** `analytics-reference-server ready --url <url>` in a second container of the image on the network. */
    const readyFrom = (url: string) =>
      run("podman", ["run", "--rm", "--network", network, "--entrypoint", `/usr/local/bin/${REFERENCE_SERVER}`, image.ref, "ready", "--url", url]);
    const byAlias = await readyFrom("http://analytics:8080");
    expect(byAlias.code, byAlias.stderr).toBe(0);
    const unlisted = await readyFrom("http://unlisted:8080");
    expect(unlisted.code).toBe(1);
    expect(unlisted.stderr).toContain("403");
  }, 180_000);

  it("runs the linux/arm64 image under qemu", async () => {
    expect(await podman(["image", "inspect", "--format", "{{.Architecture}}", image.arm64Ref])).toBe("arm64");
    const server = await startContainer({
      platform: "linux/arm64",
      runOptions: ["--health-cmd", JSON.stringify([REFERENCE_SERVER, "ready"]), "--health-interval", "disable"],
    });
    await server.waitForLogs("listening on http://0.0.0.0:8080");
    expect((await run("podman", ["healthcheck", "run", server.containerId], 60_000)).code).toBe(0);
  }, 300_000);
});

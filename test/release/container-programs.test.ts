/**
 * Programs against the reference server's container, as a team's CI runs them (docs/reference-
 * server.md, "In CI without Node.js"): the run's image (test/support/reference-image.ts) started
 * by podman with a volume at /data, its port published on 127.0.0.1, and ANALYTICS_API_KEY given
 * to both the container (`--key-user ci` registers it) and the program, with ANALYTICS_BASE_URL
 * the published port; no stack config names the service.
 * - examples/yaml with the single-file plugin of the release folder: `pulumi up`, then the
 *   container stopped and a new one started on the same volume, where the organization the up
 *   made is still the key's user's (a data source created in it answers 201, one in an unknown
 *   organization 404) and the program has nothing to change; the key in no state, output or log.
 * - examples/python with the release's wheel pip-installed into the project's virtualenv and the
 *   single-file plugin (an ELF executable, not the script archive), run with a PATH of only the
 *   CLI's directories (the CLI and its language hosts) and the virtualenv's: `node` is not on it.
 * - the service on a podman network, as a job's container reaches it: by its alias, answered when
 *   ANALYTICS_ALLOWED_HOSTS names it, refused (403) under a name it was not given;
 * - `analytics-reference-server ready` as a health check: in exec form it passes, as a string
 *   (through /bin/sh, as Docker's --health-cmd gives it) it fails, for the image has no shell.
 * Needs `npm run build`, podman and the run's release folder.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { toolchainPathDirs } from "../../toolchain/src/pulumi-cli";
import { pythonDistributions } from "../../tools/publish.js";
import { DS_TYPE, ORG_TYPE, expectNoCredentialLeak } from "../support/example-lifecycle";
import { PulumiWorkspace, repoRoot, resourcesOfType } from "../support/pulumi-workspace";
import { createProgramVenv, resolvePythonEnv } from "../support/python-env";
import { createNetwork, createVolume, podman, referenceImage, removeContainers, run, startContainer, type StartedContainer } from "../support/reference-image";
import { DB_PASSWORD, PLATFORM_ARCHIVE, VERSION } from "../support/release-rehearsal";
import { sharedReleaseFolder } from "../support/release-folder";

const toolchain = inject("pulumiToolchain");

/** A key of the service's format, `analytics_key_` and 32 characters of [0-9A-Za-z]. */
function newApiKey(): string {
  let secret = "";
  while (secret.length < 32)
    secret += randomBytes(32)
      .toString("base64")
      .replace(/[^0-9A-Za-z]/g, "");
  return `analytics_key_${secret.slice(0, 32)}`;
}

/** POST `body` to `path` of the container's API with `key`; the status. */
async function create(container: StartedContainer, key: string, urlPath: string, body: object): Promise<number> {
  const answer = await fetch(`${container.url}${urlPath}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return answer.status;
}

/** The data source the restart check creates, of the spec's shape. */
const PROBE = {
  type: "direct",
  dialect: "POSTGRES",
  displayName: "After restart",
  host: "db.example.com",
  port: 5432,
  databaseName: "analytics",
  username: "reader",
  password: "probe-password-1a2b",
};

/** The stack config the examples read besides the service's: the database's host, user and password (secret). */
async function configureDatabase(ws: PulumiWorkspace): Promise<void> {
  await ws.setConfig({ dbHost: "db.example.com", dbUser: "reader" }, { dbPassword: DB_PASSWORD });
}

/** Where podman keeps a named volume's files on this machine. */
async function volumeFolder(volume: string): Promise<string> {
  return podman(["volume", "inspect", "--format", "{{.Mountpoint}}", volume]);
}

/** The directories of `PATH` holding an executable `name`. */
function onPath(searchPath: string, name: string): string[] {
  return searchPath.split(path.delimiter).filter((dir) => {
    try {
      fs.accessSync(path.join(dir, name), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

describe("examples/yaml against the container, through a restart on the same volume", () => {
  const key = newApiKey();
  let volume: string;
  let container: StartedContainer;
  let ws: PulumiWorkspace;

  beforeAll(async () => {
    const release = await sharedReleaseFolder();
    volume = await createVolume();
    container = await startContainer({ volume, env: { ANALYTICS_API_KEY: key } });
    const project = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-container-yaml-"));
    fs.copyFileSync(path.join(repoRoot, "examples", "yaml", "Pulumi.yaml"), path.join(project, "Pulumi.yaml"));
    ws = await PulumiWorkspace.create(toolchain, {
      programDir: project,
      withoutNodeModules: true,
      env: { ANALYTICS_BASE_URL: container.url, ANALYTICS_API_KEY: key },
    });
    fs.rmSync(project, { recursive: true, force: true });
    await ws.pulumi(["plugin", "install", "resource", "analytics", VERSION, "--file", path.join(release, PLATFORM_ARCHIVE)]);
    await configureDatabase(ws);
  }, 900_000);

  afterAll(async () => {
    ws?.dispose();
    await removeContainers();
  });

  it("creates the organization and the data source in the container, with no service setting in the stack's config", async () => {
    const up = await ws.pulumi(["up", "--yes"]);
    process.stderr.write(`[container yaml] pulumi up against ${container.url}:\n${up.stdout}\n`);
    expect(up.stdout).toMatch(/\+\s+analytics:index:Organization\s+acme\s+created/);
    expect(up.stdout).toMatch(/\+\s+analytics:index:DataSource\s+warehouse\s+created/);
    expect((await ws.pulumi(["config", "--json"])).stdout).not.toMatch(/analytics:/);
    const [org] = resourcesOfType(await ws.exportStack(), ORG_TYPE);
    expect(org?.id).toMatch(/^org_\w{20}$/);
    await container.waitForLogs(/POST \/api\/public\/organizations 201/);
  }, 600_000);

  it("keeps the organization, still the key's user's, in a new container on the same volume, and the program has nothing to change", async () => {
    const orgId = resourcesOfType(await ws.exportStack(), ORG_TYPE)[0]!.id!;
    await container.stop();
    expect(fs.readdirSync(await volumeFolder(volume))).toContain("state.json");
    container = await startContainer({ volume, env: { ANALYTICS_API_KEY: key } });
    const env = { ANALYTICS_BASE_URL: container.url };
    // Only the key's user may add a data source to an organization it created: 201 there, 404 where no organization is.
    expect(await create(container, key, `/api/public/organizations/${orgId}/data-sources`, PROBE)).toBe(201);
    expect(await create(container, key, "/api/public/organizations/org_00000000000000000000/data-sources", PROBE)).toBe(404);
    const up = await ws.pulumi(["up", "--yes"], { env });
    process.stderr.write(`[container yaml] pulumi up against the new container ${container.url}:\n${up.stdout}\n`);
    expect(up.stdout).toMatch(/Resources:\n\s+3 unchanged\n/);
    expect(up.stdout).not.toMatch(/created|updated|replaced|deleted/);
    expect(resourcesOfType(await ws.exportStack(), DS_TYPE)).toHaveLength(1);
  }, 600_000);

  it("leaves the key out of the state, its history, every command's output and the container's log", async () => {
    await expectNoCredentialLeak(ws, [key, DB_PASSWORD]);
    expect(await container.logs()).not.toContain(key);
    const folder = await volumeFolder(volume);
    for (const file of fs.readdirSync(folder)) expect(fs.readFileSync(path.join(folder, file), "utf8")).not.toContain(key);
  }, 300_000);
});

describe("examples/python against the container, with no Node.js on PATH", () => {
  const key = newApiKey();
  let container: StartedContainer;
  let ws: PulumiWorkspace;
  let searchPath: string;

  beforeAll(async () => {
    const [release, pyEnv] = await Promise.all([sharedReleaseFolder(), resolvePythonEnv()]);
    container = await startContainer({ env: { ANALYTICS_API_KEY: key } });
    const project = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-container-python-"));
    for (const file of ["Pulumi.yaml", "__main__.py"]) fs.copyFileSync(path.join(repoRoot, "examples", "python", file), path.join(project, file));
    // The virtualenv's bin is the only folder of PATH besides the CLI's (pulumiEnvironment puts those first).
    const venvBin = path.join(os.tmpdir(), `analytics-container-venv-${process.pid}`, "bin");
    ws = await PulumiWorkspace.create(toolchain, {
      programDir: project,
      withoutNodeModules: true,
      env: { PATH: venvBin, ANALYTICS_BASE_URL: container.url, ANALYTICS_API_KEY: key },
    });
    fs.rmSync(project, { recursive: true, force: true });
    // `pip install` of the release's wheel into the project's virtualenv (Pulumi.yaml: virtualenv: venv).
    const wheel = pythonDistributions(release).find((file) => file.endsWith(".whl"))!;
    const venvPython = await createProgramVenv(pyEnv, path.join(ws.programDir, "venv"), wheel);
    fs.mkdirSync(path.dirname(venvBin), { recursive: true });
    fs.symlinkSync(path.dirname(venvPython), venvBin);
    searchPath = [...toolchainPathDirs(toolchain), venvBin].join(path.delimiter);
    await ws.pulumi(["plugin", "install", "resource", "analytics", VERSION, "--file", path.join(release, PLATFORM_ARCHIVE)]);
    await configureDatabase(ws);
  }, 900_000);

  afterAll(async () => {
    ws?.dispose();
    await removeContainers();
    fs.rmSync(path.join(os.tmpdir(), `analytics-container-venv-${process.pid}`), { recursive: true, force: true });
  });

  it("runs on a PATH where no node resolves, with the single-file plugin, an executable and not a script", () => {
    expect(onPath(searchPath, "node")).toEqual([]);
    expect(onPath(searchPath, "pulumi")).toHaveLength(1);
    expect(onPath(searchPath, "pulumi-language-python")).toHaveLength(1);
    expect(onPath(searchPath, "python")).toHaveLength(1);
    const plugin = path.join(ws.root, "home", "plugins", `resource-analytics-v${VERSION}`, "pulumi-resource-analytics");
    expect(fs.readFileSync(plugin).subarray(0, 4).toString("latin1")).toBe("\x7fELF");
  });

  it("creates the organization and the data source in the container, and a second up changes nothing", async () => {
    const up = await ws.pulumi(["up", "--yes"]);
    expect(up.stdout).toMatch(/\+\s+analytics:index:Organization\s+acme\s+created/);
    expect(up.stdout).toMatch(/\+\s+analytics:index:DataSource\s+warehouse\s+created/);
    const [org] = resourcesOfType(await ws.exportStack(), ORG_TYPE);
    expect(JSON.parse((await ws.pulumi(["stack", "output", "--json"])).stdout)).toMatchObject({ orgId: org?.id, lastSyncStatus: "PENDING" });
    const again = await ws.pulumi(["up", "--yes"]);
    expect(again.stdout).toMatch(/Resources:\n\s+3 unchanged\n/);
    expect(again.stdout).not.toMatch(/created|updated|replaced|deleted/);
    expect(
      (await container.waitForLogs(/POST \/api\/public\/organizations\/org_\w+\/data-sources 201/)).match(/POST \/api\/public\/organizations 201/g),
    ).toHaveLength(1);
    await expectNoCredentialLeak(ws, [key, DB_PASSWORD]);
  }, 600_000);
});

describe("the service as a job in a container reaches it: by its name on a network", () => {
  afterAll(async () => {
    await removeContainers();
  });

  it("answers `analytics-reference-server ready --url http://analytics:8080` from another container when ANALYTICS_ALLOWED_HOSTS names it, and 403 to a name it was not given", async () => {
    const network = await createNetwork();
    const image = (await referenceImage()).ref;
    await startContainer({ network, alias: "analytics", env: { ANALYTICS_ALLOWED_HOSTS: "analytics" } });
    await startContainer({ network, alias: "unnamed" });
    // A job's container: the same image, running the `ready` subcommand against the service's name.
    const ask = (url: string) =>
      run("podman", ["run", "--rm", "--network", network, "--entrypoint", "analytics-reference-server", image, "ready", "--url", url]);
    const named = await ask("http://analytics:8080");
    expect(named.code, named.stderr).toBe(0);
    const unnamed = await ask("http://unnamed:8080");
    expect(unnamed.code).toBe(1);
    expect(unnamed.stderr).toMatch(/not ready: http:\/\/unnamed:8080\/_reference\/ready answered 403/);
  }, 300_000);
});

describe("a health check of the service", () => {
  afterAll(async () => {
    await removeContainers();
  });

  it("passes as `analytics-reference-server ready` in exec form, and fails in shell form: the image has no shell", async () => {
    const exec = await startContainer({ runOptions: ["--health-cmd", '["analytics-reference-server", "ready"]', "--health-interval", "disable"] });
    const healthy = await run("podman", ["healthcheck", "run", exec.containerId]);
    expect(healthy.code, healthy.stdout + healthy.stderr).toBe(0);
    const shell = await startContainer({ runOptions: ["--health-cmd", "analytics-reference-server ready", "--health-interval", "disable"] });
    const unhealthy = await run("podman", ["healthcheck", "run", shell.containerId]);
    expect(unhealthy.code).toBe(1);
    expect(unhealthy.stdout).toMatch(/unhealthy/);
  }, 300_000);
});

/**
 * The registries the release run's publishing jobs publish to (test/support/release-run.ts), the
 * registry software of the publish rehearsal on 127.0.0.1: Verdaccio (npm), pypiserver (PyPI), a
 * file:// Maven repository with a stand-in of the Central Portal's API, and docker-registry (the
 * container image). The workflow reaches them through its repository variables; the secrets it
 * names (the Portal's token, the signing key) are given to act; what stands in for an OIDC
 * exchange or a login of the runner (npm's token, twine's user, the registry's auth file and its
 * plain-HTTP setting) is in the environment of the runner. Each keeps its files under
 * `<run>/registries/`, where test/release/release-run.test.ts reads what the jobs published and
 * the rehearsals serve it again ({@link servePublishedNpm} and the others) to install from.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import * as path from "node:path";
import {
  removeGpgHome,
  resolvePypiTools,
  startDockerRegistry,
  startPypiServer,
  startVerdaccio,
  throwawayGpgKey,
  type ContainerRegistry,
  type RegistryServer,
} from "./registries";
import type { PythonTool } from "./python-tool";

/** What the run gives act, and how to stop the registries. */
export interface RunRegistries {
  vars: Record<string, string>;
  secrets: Record<string, string>;
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/** The folders of {@link registryFolders}. */
export type RegistryFolders = ReturnType<typeof registryFolders>;

/** Where a run's registries keep their files, and what the test reads besides. */
export function registryFolders(dir: string) {
  const root = path.join(dir, "registries");
  return {
    npm: path.join(root, "npm"),
    pypi: path.join(root, "pypi", "packages"),
    maven: path.join(root, "maven"),
    container: path.join(root, "container"),
    /** The requests the Central Portal's stand-in took: `{ method, url, authorized }` a line. */
    portal: path.join(root, "central-portal.jsonl"),
    /** The runner's registry auth file, which `docker login`'s stand-in writes. */
    auth: path.join(root, "registry-auth.json"),
    /** The signing key's public half. */
    publicKey: path.join(root, "signing-key.asc"),
    /** The container registry's host and the signing key's fingerprint. */
    facts: path.join(root, "facts.json"),
  };
}

/**
 * The Central Portal's publishing API as `tools/publish.js central-portal` calls it: a POST to
 * `manual/upload/defaultRepository/<namespace>`, with the Portal token of `username`:`password`
 * as a bearer, answered 200 (401 with another token); each request recorded in `record`.
 */
async function startPortal(record: string, username: string, password: string): Promise<{ url: string; close(): Promise<void> }> {
  const expected = `Bearer ${Buffer.from(`${username}:${password}`).toString("base64")}`;
  const server = http.createServer((req, res) => {
    const authorized = req.headers.authorization === expected;
    fs.appendFileSync(record, `${JSON.stringify({ method: req.method, url: req.url, authorized })}\n`);
    res.writeHead(authorized ? 200 : 401).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A release run, as far as its registries go (test/support/release-run.ts's ReleaseRun). */
type PublishedBy = { registries: RegistryFolders };

/** What the run's registries learned when they started: the container registry's host, the signing key's fingerprint, every password and token they hold. */
export interface RunFacts {
  containerRegistry: string;
  fingerprint: string;
  secrets: string[];
}

/** The facts of the run that published into `run`'s registries. */
export function runFacts(run: PublishedBy): RunFacts {
  return JSON.parse(fs.readFileSync(run.registries.facts, "utf8")) as RunFacts;
}

/** Starts the registries of the run in `dir`, with what the runner keeps (configs, auth files) in `scratch`. */
export async function startRunRegistries(dir: string, scratch: string, log: (line: string) => void): Promise<RunRegistries> {
  const folders = registryFolders(dir);
  fs.mkdirSync(path.dirname(folders.pypi), { recursive: true });
  const tools = await resolvePypiTools();
  const [npm, pypi, container] = await Promise.all([
    startVerdaccio(folders.npm, log),
    startPypiServer(path.dirname(folders.pypi), tools),
    startDockerRegistry(folders.container),
  ]);
  const portalUser = "portal-user";
  const portalPassword = randomBytes(18).toString("base64url");
  const portal = await startPortal(folders.portal, portalUser, portalPassword);
  const key = throwawayGpgKey(scratch);
  fs.copyFileSync(key.publicKey, folders.publicKey);
  const facts: RunFacts = {
    containerRegistry: container.host,
    fingerprint: key.fingerprint,
    secrets: [npm.password, pypi.password, portalPassword, key.passphrase],
  };
  fs.writeFileSync(folders.facts, JSON.stringify(facts));
  const npmrc = path.join(scratch, "runner.npmrc");
  fs.writeFileSync(npmrc, `//${new URL(npm.url).host}/:_authToken=${npm.password}\n`, { mode: 0o600 });
  // The runner's registry auth file, empty until the container job's login writes to it.
  const authFile = folders.auth;
  fs.writeFileSync(authFile, JSON.stringify({ auths: {} }), { mode: 0o600 });
  const registriesConf = path.join(scratch, "registries.conf");
  fs.writeFileSync(registriesConf, `[[registry]]\nlocation = "${container.host}"\ninsecure = true\n`);
  return {
    vars: {
      NPM_REGISTRY: npm.url,
      PYPI_REGISTRY: pypi.url,
      MAVEN_REGISTRY: new URL(`file://${folders.maven}`).href,
      CENTRAL_PORTAL_API: portal.url,
      CONTAINER_REGISTRY: container.host,
    },
    secrets: { CENTRAL_TOKEN_USERNAME: portalUser, CENTRAL_TOKEN_PASSWORD: portalPassword, MAVEN_GPG_KEY: key.secretKey, MAVEN_GPG_PASSPHRASE: key.passphrase },
    env: {
      NPM_CONFIG_USERCONFIG: npmrc,
      TWINE_USERNAME: pypi.username,
      TWINE_PASSWORD: pypi.password,
      ACT_PYTHON_BIN_pypi: path.dirname(tools.python),
      REGISTRY_AUTH_FILE: authFile,
      CONTAINERS_REGISTRIES_CONF: registriesConf,
    },
    close: async () => {
      await Promise.all([npm.close(), pypi.close(), container.close(), portal.close()]);
      removeGpgHome(key.home);
    },
  };
}

/**
 * Verdaccio in `dir` serving a copy of what the release run's npm job published, with a user of
 * its own: the registry a user installs the release's packages from.
 */
export async function servePublishedNpm(run: PublishedBy, dir: string): Promise<RegistryServer> {
  fs.cpSync(path.join(run.registries.npm, "storage"), path.join(dir, "storage"), { recursive: true });
  return startVerdaccio(dir);
}

/** pypiserver in `dir` serving a copy of what the release run's pypi job uploaded (its index at `<url>simple/`). */
export async function servePublishedPypi(run: PublishedBy, dir: string, tools: PythonTool): Promise<RegistryServer> {
  fs.cpSync(run.registries.pypi, path.join(dir, "packages"), { recursive: true });
  return startPypiServer(dir, tools);
}

/** docker-registry in `dir` serving a copy of what the release run's container job pushed. */
export async function servePublishedImages(run: PublishedBy, dir: string): Promise<ContainerRegistry> {
  fs.cpSync(path.join(run.registries.container, "storage"), path.join(dir, "storage"), { recursive: true });
  return startDockerRegistry(dir);
}

/** The key the release run's maven job signed with: its public half's file and its fingerprint. */
export function publishedSigningKey(run: PublishedBy): { publicKey: string; fingerprint: string } {
  return { publicKey: run.registries.publicKey, fingerprint: runFacts(run).fingerprint };
}

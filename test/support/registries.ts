/**
 * The registries of the publish rehearsal, real registry software on 127.0.0.1 at ports the system
 * picks: Verdaccio for npm (installed by `npm ci` from tools/pinned/verdaccio's lock into the project
 * cache), pypiserver for PyPI (tools/pinned/pypiserver/requirements.txt, hash-pinned, with twine), each
 * with one user whose random password or token exists only in the rehearsal; Debian's
 * `docker-registry` (distribution 2.8.2) for container images, over plain HTTP with no user; and a
 * throwaway gpg key that signs the Maven artifacts. Each registry keeps its files in a folder of
 * the rehearsal's.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { withLock } from "../../toolchain/src/go-build";
import { defaultCacheRoot } from "../../toolchain/src/pulumi-cli";
import { repoRoot } from "./pulumi-workspace";
import { pythonEnvironment } from "./python-env";
import { resolvePythonTool, type PythonTool } from "./python-tool";
import { unusedPort } from "./tcp-server";

const execFileAsync = promisify(execFile);
const VERDACCIO_DIR = path.join(repoRoot, "tools", "pinned", "verdaccio");

/** A registry server: its address, its one user's credentials and how to stop it. */
export interface RegistryServer {
  url: string;
  username: string;
  password: string;
  close(): Promise<void>;
}

/** Starts `command args` and waits for the line `listening <port>` on its stdout; the child is killed when it fails to start. */
async function startListening(command: string, args: string[], env: NodeJS.ProcessEnv, name: string): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not listen within 60 s:\n${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /^listening (\d+)$/m.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("exit", (code) => (clearTimeout(timer), reject(new Error(`${name} exited (${code}) before listening:\n${output}`))));
  }).catch((error: unknown) => {
    child.kill("SIGKILL");
    throw error;
  });
  return { port, child };
}

/** Stops a server's process (SIGTERM) and waits until it is gone. */
export function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** Verdaccio installed by `npm ci` from tools/pinned/verdaccio's package.json and lock into the project cache, once. */
async function resolveVerdaccio(log: (line: string) => void): Promise<string> {
  const lock = fs.readFileSync(path.join(VERDACCIO_DIR, "package-lock.json"));
  const dir = path.join(defaultCacheRoot(), `verdaccio-${createHash("sha256").update(lock).digest("hex").slice(0, 12)}`);
  const marker = path.join(dir, ".complete");
  if (fs.existsSync(marker)) return dir;
  await withLock(
    `${dir}.lock`,
    log,
    async () => {
      if (fs.existsSync(marker)) return;
      log(`[verdaccio] npm ci of tools/pinned/verdaccio into ${dir} (first run only)`);
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir, { recursive: true });
      for (const file of ["package.json", "package-lock.json"]) fs.copyFileSync(path.join(VERDACCIO_DIR, file), path.join(dir, file));
      await execFileAsync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 });
      fs.writeFileSync(marker, "");
    },
    "Verdaccio",
  );
  return dir;
}

/**
 * Verdaccio with its data under `dir` and one user registered as `npm adduser` registers one;
 * `password` is the user's token, which an npm user config (`//host:port/:_authToken=…`) gives npm.
 */
export async function startVerdaccio(dir: string, log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Promise<RegistryServer> {
  const install = await resolveVerdaccio(log);
  const { port, child } = await startListening(process.execPath, [path.join(VERDACCIO_DIR, "serve.js"), install, dir], process.env, "Verdaccio");
  const url = `http://127.0.0.1:${port}/`;
  const username = "rehearsal";
  const response = await fetch(new URL(`-/user/org.couchdb.user:${username}`, url), {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: username, password: randomBytes(18).toString("base64url") }),
  });
  const { token } = (await response.json()) as { token?: string };
  if (!response.ok || !token) throw (await stop(child), new Error(`Verdaccio refused to register ${username}: ${response.status}`));
  return { url, username, password: token, close: () => stop(child) };
}

/** The rehearsal's PyPI server: pypiserver's WSGI app on the standard library's server, uploads behind an htpasswd user. */
const PYPISERVER_MAIN = `
import os, pathlib, sys, wsgiref.simple_server as simple
from passlib.apache import HtpasswdFile
import pypiserver
root, htpasswd = pathlib.Path(sys.argv[1]), sys.argv[2]
users = HtpasswdFile(htpasswd, new=True)
users.set_password(os.environ["REHEARSAL_PYPI_USER"], os.environ.pop("REHEARSAL_PYPI_PASSWORD"))
users.save()
app = pypiserver.app(roots=[root], password_file=htpasswd, authenticate=["update"])
class Quiet(simple.WSGIRequestHandler):
    def log_message(self, *args): pass
server = simple.make_server("127.0.0.1", 0, app, handler_class=Quiet)
print(f"listening {server.server_port}", flush=True)
server.serve_forever()
`;

/** The virtualenv of pypiserver and twine (tools/pinned/pypiserver/requirements.txt). */
export function resolvePypiTools(): Promise<PythonTool> {
  return resolvePythonTool("pypiserver", path.join(repoRoot, "tools", "pinned", "pypiserver", "requirements.txt"));
}

/** pypiserver serving and taking uploads into `dir`; its URL is the upload URL, `<url>simple/` the index. */
export async function startPypiServer(dir: string, tools: PythonTool): Promise<RegistryServer> {
  const username = "rehearsal";
  const password = randomBytes(18).toString("base64url");
  fs.mkdirSync(path.join(dir, "packages"), { recursive: true });
  const env = { ...pythonEnvironment(), REHEARSAL_PYPI_USER: username, REHEARSAL_PYPI_PASSWORD: password };
  const { port, child } = await startListening(
    tools.python,
    ["-c", PYPISERVER_MAIN, path.join(dir, "packages"), path.join(dir, "htpasswd")],
    env,
    "pypiserver",
  );
  return { url: `http://127.0.0.1:${port}/`, username, password, close: () => stop(child) };
}

/** A gpg key made for one rehearsal: its home, its armored secret key and passphrase, and its public key file. */
export interface ThrowawayKey {
  home: string;
  fingerprint: string;
  secretKey: string;
  passphrase: string;
  publicKey: string;
}

/** Makes a passphrase-protected ed25519 signing key in a new GNUPGHOME under `dir`, and exports it. */
export function throwawayGpgKey(dir: string): ThrowawayKey {
  const home = path.join(dir, "gnupg");
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  const passphrase = randomBytes(18).toString("base64url");
  const gpg = (args: string[], input?: string) =>
    execFileSync("gpg", ["--homedir", home, "--batch", "--pinentry-mode", "loopback", ...args], { input, encoding: "utf8", stdio: ["pipe", "pipe", "pipe"] });
  gpg(["--passphrase-fd", "0", "--quick-generate-key", "Publish Rehearsal <rehearsal@127.0.0.1>", "ed25519", "sign", "1d"], passphrase);
  const fingerprint = /^fpr:+([0-9A-F]+):/m.exec(gpg(["--with-colons", "--list-secret-keys"]))![1]!;
  const secretKey = gpg(["--passphrase-fd", "0", "--armor", "--export-secret-keys", fingerprint], passphrase);
  const publicKey = path.join(dir, "rehearsal-key.asc");
  fs.writeFileSync(publicKey, gpg(["--armor", "--export", fingerprint]));
  return { home, fingerprint, secretKey, passphrase, publicKey };
}

/** Stops the gpg-agent gpg started for the home `home`, if any (it would outlive the test), and removes the home. */
export function removeGpgHome(home: string): void {
  execFileSync("gpgconf", ["--homedir", home, "--kill", "all"], { stdio: "ignore" });
  fs.rmSync(home, { recursive: true, force: true });
}

/** `gpg --verify` of `signature` over `file` in a keyring of its own under `dir` holding only `publicKey`: the signer's fingerprint, or an error. */
export function verifySignature(dir: string, publicKey: string, file: string, signature: string): string {
  const home = fs.mkdtempSync(path.join(dir, "verify-"));
  fs.chmodSync(home, 0o700);
  try {
    execFileSync("gpg", ["--homedir", home, "--batch", "--import", publicKey], { stdio: "pipe" });
    const status = execFileSync("gpg", ["--homedir", home, "--batch", "--status-fd", "1", "--verify", signature, file], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    const valid = /^\[GNUPG:\] VALIDSIG ([0-9A-F]+) /m.exec(status);
    if (!valid) throw new Error(`gpg found no valid signature in ${signature}:\n${status}`);
    return valid[1]!;
  } finally {
    removeGpgHome(home);
  }
}

/** Debian's docker-registry (the distribution project's registry, 2.8.2). */
export const DOCKER_REGISTRY = "/usr/bin/docker-registry";

/** A container registry on 127.0.0.1: `host` is `127.0.0.1:<port>`, the first part of an image's name. */
export interface ContainerRegistry {
  host: string;
  close(): Promise<void>;
}

/**
 * docker-registry serving plain HTTP on 127.0.0.1 with its storage under `dir`, from a config file
 * written there; resolves once `/v2/` answers 200.
 */
export async function startDockerRegistry(dir: string): Promise<ContainerRegistry> {
  if (!fs.existsSync(DOCKER_REGISTRY)) throw new Error(`${DOCKER_REGISTRY} is missing: install Debian's docker-registry (apt-get install docker-registry)`);
  // docker-registry takes its port from its config, not 0.
  const port = await unusedPort();
  fs.mkdirSync(path.join(dir, "storage"), { recursive: true });
  const config = path.join(dir, "config.yml");
  fs.writeFileSync(
    config,
    `version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: ${path.join(dir, "storage")}\nhttp:\n  addr: 127.0.0.1:${port}\n`,
  );
  const child = spawn(DOCKER_REGISTRY, ["serve", config], { stdio: ["ignore", "ignore", "pipe"] });
  let output = "";
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const host = `127.0.0.1:${port}`;
  for (const started = Date.now(); ; ) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited (${child.exitCode}) before serving:\n${output}`);
    const answer = await fetch(`http://${host}/v2/`).catch(() => undefined);
    if (answer?.status === 200) break;
    if (Date.now() - started > 30_000) throw (await stop(child), new Error(`docker-registry did not answer on ${host} within 30 s:\n${output}`));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { host, close: () => stop(child) };
}

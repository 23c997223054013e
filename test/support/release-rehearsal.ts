/**
 * What every release rehearsal shares: the release folder ({@link sharedReleaseFolder}) served on
 * 127.0.0.1 as the project's release page serves it, the engine sent there instead of the schema's
 * pluginDownloadURL (PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES) with plugin acquisition on, a reference
 * server, and a fresh project outside the repository with an empty PULUMI_HOME and a PATH holding
 * only the programs its language needs (never `node`, but for TypeScript); the commands a user
 * runs in that project to install the SDK; and the lifecycle each language's program goes
 * through with the real CLI.
 */
import { execFile, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { expect } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server";
import { userEnvironment } from "../release/packed/packed-app";
import type { PulumiToolchain } from "../../toolchain/src/pulumi-cli";
import { platformArchiveName, pulumiPlatform } from "../../tools/build-plugin-binary.js";
import {
  expectDestroyLeaves,
  expectFirstUp,
  expectImportRefused,
  expectNoCredentialLeak,
  expectPreviewWithoutRequests,
  expectRefreshKeeps,
  expectRejectedKey,
  expectRenameReplaces,
  type RenameOptions,
} from "./example-lifecycle";
import { configureExample } from "./plugin-shim";
import { PulumiWorkspace, repoRoot } from "./pulumi-workspace";
import { sharedReleaseFolder } from "./release-folder";

/** The package's version, which the release carries. */
export const VERSION = (JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }).version;
/** The schema's pluginDownloadURL: where a published release's plugin archives are. */
export const PLUGIN_DOWNLOAD_URL = (JSON.parse(fs.readFileSync(path.join(repoRoot, "src/native/schema.json"), "utf8")) as { pluginDownloadURL: string })
  .pluginDownloadURL;
/** The archive of the single-file plugin for this machine, as the engine asks for it. */
export const PLATFORM_ARCHIVE = platformArchiveName(VERSION, pulumiPlatform());
/** A PATH holding no `node`: the CLI's own directories come first (pulumiEnvironment), then nothing. */
export const NO_NODE_PATH = path.join(os.tmpdir(), "no-node-here");
/** The database password every rehearsal's program gets, a secret. */
export const DB_PASSWORD = "rehearsal-password-7f8e9d";

/** A folder served over HTTP on 127.0.0.1, recording every path asked for. */
export interface FileServer {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

/** Serves the files of `dir` (and its subfolders) on 127.0.0.1, as a release page serves its assets. */
export async function serveFolder(dir: string): Promise<FileServer> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const urlPath = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    requests.push(urlPath);
    const file = path.join(dir, path.normalize(urlPath));
    if (!file.startsWith(dir + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": fs.statSync(file).size });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * A folder of symbolic links to the programs `names`, found on this process's PATH: as the whole
 * PATH, it offers those programs and nothing else (no `node`, which no name may be).
 */
export function toolsPath(dir: string, names: readonly string[]): string {
  fs.mkdirSync(dir, { recursive: true });
  for (const name of names) {
    if (name === "node") throw new Error("a rehearsal without node cannot have node on its PATH");
    const found = (process.env.PATH ?? "")
      .split(path.delimiter)
      .map((d) => path.join(d, name))
      .find((file) => fs.existsSync(file) && fs.statSync(file).isFile());
    if (!found) throw new Error(`${name} is not on PATH, and this rehearsal needs it`);
    fs.symlinkSync(fs.realpathSync(found), path.join(dir, name));
  }
  return dir;
}

/** One rehearsal's release folder, its server, the API server and the project. */
export interface Rehearsal {
  release: string;
  files: FileServer;
  api: ReferenceServer;
  ws: PulumiWorkspace;
  /** A folder of the rehearsal's own outside the project (a module cache, a local repository), removed by {@link close}. */
  scratch: string;
  /** Runs `command args` in the project as the user does, with the project's environment (its PATH); returns stdout. */
  exec(command: string, args: string[]): Promise<string>;
  close(): Promise<void>;
}

/** Options of {@link startRehearsal}. */
export interface RehearsalOptions {
  /** Writes the project's files (Pulumi.yaml and the program) into the empty folder `dir`, from the release folder `release`. */
  writeProject(dir: string, release: string): void | Promise<void>;
  /** Keep `node` on PATH (a TypeScript program); every other language runs without it. */
  keepNode?: boolean;
  /** The programs the language needs besides the CLI (e.g. `go`): then PATH holds only these ({@link toolsPath}). */
  tools?: readonly string[];
  /** More environment for every command in the project; `scratch` is {@link Rehearsal.scratch}. */
  env?(scratch: string, release: string): NodeJS.ProcessEnv;
}

/** Removes a rehearsal's scratch folder, read-only parts too (a Go module cache is). */
function removeScratch(scratch: string): void {
  execFileSync("chmod", ["-R", "u+w", scratch]);
  fs.rmSync(scratch, { recursive: true, force: true });
}

/**
 * Builds (or reuses) the release folder, serves it, starts a reference server and creates the
 * project in a temp dir outside the repository, with an empty PULUMI_HOME, plugin acquisition on
 * and the schema's pluginDownloadURL sent to the served folder.
 */
export async function startRehearsal(toolchain: PulumiToolchain, options: RehearsalOptions): Promise<Rehearsal> {
  const release = await sharedReleaseFolder();
  const files = await serveFolder(release);
  const api = await startReferenceServer({ port: 0, bootstrapUsers: ["alice"], inspection: true });
  const project = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-rehearsal-project-"));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-rehearsal-scratch-"));
  try {
    await options.writeProject(project, release);
    const prefix = PLUGIN_DOWNLOAD_URL.slice(0, PLUGIN_DOWNLOAD_URL.indexOf("${"));
    const pathDir = options.tools ? toolsPath(path.join(scratch, "bin"), options.tools) : NO_NODE_PATH;
    const env: NodeJS.ProcessEnv = {
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "false",
      PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `^${prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}=${files.url}/`,
      ...(options.keepNode ? {} : { PATH: pathDir }),
      ...options.env?.(scratch, release),
    };
    const ws = await PulumiWorkspace.create(toolchain, { programDir: project, withoutNodeModules: true, env });
    const exec = (command: string, args: string[]) =>
      new Promise<string>((resolve, reject) => {
        execFile(
          command,
          args,
          { cwd: ws.programDir, env: { ...userEnvironment(), ...env }, timeout: 900_000, maxBuffer: 64 * 1024 * 1024 },
          (error, stdout, stderr) => {
            if (error) reject(new Error(`${command} ${args.join(" ")} failed: ${error.message}\n${stdout}\n${stderr}`));
            else resolve(stdout);
          },
        );
      });
    const close = async () => {
      ws.dispose();
      removeScratch(scratch);
      await files.close();
      await api.close();
    };
    return { release, files, api, ws, scratch, exec, close };
  } catch (error) {
    removeScratch(scratch);
    await files.close();
    await api.close();
    throw error;
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
  }
}

/**
 * Runs `node tools/publish.js <command> --name value …` from the repository, as the release
 * workflow's publish job does, with `env` added (the registry's credentials); returns its output.
 */
export function publish(command: string, options: Record<string, string>, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const args = [path.join(repoRoot, "tools", "publish.js"), command, ...Object.entries(options).flatMap(([name, value]) => [`--${name}`, value])];
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      args,
      { cwd: repoRoot, env: { ...userEnvironment(), ...env }, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`publish.js ${command} failed: ${error.message}\n${stdout}\n${stderr}`));
        else resolve(`${stdout}${stderr}`);
      },
    );
  });
}

/**
 * Copies the files `names` (files or folders) of `examples/<example>` into the project folder
 * `dir`: the example a user of that language reads is the program the rehearsal runs, with only
 * its way of reaching the SDK (a path into this repository) left out, since the rehearsal installs
 * the SDK as a user does.
 */
export function copyExample(example: string, dir: string, names: readonly string[]): void {
  for (const name of names) fs.cpSync(path.join(repoRoot, "examples", example, name), path.join(dir, name), { recursive: true });
}

/** Replaces the data source's display name `Warehouse` in a program file the example writes it in (YAML, TypeScript). */
export function renameInFile(file: string): (renamed: string) => void {
  return (renamed) => {
    const text = fs.readFileSync(file, "utf8");
    const next = text.replace(/(displayName:\s*)"?Warehouse"?/, (_all, key: string) => `${key}${JSON.stringify(renamed)}`);
    if (next === text) throw new Error(`${file} names no displayName Warehouse to rename`);
    fs.writeFileSync(file, next);
  };
}

/** How a language's program goes through {@link runLifecycle}. */
export interface LifecycleOptions extends Pick<RenameOptions, "rename"> {
  /** Every run of the program is slow (Java starts Maven twice): the ups skip the preview the test has just made. */
  slowRuns?: boolean;
  /** Also an up with a key the API rejects, which fails with the key's advice and creates nothing. */
  rejectedKey?: boolean;
}

/**
 * The lifecycle every language's example goes through, once, as its user installs it: the
 * example's stack config (the API's URL and key, the database settings), a preview that fetches
 * the plugin from the served release by itself and asks the API nothing, the first up and a
 * no-change preview, a refresh that keeps the state, a rename that replaces, a refused import and a destroy that leaves the
 * objects; the plugin downloaded once, and no credential in state, history or output. Each step's
 * assertions are those of test/support/example-lifecycle.ts.
 */
export async function runLifecycle(r: Rehearsal, options: LifecycleOptions = {}): Promise<void> {
  const { ws, api, files } = r;
  const apiKey = api.apiKeys.alice!;
  const installed = path.join(ws.root, "home", "plugins", `resource-analytics-v${VERSION}`);
  await configureExample(ws, { baseUrl: api.url, apiKey, dbPassword: DB_PASSWORD });
  expect(fs.existsSync(installed)).toBe(false);
  await expectPreviewWithoutRequests(ws, api);
  expect(files.requests).toContain(`/${PLATFORM_ARCHIVE}`);
  expect(fs.existsSync(path.join(installed, "pulumi-resource-analytics"))).toBe(true);
  await expectFirstUp(ws, api, options.slowRuns ? ["--skip-preview"] : []);
  await expectRefreshKeeps(ws, api);
  if (options.rejectedKey) await expectRejectedKey(ws, api, apiKey, "Warehouse");
  await expectRenameReplaces(ws, api, "Renamed warehouse", { skipPreview: options.slowRuns === true, ...(options.rename ? { rename: options.rename } : {}) });
  await expectImportRefused(ws, api);
  await expectDestroyLeaves(ws);
  expect(files.requests.filter((p) => p === `/${PLATFORM_ARCHIVE}`)).toHaveLength(1);
  await expectNoCredentialLeak(ws, [apiKey, DB_PASSWORD]);
}

/**
 * What every release rehearsal shares: the release folder ({@link sharedReleaseFolder}) served on
 * 127.0.0.1 as the project's release page serves it, the engine sent there instead of the schema's
 * pluginDownloadURL (PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES) with plugin acquisition on, a reference
 * server, and a fresh project outside the repository with an empty PULUMI_HOME; and the lifecycle
 * each language's program goes through with the real CLI.
 */
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { expect } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server";
import type { PulumiToolchain } from "../../src/toolchain/pulumi-cli";
import { PulumiWorkspace, repoRoot, resourcesOfType, type CommandResult } from "./pulumi-workspace";
import { sharedReleaseFolder } from "./release-folder";

const { platformArchiveName, pulumiPlatform } = require("../../tools/build-plugin-binary.js") as {
  platformArchiveName(version: string, platform: { os: string; arch: string }): string;
  pulumiPlatform(): { os: string; arch: string };
};

/** The package's version, which the release carries. */
export const VERSION = (JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }).version;
/** The schema's pluginDownloadURL: where a published release's plugin archives are. */
export const PLUGIN_DOWNLOAD_URL = (JSON.parse(fs.readFileSync(path.join(repoRoot, "src/native/schema.json"), "utf8")) as { pluginDownloadURL: string }).pluginDownloadURL;
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

/** One rehearsal's release folder, its server, the API server and the project. */
export interface Rehearsal {
  release: string;
  files: FileServer;
  api: ReferenceServer;
  ws: PulumiWorkspace;
  close(): Promise<void>;
}

/** Options of {@link startRehearsal}. */
export interface RehearsalOptions {
  /** Writes the project's files (Pulumi.yaml and the program) into the empty folder `dir`, from the release folder `release`. */
  writeProject(dir: string, release: string): void | Promise<void>;
  /** Keep `node` on PATH (a TypeScript program); every other language runs without it. */
  keepNode?: boolean;
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
  try {
    await options.writeProject(project, release);
    const prefix = PLUGIN_DOWNLOAD_URL.slice(0, PLUGIN_DOWNLOAD_URL.indexOf("${"));
    const env: NodeJS.ProcessEnv = {
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "false",
      PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `^${prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}=${files.url}/`,
      ...(options.keepNode ? {} : { PATH: NO_NODE_PATH }),
    };
    const ws = await PulumiWorkspace.create(toolchain, { programDir: project, withoutNodeModules: true, env });
    const close = async () => {
      ws.dispose();
      await files.close();
      await api.close();
    };
    return { release, files, api, ws, close };
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
  }
}

const output = (result: CommandResult): string => `${result.stdout}\n${result.stderr}`;

/**
 * The lifecycle every language's program goes through: the stack's config (the API's URL and key,
 * the database settings), a preview that fetches the plugin from the served release by itself and
 * asks the API nothing, up, a no-change preview and destroy; no credential in state or output.
 */
export async function runLifecycle(r: Rehearsal): Promise<void> {
  const { ws, api, files } = r;
  await ws.pulumi(["config", "set", "analytics:baseUrl", api.url]);
  await ws.pulumi(["config", "set", "--secret", "analytics:apiKey", api.apiKeys.alice!]);
  await ws.pulumi(["config", "set", "dbHost", "db.internal"]);
  await ws.pulumi(["config", "set", "dbUser", "reader"]);
  await ws.pulumi(["config", "set", "--secret", "dbPassword", DB_PASSWORD]);
  expect(fs.existsSync(path.join(ws.root, "home", "plugins", `resource-analytics-v${VERSION}`))).toBe(false);

  const preview = await ws.pulumi(["preview"]);
  expect(preview.stdout).toMatch(/\+\s+analytics:index:Organization\s+acme\s+create/);
  expect(preview.stdout).toMatch(/\+\s+analytics:index:DataSource\s+warehouse\s+create/);
  expect(files.requests).toContain(`/${PLATFORM_ARCHIVE}`);
  expect(fs.existsSync(path.join(ws.root, "home", "plugins", `resource-analytics-v${VERSION}`, "pulumi-resource-analytics"))).toBe(true);
  expect(api.inspect.requestCount()).toBe(0);

  await ws.pulumi(["up", "--yes"]);
  const state = await ws.exportStack();
  const [org] = resourcesOfType(state, "analytics:index:Organization");
  const [ds] = resourcesOfType(state, "analytics:index:DataSource");
  expect(api.inspect.organizations().map((o) => o.id)).toEqual([org?.id]);
  expect(api.inspect.dataSources().map((d) => d.id)).toEqual([ds?.id]);
  await ws.pulumi(["preview", "--expect-no-changes"]);
  await ws.pulumi(["destroy", "--yes"]);
  expect(resourcesOfType(await ws.exportStack(), "analytics:index:DataSource")).toEqual([]);
  expect(files.requests.filter((p) => p === `/${PLATFORM_ARCHIVE}`)).toHaveLength(1);

  const haystacks = [...[...ws.backendFiles()].map(([, text]) => text), ...ws.transcript.map(output)];
  for (const text of haystacks) expect(text.includes(DB_PASSWORD) || text.includes(api.apiKeys.alice!)).toBe(false);
}

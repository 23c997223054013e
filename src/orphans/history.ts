/**
 * Reads a stack's state history through the `pulumi` CLI: every past version with
 * `pulumi stack export --version N` where the backend keeps them (Pulumi Cloud), or the history
 * checkpoints a `file://` or `s3://` backend writes next to the state, which that command cannot
 * export. The S3 client (`@aws-sdk/client-s3`, an optional peer) is loaded only for `s3://`.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import type { Snapshot, SnapshotResource } from "./orphans";

/** Runs `pulumi ARGS` and returns its stdout; rejects with its stderr on a non-zero exit. */
export type PulumiRunner = (args: string[]) => Promise<string>;

/** A runner for the `pulumi` named by PULUMI_CLI, or the one on PATH, in `cwd`. */
export function cliRunner(cwd: string, env: NodeJS.ProcessEnv = process.env): PulumiRunner {
  const command = env.PULUMI_CLI ? path.resolve(env.PULUMI_CLI) : "pulumi";
  return (args) =>
    new Promise((resolve, reject) => {
      const child = spawn(command, ["--non-interactive", "--color=never", ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.on("error", (error) => reject(new Error(`could not run ${command}: ${error.message}`)));
      child.on("close", (code) => (code === 0 ? resolve(stdout) : reject(new Error(`pulumi ${args.join(" ")}: ${stderr.trim() || `exit ${String(code)}`}`))));
    });
}

/** The part of a deployment (`stack export`, or a checkpoint's `latest`) this reads. */
interface Deployment {
  manifest?: { time?: string };
  resources?: SnapshotResource[] | null;
}

function toSnapshot(deployment: Deployment | undefined, fallbackTime: string): Snapshot {
  return { time: deployment?.manifest?.time ?? fallbackTime, resources: deployment?.resources ?? [] };
}

/** The backend cannot export old versions: the CLI's own words for it. */
const NO_VERSIONS = /does not provide the ability to export previous deployments/;

/** Every state the stack has had, oldest first, ending with the current one. */
export async function readStackHistory(run: PulumiRunner, stack: string | undefined, projectDir: string): Promise<Snapshot[]> {
  const stackArgs = stack === undefined ? [] : ["--stack", stack];
  const current = JSON.parse(await run(["stack", "export", ...stackArgs])) as { deployment?: Deployment };
  const now = toSnapshot(current.deployment, new Date().toISOString());
  const backend = (JSON.parse(await run(["whoami", "--verbose", "--json"])) as { url?: string }).url ?? "";
  if (backend.startsWith("file://")) {
    const name = stack ?? (await run(["stack", "--show-name"])).trim();
    return [...readFileBackendHistory(fileURLToPath(backend), projectName(projectDir), name), now];
  }
  if (backend.startsWith("s3://")) {
    const name = stack ?? (await run(["stack", "--show-name"])).trim();
    const location = parseS3BackendUrl(backend);
    return [...(await readObjectStoreHistory(s3Store(location), location.prefix, projectName(projectDir), name)), now];
  }
  const unreadable = UNREADABLE_BLOB_BACKENDS.find(({ scheme }) => backend.startsWith(scheme));
  if (unreadable) throw new Error(unreadableBackendMessage(backend, unreadable.needs));
  const refusal = new Error(
    `The backend ${backend} keeps no earlier versions of the stack's state that the pulumi CLI can export, so the list cannot be built from it.`,
  );
  const versions = await historyVersions(run, stackArgs);
  // Self-managed backends number no versions: nothing could be exported.
  if (versions.some(({ version }) => version === 0)) throw refusal;
  const past: Snapshot[] = [];
  for (const { version, endTime } of versions) {
    try {
      const exported = JSON.parse(await run(["stack", "export", "--version", String(version), ...stackArgs])) as { deployment?: Deployment };
      past.push(toSnapshot(exported.deployment, endTime));
    } catch (error) {
      throw NO_VERSIONS.test(String(error)) ? refusal : error;
    }
  }
  return [...past, now];
}

/** Versions listed by `pulumi stack history`, every page. */
async function historyVersions(run: PulumiRunner, stackArgs: string[]): Promise<Array<{ version: number; endTime: string }>> {
  const found: Array<{ version: number; endTime: string }> = [];
  for (let page = 1; ; page++) {
    const entries = JSON.parse(await run(["stack", "history", "--json", "--page-size", "100", "--page", String(page), ...stackArgs])) as Array<{
      version?: number;
      endTime?: string;
    }> | null;
    if (!entries || entries.length === 0) return found;
    for (const entry of entries) found.push({ version: entry.version ?? 0, endTime: entry.endTime ?? "" });
    if (entries.length < 100) return found;
  }
}

/** `name:` of the project's Pulumi.yaml (or .yml). */
function projectName(dir: string): string {
  for (const file of ["Pulumi.yaml", "Pulumi.yml"]) {
    const full = path.join(dir, file);
    if (!fs.existsSync(full)) continue;
    const match = /^name:\s*["']?([^"'\s#]+)/m.exec(fs.readFileSync(full, "utf8"));
    if (match) return match[1]!;
  }
  throw new Error(`No Pulumi.yaml with a project name in ${dir}: run analytics-orphans in the project directory.`);
}

/** The checkpoints a file backend keeps under `.pulumi/history/<project>/<stack>/` (or the older `<stack>/`). */
function readFileBackendHistory(root: string, project: string, stack: string): Snapshot[] {
  const shortStack = stack.split("/").pop()!;
  const dirs = [path.join(root, ".pulumi", "history", project, shortStack), path.join(root, ".pulumi", "history", shortStack)];
  const dir = dirs.find((candidate) => fs.existsSync(candidate));
  if (dir === undefined) return [];
  const snapshots: Snapshot[] = [];
  for (const file of fs.readdirSync(dir)) {
    if (!/\.checkpoint\.json(\.gz)?$/.test(file)) continue;
    const raw = fs.readFileSync(path.join(dir, file));
    const text = (file.endsWith(".gz") ? gunzipSync(raw) : raw).toString("utf8");
    const checkpoint = JSON.parse(text) as { checkpoint?: { latest?: Deployment } };
    snapshots.push(toSnapshot(checkpoint.checkpoint?.latest, fs.statSync(path.join(dir, file)).mtime.toISOString()));
  }
  return snapshots;
}

/** DIY backends whose history checkpoints exist but whose storage client this does not load. */
const UNREADABLE_BLOB_BACKENDS = [
  { scheme: "gs://", needs: "Google Cloud Storage's client" },
  { scheme: "azblob://", needs: "Azure Blob Storage's client" },
] as const;

/** Why a gs:// or azblob:// backend's history is not read, and how to read it anyway. */
export function unreadableBackendMessage(backend: string, needs: string): string {
  const scheme = backend.slice(0, backend.indexOf("://") + 3);
  return (
    `analytics-orphans reads history from file:// and s3:// backends; ${scheme} needs ${needs}, which it does not load, ` +
    `and \`pulumi stack export --version\` cannot export earlier versions from any self-managed backend. ` +
    `Copy the backend's .pulumi/ folder into a directory, \`pulumi login file://<that directory>\`, and run analytics-orphans there.`
  );
}

/** Where an `s3://` backend keeps its state, and how to reach it: the login URL's options, as the AWS SDK's S3 client takes them. */
export interface S3Location {
  /** Bucket name. */
  bucket: string;
  /** Key prefix the backend's `.pulumi/` lives under: the URL's path after the bucket, with a trailing `/`, or empty. */
  prefix: string;
  /** Options for the S3 client; only what the URL says (the SDK's defaults do the rest: region and credential chains). */
  client: {
    region?: string;
    endpoint?: string;
    forcePathStyle?: boolean;
    profile?: string;
  };
}

const TRUE = /^(1|t|true|yes|on)$/i;

/**
 * Reads a `pulumi login` s3:// URL into a bucket, a key prefix and S3 client options. It takes the
 * options of both AWS SDK flavours the CLI's blob library accepts: `endpoint`, `region`, `profile`,
 * `disableSSL` / `disable_https` (an endpoint without a scheme gets `http://` then, else `https://`),
 * `s3ForcePathStyle` / `use_path_style`. Others (`awssdk`, `dualstack`, `fips`, …) are ignored.
 */
export function parseS3BackendUrl(url: string): S3Location {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`${url} is not an s3:// backend URL`);
  }
  if (parsed.protocol !== "s3:" || !parsed.hostname) throw new TypeError(`${url} is not an s3://<bucket> backend URL`);
  const query = parsed.searchParams;
  const trimmed = decodeURIComponent(parsed.pathname).replace(/^\/+|\/+$/g, "");
  const client: S3Location["client"] = {};
  const region = query.get("region");
  if (region) client.region = region;
  const profile = query.get("profile");
  if (profile) client.profile = profile;
  const endpoint = query.get("endpoint");
  const insecure = TRUE.test(query.get("disableSSL") ?? query.get("disable_https") ?? "");
  if (endpoint) client.endpoint = /^[a-z][a-z0-9+.-]*:\/\//i.test(endpoint) ? endpoint : `${insecure ? "http" : "https"}://${endpoint}`;
  const pathStyle = query.get("s3ForcePathStyle") ?? query.get("use_path_style");
  if (pathStyle !== null) client.forcePathStyle = TRUE.test(pathStyle);
  return { bucket: parsed.hostname, prefix: trimmed ? `${trimmed}/` : "", client };
}

/** One object of a listing. */
export interface StoredObject {
  key: string;
  lastModified?: Date;
}

/** The two calls of an object store this reads with: one page of a listing (direct children only, `/` delimited), and one object's bytes. */
export interface ObjectStore {
  list(prefix: string, continuationToken?: string): Promise<{ objects: StoredObject[]; next?: string }>;
  get(key: string): Promise<Uint8Array>;
}

/** Every object directly under `prefix`, every page. */
async function listAll(store: ObjectStore, prefix: string): Promise<StoredObject[]> {
  const found: StoredObject[] = [];
  let token: string | undefined;
  do {
    const page = await store.list(prefix, token);
    found.push(...page.objects);
    token = page.next;
  } while (token);
  return found;
}

/** The history folders a DIY backend may keep a stack's checkpoints in, newest layout first. */
export function historyPrefixes(prefix: string, project: string, stack: string): string[] {
  const shortStack = stack.split("/").pop()!;
  return [`${prefix}.pulumi/history/${project}/${shortStack}/`, `${prefix}.pulumi/history/${shortStack}/`];
}

/** The checkpoints of a listing, oldest first: by the Unix nanoseconds in their names (`<stack>-<ns>.checkpoint.json[.gz]`). */
export function checkpointObjects(objects: readonly StoredObject[]): StoredObject[] {
  const nanos = (key: string) => BigInt(/-(\d+)\.checkpoint\.json(\.gz)?$/.exec(key)?.[1] ?? "0");
  return objects
    .filter(({ key }) => /\.checkpoint\.json(\.gz)?$/.test(key))
    .sort((a, b) => {
      const d = nanos(a.key) - nanos(b.key);
      return d < 0n ? -1 : d > 0n ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
    });
}

/** A checkpoint's bytes (gzipped when its name ends in `.gz`) as a snapshot. */
export function checkpointSnapshot(key: string, bytes: Uint8Array, fallbackTime: string): Snapshot {
  const text = Buffer.from(key.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
  const checkpoint = JSON.parse(text) as { checkpoint?: { latest?: Deployment } };
  return toSnapshot(checkpoint.checkpoint?.latest, fallbackTime);
}

/** The checkpoints an object-store backend keeps under `<prefix>.pulumi/history/<project>/<stack>/` (or the older `<stack>/`), oldest first. */
export async function readObjectStoreHistory(store: ObjectStore, prefix: string, project: string, stack: string): Promise<Snapshot[]> {
  for (const folder of historyPrefixes(prefix, project, stack)) {
    const checkpoints = checkpointObjects(await listAll(store, folder));
    if (checkpoints.length === 0) continue;
    const snapshots: Snapshot[] = [];
    for (const { key, lastModified } of checkpoints) {
      snapshots.push(checkpointSnapshot(key, await store.get(key), (lastModified ?? new Date(0)).toISOString()));
    }
    return snapshots;
  }
  return [];
}

/** The part of `@aws-sdk/client-s3` this uses. */
interface S3Module {
  S3Client: new (config: S3Location["client"]) => { send(command: unknown): Promise<unknown> };
  ListObjectsV2Command: new (input: { Bucket: string; Prefix: string; Delimiter: string; ContinuationToken?: string }) => unknown;
  GetObjectCommand: new (input: { Bucket: string; Key: string }) => unknown;
}

/** The S3 client, loaded here only: nothing else of the package (nor a user without an s3:// backend) ever loads it. */
function loadS3(): S3Module {
  try {
    return require("@aws-sdk/client-s3") as S3Module;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND") throw error;
    throw new Error(
      "Reading the history of an s3:// backend needs the AWS SDK's S3 client, an optional peer dependency of pulumi-analytics: " +
        "`npm install @aws-sdk/client-s3` next to it, then run analytics-orphans again.",
      { cause: error },
    );
  }
}

/** An {@link ObjectStore} over S3 with the SDK's default region and credential chains, plus the URL's options. */
function s3Store(location: S3Location): ObjectStore {
  const sdk = loadS3();
  const client = new sdk.S3Client(location.client);
  const where = (key: string) => `s3://${location.bucket}/${key}`;
  return {
    async list(prefix, continuationToken) {
      try {
        const page = (await client.send(
          new sdk.ListObjectsV2Command({
            Bucket: location.bucket,
            Prefix: prefix,
            Delimiter: "/",
            ...(continuationToken ? { ContinuationToken: continuationToken } : {}),
          }),
        )) as { Contents?: Array<{ Key?: string; LastModified?: Date }>; IsTruncated?: boolean; NextContinuationToken?: string };
        const objects = (page.Contents ?? []).flatMap(({ Key, LastModified }) =>
          Key ? [{ key: Key, ...(LastModified ? { lastModified: LastModified } : {}) }] : [],
        );
        return { objects, ...(page.IsTruncated && page.NextContinuationToken ? { next: page.NextContinuationToken } : {}) };
      } catch (error) {
        throw new Error(`could not list ${where(prefix)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
    },
    async get(key) {
      try {
        const answer = (await client.send(new sdk.GetObjectCommand({ Bucket: location.bucket, Key: key }))) as {
          Body?: { transformToByteArray(): Promise<Uint8Array> };
        };
        if (!answer.Body) throw new Error("empty answer");
        return await answer.Body.transformToByteArray();
      } catch (error) {
        throw new Error(`could not read ${where(key)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
    },
  };
}

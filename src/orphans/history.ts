/**
 * Reads a stack's state history through the `pulumi` CLI: every past version with
 * `pulumi stack export --version N` where the backend keeps them (Pulumi Cloud), or the history
 * checkpoints a `file://` backend writes next to the state, which that command cannot export.
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

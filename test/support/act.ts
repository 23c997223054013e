/**
 * Runs a GitHub Actions workflow here with act (nektos/act, pinned in tools/pinned/act and built into
 * the project cache), every job on this host (`-self-hosted`), loopback only and offline: no version
 * check, the artifact server (when asked for) on 127.0.0.1, no cache server, and every action the
 * workflow uses served from a local folder (`--local-repository`, `--action-offline-mode`): a stand-in
 * of test/fixtures/act-stand-ins/, or the real action at its commit where PULUMI_ANALYTICS_ACT_ACTIONS names
 * a folder holding it. act sees only the environment the caller gives it.
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as path from "node:path";
import { resolvePinnedGoTool, type PinnedGoTool } from "../../toolchain/src/pulumi-cli";
import { PLUGIN_LINE, nodeRuntime } from "../../tools/lib/node-runtime.js";
import { repoRoot } from "./pulumi-workspace";

export const ACT: PinnedGoTool = {
  name: "act",
  version: "0.2.89",
  moduleDir: path.join(repoRoot, "tools", "pinned", "act"),
  goPackage: "github.com/nektos/act",
  binary: "act",
  ldflags: "-X main.version=0.2.89",
};

/** The folder of the stand-ins. */
export const STAND_INS = path.join(repoRoot, "test", "fixtures", "act-stand-ins");
/** Names a folder holding the real actions at their commits, `<owner>/<repo>@<commit>/`. */
export const REAL_ACTIONS_VARIABLE = "PULUMI_ANALYTICS_ACT_ACTIONS";
/** Actions that need GitHub itself (its git server, its OIDC tokens): always stand-ins. */
const ALWAYS_STANDING_IN = new Set(["actions/checkout", "pulumi/auth-actions", "actions/attest-build-provenance"]);

/** One pinned action of a workflow: `owner/repo`, its commit, and the folder act serves it from. */
export interface ServedAction {
  action: string;
  commit: string;
  dir: string;
  real: boolean;
}

/**
 * Where each `uses: owner/repo@commit` of a workflow's text is served from: the real action if the
 * folder of real ones has it, else its stand-in. An action with neither is left out: act, offline,
 * then fails the step that uses it (a job the run leaves out, such as ci.yml's long one, may use it).
 */
export function servedActions(workflow: string, env: NodeJS.ProcessEnv = process.env): ServedAction[] {
  const realRoot = env[REAL_ACTIONS_VARIABLE];
  const found = new Map<string, ServedAction>();
  for (const [, action, commit] of workflow.matchAll(/uses: ([\w-]+\/[\w-]+)@([0-9a-f]{40})/g)) {
    const real = realRoot && !ALWAYS_STANDING_IN.has(action!) ? path.join(realRoot, `${action}@${commit}`) : undefined;
    const standIn = path.join(STAND_INS, action!);
    if (real && fs.existsSync(path.join(real, "action.yml"))) found.set(action!, { action: action!, commit: commit!, dir: real, real: true });
    else if (fs.existsSync(path.join(standIn, "action.yml"))) found.set(action!, { action: action!, commit: commit!, dir: standIn, real: false });
  }
  return [...found.values()];
}

/** A job of an act run: its id, its result, how long it took (act's first to last log line of it) and its main steps'. */
export interface ActJob {
  job: string;
  result: string;
  seconds: number;
  steps: Array<{ step: string; result: string; seconds: number }>;
}

/** What an act run left: its exit status, its whole log (JSON lines), each job's result, and the stand-ins' records. */
export interface ActRun {
  status: number | null;
  log: string;
  /** The output of the steps alone, in order. */
  output: string;
  jobs: ActJob[];
  records: Array<{ action: string; inputs: Record<string, string> }>;
  /** Where each action came from: a stand-in or the real action. */
  served: ServedAction[];
  seconds: number;
}

/** The inputs each stand-in of a run recorded, by action; a real action records none, so it is left out. */
export function standInInputs(run: ActRun): Record<string, Record<string, string>> {
  const standing = new Set(run.served.filter((served) => !served.real).map((served) => served.action));
  return Object.fromEntries(run.records.filter((record) => standing.has(record.action)).map((record) => [record.action, record.inputs]));
}

/** Options of {@link runAct}. */
export interface ActOptions {
  /** The repository: a git checkout, its workflow under .github/workflows/. */
  repo: string;
  /** The workflow file, relative to `repo`. */
  workflow: string;
  event: "pull_request" | "push";
  /** The event's payload (act reads the ref and the pull request from it). */
  payload: object;
  /** A folder of the test's: act's action cache, the runner's tool cache and the stand-ins' record. */
  scratch: string;
  /** The whole environment of act and so of every step (host mode passes it on). */
  env: NodeJS.ProcessEnv;
  /**
   * Secrets, by name; their values reach act through a file of the scratch folder, never its
   * arguments or its environment (which, on the host, every step would inherit).
   */
  secrets?: Record<string, string>;
  /** The repository's variables, the workflow's `vars` context (`--var`). */
  vars?: Record<string, string>;
  /** Variables of the workflow's `github` context act would take from GitHub (GITHUB_API_URL). */
  github?: Record<string, string>;
  /** Runs only this job (and the jobs it needs). */
  job?: string;
  /**
   * Runs only the matrix entries with these values (`--matrix key:value`). act evaluates a
   * matrix job's `runs-on: ${{ matrix.runner }}` once and runs every entry on the first entry's
   * runner, so entries for runners it has no mapping for are left out this way.
   */
  matrix?: Record<string, string[]>;
  /** Runner labels, besides ubuntu-24.04 and ubuntu-latest, whose jobs run on this host. */
  runners?: string[];
  /** Reports each step of a job as it ends, and each job's result. */
  progress?: (line: string) => void;
  /**
   * Serves upload/download-artifact from this folder, on this port of 127.0.0.1 (act names the
   * port in each step's ACTIONS_RUNTIME_URL, so it cannot be 0: unusedPort of test/support/tcp-server.ts gives one). The run's id
   * is 1: the artifact `name` of a run is the folder `<dir>/1/<name>/`.
   */
  artifacts?: { dir: string; port: number };
}

/** The pinned act, built on first use. */
export function resolveAct(): Promise<string> {
  return resolvePinnedGoTool(ACT);
}

/** act's arguments for a run of {@link ActOptions}. */
function actArguments(options: ActOptions, actions: ServedAction[], eventFile: string): string[] {
  const args = [options.event, "--workflows", options.workflow, "--eventpath", eventFile, "--json"];
  for (const label of ["ubuntu-24.04", "ubuntu-latest", ...(options.runners ?? [])]) args.push("-P", `${label}=-self-hosted`);
  args.push("--action-offline-mode", "--no-cache-server", "--artifact-server-addr", "127.0.0.1", "--no-skip-checkout");
  args.push("--action-cache-path", path.join(options.scratch, "act-cache"), "--concurrent-jobs", "1");
  if (options.job) args.push("--job", options.job);
  for (const [key, values] of Object.entries(options.matrix ?? {})) for (const value of values) args.push("--matrix", `${key}:${value}`);
  if (options.artifacts)
    args.push("--artifact-server-path", options.artifacts.dir, "--artifact-server-port", String(options.artifacts.port), "--env", "GITHUB_RUN_ID=1");
  for (const served of actions) args.push("--local-repository", `${served.action}@${served.commit}=${served.dir}`);
  args.push("--secret-file", path.join(options.scratch, "secrets.env"));
  for (const [name, value] of Object.entries(options.github ?? {})) args.push("--env", `${name}=${value}`);
  for (const [name, value] of Object.entries(options.vars ?? {})) args.push("--var", `${name}=${value}`);
  return args;
}

/**
 * Seeds the runner's tool cache of an act run whose scratch folder is `scratch` with the pinned
 * Node.js of PLUGIN_LINE (the one the workflows set up), where setup-node, real or stand-in, finds
 * it without downloading: `node/<version>/x64` and `node/<version>/x64.complete`. Returns the version.
 */
export async function seedNodeToolCache(scratch: string): Promise<string> {
  const runtime = await nodeRuntime(PLUGIN_LINE);
  const dir = path.join(scratch, "act-cache", "tool_cache", "node", runtime.version);
  fs.mkdirSync(dir, { recursive: true });
  if (!fs.existsSync(path.join(dir, "x64"))) fs.symlinkSync(path.dirname(runtime.binDir), path.join(dir, "x64"), "dir");
  fs.writeFileSync(path.join(dir, "x64.complete"), "");
  return runtime.version;
}

/**
 * The end of a step of the job's own (a composite action's steps have longer ids) from one of act's
 * JSON log lines, named without the action's commit; undefined for any other line.
 */
function ownStep(line: Record<string, unknown>): ActJob["steps"][number] | undefined {
  const own = Array.isArray(line.stepID) && line.stepID.length === 1;
  if (line.stage !== "Main" || !own || typeof line.stepResult !== "string") return undefined;
  return {
    step: String(line.step)
      .split("\n")[0]!
      .replace(/@[0-9a-f]{40}$/, ""),
    result: line.stepResult,
    seconds: Math.round(Number(line.executionTime ?? 0) / 1e8) / 10,
  };
}

/** Each job's result and duration, and its main steps', from act's JSON log lines. */
function jobsOf(lines: Array<Record<string, unknown>>): ActJob[] {
  const jobs = new Map<string, { first: number; last: number; result: string; steps: ActJob["steps"] }>();
  for (const line of lines) {
    const job = typeof line.jobID === "string" ? line.jobID : undefined;
    if (!job) continue;
    const at = Date.parse(String(line.time));
    const entry = jobs.get(job) ?? { first: at, last: at, result: "", steps: [] };
    entry.last = at;
    if (typeof line.jobResult === "string") entry.result = line.jobResult;
    const step = ownStep(line);
    if (step) entry.steps.push(step);
    jobs.set(job, entry);
  }
  return [...jobs].map(([job, { first, last, result, steps }]) => ({ job, result, seconds: Math.round((last - first) / 100) / 10, steps }));
}

/** Reports a job's own step as it ends, and a job's result, from one of act's JSON log lines. */
function progressLine(text: string, report: (line: string) => void): void {
  let line: Record<string, unknown>;
  try {
    line = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return;
  }
  const step = ownStep(line);
  if (step) report(`[act] ${String(line.jobID)}: ${step.step} ${step.result} (${step.seconds} s)`);
  if (typeof line.jobResult === "string") report(`[act] ${String(line.jobID)}: ${line.jobResult}`);
}

/** A run's jobs and their steps as one line, for a test's output (the transcripts a change's notes give). */
export function transcript(event: string, run: ActRun): string {
  const jobs = run.jobs
    .filter((job) => job.result)
    .map((job) => `${job.job} ${job.result} in ${job.seconds} s (${job.steps.map((step) => `${step.step}: ${step.seconds} s`).join("; ")})`);
  const real = run.served.filter((served) => served.real).map((served) => served.action);
  return `[act] ${event}: ${jobs.join(", ")}; act ran ${run.seconds} s; real actions: ${real.join(", ") || "none"}`;
}

/** Runs act once; resolves when it exits, whatever its status. */
export async function runAct(options: ActOptions): Promise<ActRun> {
  const binary = await resolveAct();
  const workflow = fs.readFileSync(path.join(options.repo, options.workflow), "utf8");
  const actions = servedActions(workflow);
  fs.mkdirSync(options.scratch, { recursive: true });
  const eventFile = path.join(options.scratch, `${options.event}.json`);
  fs.writeFileSync(eventFile, JSON.stringify(options.payload));
  const record = path.join(options.scratch, "stand-ins.jsonl");
  fs.rmSync(record, { force: true });
  // A value of several lines (an armored key) is double-quoted with its newlines escaped, as the dotenv file act reads it from takes it.
  const secrets = Object.entries(options.secrets ?? {}).map(([name, value]) => `${name}=${value.includes("\n") ? JSON.stringify(value) : value}\n`);
  fs.writeFileSync(path.join(options.scratch, "secrets.env"), secrets.join(""), { mode: 0o600 });
  const env = { ...options.env, ACT_DISABLE_VERSION_CHECK: "1", ACT_STAND_IN_RECORD: record };
  const started = Date.now();
  const child = spawn(binary, actArguments(options, actions, eventFile), { cwd: options.repo, env, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  let reported = 0;
  const take = (chunk: Buffer) => {
    log += chunk.toString();
    if (!options.progress) return;
    const end = log.lastIndexOf("\n") + 1;
    for (const line of log.slice(reported, end).split("\n")) progressLine(line, options.progress);
    reported = Math.max(reported, end);
  };
  child.stdout.on("data", take);
  child.stderr.on("data", take);
  const status = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const lines = log.split("\n").flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
  const output = lines
    .filter((line) => line.raw_output === true)
    .map((line) => String(line.msg))
    .join("");
  const records = fs.existsSync(record)
    ? fs
        .readFileSync(record, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as ActRun["records"][number])
    : [];
  return { status, log, output, jobs: jobsOf(lines), records, served: actions, seconds: Math.round((Date.now() - started) / 100) / 10 };
}

/** Makes `dir` a git repository on `main` with one commit of its files and `origin` at `https://github.com/<slug>.git` (never reached); returns the commit. */
export function newRepository(dir: string, slug: string): string {
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8", env: gitEnv() }).trim();
  git("init", "-q", "-b", "main");
  git("remote", "add", "origin", `https://github.com/${slug}.git`);
  return commitAll(dir, "Initial commit");
}

/**
 * Commits every file of the repository `dir`, dated `date` when given, and returns HEAD: an empty
 * commit when none changed, or none at all with `onlyIfChanged`.
 */
export function commitAll(dir: string, message: string, date?: string, { onlyIfChanged = false } = {}): string {
  const env = { ...gitEnv(), ...(date ? { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } : {}) };
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8", env }).trim();
  git("add", "-A");
  if (!onlyIfChanged || git("status", "--porcelain") !== "") git("commit", "-q", "--allow-empty", "-m", message);
  return git("rev-parse", "HEAD");
}

/** Tags the commit `commit` of the repository `dir` with `tag` (a lightweight tag, as a release is pushed). */
export function tagCommit(dir: string, tag: string, commit: string): void {
  execFileSync("git", ["tag", tag, commit], { cwd: dir, env: gitEnv() });
}

/** git with a fixed author and none of the user's config. */
function gitEnv(): NodeJS.ProcessEnv {
  const name = "Actions Test";
  const email = "actions@127.0.0.1";
  return {
    ...process.env,
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_AUTHOR_NAME: name,
    GIT_AUTHOR_EMAIL: email,
    GIT_COMMITTER_NAME: name,
    GIT_COMMITTER_EMAIL: email,
  };
}

/** A request the GitHub API stand-in received. */
export interface ApiRequest {
  method: string;
  path: string;
  authorization: string;
  body: string;
}

/** A stand-in of the GitHub API on 127.0.0.1: lists no comments, takes every POST (201) and records each request. */
export async function startGithubApi(): Promise<{ url: string; requests: ApiRequest[]; close(): Promise<void> }> {
  const requests: ApiRequest[] = [];
  const server = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      requests.push({ method: request.method ?? "", path: request.url ?? "", authorization: request.headers.authorization ?? "", body });
      response.writeHead(request.method === "POST" ? 201 : 200, { "content-type": "application/json" });
      response.end(request.method === "POST" ? JSON.stringify({ id: requests.length, body: (JSON.parse(body || "{}") as { body?: string }).body }) : "[]");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

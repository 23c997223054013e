/**
 * The GitOps example's pipeline as a team runs it: a fresh copy of examples/gitops made into a new
 * git repository, its workflow run by act (test/support/act.ts) as written but for the stack (`STACK`
 * set to `organization/…`, as its README says for a DIY backend, here a `file://` one). The package
 * comes by version from an npm registry (Verdaccio on 127.0.0.1) serving what the release
 * workflow's npm job published in the release run; `npm ci` takes it from there and
 * the rest of the committed lock from npm's cache. A `pull_request` event runs the preview job with
 * the package's policy pack and posts its comment to a stand-in of the GitHub API on 127.0.0.1,
 * sending nothing to the analytics API; a push to main runs the up job against the reference
 * server's container of the release (podman, its port published on 127.0.0.1, its key from
 * ANALYTICS_API_KEY), and a second push with no change is a no-change up. The API key, an Actions
 * secret, is in no log (act's, the container's), record or state file.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { pulumiEnvironment } from "../../toolchain/src/pulumi-cli";
import { PLUGIN_LINE } from "../../tools/lib/node-runtime.js";
import { commitAll, newRepository, runAct, seedNodeToolCache, standInInputs, startGithubApi, transcript, type ActOptions, type ActRun } from "../support/act";
import { repoRoot } from "../support/pulumi-workspace";
import type { RegistryServer } from "../support/registries";
import { sharedReleaseRun } from "../support/release-folder";
import { servePublishedNpm } from "../support/release-run-registries";
import { removeContainers, startContainer, type StartedContainer } from "../support/reference-image";

const toolchain = inject("pulumiToolchain");
const WORKFLOW = ".github/workflows/analytics.yml";
const STACK = "organization/analytics-gitops/production";
const DB_PASSWORD = `gitops-${randomBytes(6).toString("hex")}`;
const PR = 7;

/** Every file under `dir`, read as text. */
function allText(dir: string): string {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => fs.readFileSync(path.join(entry.parentPath, entry.name), "utf8"))
    .join("\n");
}

describe("examples/gitops' workflow, run by act on a fresh copy in a new repository", () => {
  let scratch: string;
  let repo: string;
  let registry: RegistryServer;
  let server: StartedContainer;
  /** The requests the container has logged to its public API (one line each). */
  const apiRequests = async () => [...(await server.logs()).matchAll(/POST \/api\/public\//g)].length;
  let github: Awaited<ReturnType<typeof startGithubApi>>;
  let key: string;
  let base: Omit<ActOptions, "event" | "payload">;
  const pulumi = (args: string[], env: NodeJS.ProcessEnv) => execFileSync("pulumi", args, { cwd: repo, env, encoding: "utf8", stdio: "pipe" });

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "gitops-pipeline-"));
    registry = await servePublishedNpm(await sharedReleaseRun(), path.join(scratch, "verdaccio"));
    key = `analytics_key_${randomBytes(16).toString("hex")}`;
    server = await startContainer({ env: { ANALYTICS_API_KEY: key } });
    github = await startGithubApi();

    // The team's repository: the example's folder as it is, the stack named for a DIY backend.
    repo = path.join(scratch, "repo");
    fs.cpSync(path.join(repoRoot, "examples", "gitops"), repo, { recursive: true });
    const workflow = path.join(repo, WORKFLOW);
    fs.writeFileSync(workflow, fs.readFileSync(workflow, "utf8").replace("STACK: acme/analytics-gitops/production", `STACK: ${STACK}`));
    const env: NodeJS.ProcessEnv = pulumiEnvironment(toolchain, {
      HOME: os.homedir(),
      PATH: "/usr/local/bin:/usr/bin:/bin",
      PULUMI_HOME: path.join(scratch, "pulumi-home"),
      PULUMI_BACKEND_URL: `file://${path.join(scratch, "state")}`,
      PULUMI_CONFIG_PASSPHRASE: randomBytes(12).toString("hex"),
    });
    for (const dir of ["pulumi-home", "state"]) fs.mkdirSync(path.join(scratch, dir));
    // The stack's config, committed in Pulumi.production.yaml as the README says.
    pulumi(["stack", "init", STACK], env);
    pulumi(["config", "set", "analytics:baseUrl", server.url], env);
    pulumi(["config", "set", "db:host", "db.example.com"], env);
    pulumi(["config", "set", "db:user", "reader"], env);
    pulumi(["config", "set", "--secret", "db:password", DB_PASSWORD], env);
    newRepository(repo, "acme/analytics-infra");
    const npmCache = execFileSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).trim();
    base = {
      repo,
      workflow: WORKFLOW,
      scratch: path.join(scratch, "act"),
      env: {
        ...env,
        npm_config_registry: registry.url,
        npm_config_cache: npmCache,
        npm_config_update_notifier: "false",
        npm_config_fund: "false",
        npm_config_audit: "false",
        ACT_CHECKOUT_SOURCE: repo,
      },
      secrets: { ANALYTICS_API_KEY: key, GITHUB_TOKEN: `ghs_${randomBytes(12).toString("hex")}` },
      github: { GITHUB_API_URL: github.url },
    };
    await seedNodeToolCache(base.scratch);
  }, 900_000);

  afterAll(async () => {
    await github?.close();
    await removeContainers();
    await registry?.close();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  const runs: ActRun[] = [];
  const push = async (message: string): Promise<ActRun> => {
    const after = commitAll(repo, message);
    const run = await runAct({ ...base, event: "push", payload: { ref: "refs/heads/main", after, repository: { full_name: "acme/analytics-infra" } } });
    process.stderr.write(`${transcript(`push ${message}`, run)}\n`);
    runs.push(run);
    return run;
  };

  it("runs the preview job on a pull request, with the package's policy pack, and posts the plan as its comment, sending nothing to the analytics API", async () => {
    const before = await apiRequests();
    const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: repo, encoding: "utf8" }).trim();
    const run = await runAct({
      ...base,
      event: "pull_request",
      payload: {
        number: PR,
        pull_request: { number: PR, head: { ref: "change", sha: head }, base: { ref: "main" } },
        repository: { full_name: "acme/analytics-infra" },
      },
    });
    process.stderr.write(`${transcript("pull_request", run)}\n`);
    runs.push(run);
    expect(run.status, run.output).toBe(0);
    expect(run.jobs.filter((job) => job.result)).toEqual([expect.objectContaining({ job: "preview", result: "success" })]);
    expect(run.output).toMatch(/added \d+ packages/);
    // The stand-ins got what the workflow gave them (a real action, when given, records nothing).
    const inputs = standInInputs(run);
    expect(inputs["actions/checkout"]).toEqual({ "persist-credentials": "false" });
    expect(inputs["pulumi/auth-actions"]).toEqual({ organization: "acme", "requested-token-type": "urn:pulumi:token-type:access_token:organization" });
    if (inputs["actions/setup-node"]) expect(inputs["actions/setup-node"]).toEqual({ "node-version": String(PLUGIN_LINE), "package-manager-cache": "false" });
    if (inputs["pulumi/actions"]) {
      expect(inputs["pulumi/actions"]).toMatchObject({ command: "preview", "stack-name": STACK, diff: "true", "comment-on-pr": "true" });
      expect(inputs["pulumi/actions"].policypacks).toMatch(/\/node_modules\/pulumi-analytics\/policy-pack$/);
    }
    // The comment: one POST on the pull request, with the job's token, holding the plan and the policy pack's run.
    const posts = github.requests.filter((request) => request.method === "POST");
    expect(posts.map((request) => request.path)).toEqual([`/repos/acme/analytics-infra/issues/${PR}/comments`]);
    expect(posts[0]!.authorization).toBe(`token ${base.secrets!.GITHUB_TOKEN}`);
    const body = (JSON.parse(posts[0]!.body) as { body: string }).body;
    expect(body).toMatch(/\+ pulumi-nodejs:dynamic\/analytics:DataSource: \(create\)/);
    expect(body).toMatch(/password\s+: \[secret\]/);
    expect(body).toMatch(/\+ 3 to create/);
    expect(body).toMatch(/pulumi-analytics\|local\|.*policy-pack\s+0\.1\.0/);
    expect(body).not.toContain(DB_PASSWORD);
    expect(await apiRequests()).toBe(before);
  }, 900_000);

  it("runs the up job on a push to main, creating the objects in the service, and a second push with no change is a no-change up", async () => {
    const comments = github.requests.length;
    const before = await apiRequests();
    const first = await push("Merge the analytics objects");
    expect(first.status, first.output).toBe(0);
    expect(first.jobs.filter((job) => job.result)).toEqual([expect.objectContaining({ job: "up", result: "success" })]);
    expect(first.output).toMatch(/\+ 3 created/);
    await server.waitForLogs(/POST \/api\/public\/organizations\/\S+\/data-sources/);
    const up = standInInputs(first)["pulumi/actions"];
    if (up) expect(up).toMatchObject({ command: "up", "stack-name": STACK });
    expect(await apiRequests()).toBe(before + 2);

    const second = await push("No change");
    expect(second.status, second.output).toBe(0);
    expect(second.output).toMatch(/3 unchanged/);
    expect(await apiRequests()).toBe(before + 2);
    expect(github.requests).toHaveLength(comments);
  }, 900_000);

  it("leaves the API key and the database password in no log, record or state file", async () => {
    expect(runs).toHaveLength(3);
    const state = allText(path.join(scratch, "state"));
    expect(state).toContain("warehouse");
    for (const text of [
      ...runs.map((run) => run.log + JSON.stringify(run.records)),
      state,
      await server.logs(),
      fs.readFileSync(path.join(repo, "Pulumi.production.yaml"), "utf8"),
    ]) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(DB_PASSWORD);
    }
  });
});

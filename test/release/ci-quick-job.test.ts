/**
 * The pull-request workflow's quick job (.github/workflows/ci.yml: npm ci, the format check, the
 * lint, the type-check, the unit tier), run by act (test/support/act.ts) on a push to main of a
 * copy of this checkout made into a new git repository, on the pinned Node.js from the runner's
 * tool cache, with npm's cache as a runner that has run it before has it. Only that job runs: the
 * long one (`npm test`) is this suite.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newRepository, runAct, seedNodeToolCache, standInInputs, transcript, type ActRun } from "../support/act";
import { copyCheckout } from "./packed/packed-app";

describe("the pull-request workflow's quick job, run by act on a copy of the repository", () => {
  let copy: string;
  let scratch: string;
  let run: ActRun;
  let node: string;

  beforeAll(async () => {
    copy = copyCheckout("ci-quick-job-");
    // The workflow's own npm ci makes node_modules; the copy's link to the checkout's goes.
    fs.unlinkSync(path.join(copy, "node_modules"));
    const after = newRepository(copy, "pulumi-analytics/pulumi-analytics");
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "ci-quick-job-act-"));
    node = await seedNodeToolCache(scratch);
    const npmCache = execFileSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).trim();
    run = await runAct({
      repo: copy,
      workflow: ".github/workflows/ci.yml",
      event: "push",
      job: "quick",
      payload: { ref: "refs/heads/main", after, repository: { full_name: "pulumi-analytics/pulumi-analytics" } },
      scratch,
      env: {
        HOME: os.homedir(),
        PATH: "/usr/local/bin:/usr/bin:/bin",
        ACT_CHECKOUT_SOURCE: copy,
        npm_config_cache: npmCache,
        npm_config_prefer_offline: "true",
        npm_config_update_notifier: "false",
      },
    });
    process.stderr.write(`${transcript("push, quick job", run)}\n`);
  }, 1_800_000);

  afterAll(() => {
    for (const dir of [copy, scratch]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("passes: npm ci, the format check, the lint, the type-check and the unit tier, on the pinned Node.js", () => {
    expect(run.status, run.output.slice(-20_000)).toBe(0);
    expect(run.jobs).toEqual([expect.objectContaining({ job: "quick", result: "success" })]);
    const npmSteps = run.jobs[0]!.steps.filter((step) => step.step.startsWith("npm "));
    expect(npmSteps.map((step) => `${step.step}: ${step.result}`)).toEqual(
      ["npm ci", "npm run format:check", "npm run lint", "npm run typecheck", "npm run test:unit"].map((step) => `${step}: success`),
    );
    expect(run.output).toMatch(/^Tests: [1-9]\d* passed, 0 failed, 0 skipped$/m);
  });

  it("gives the checkout and setup-node steps what the workflow names (setup-node's stand-in; the real one records nothing)", () => {
    const inputs = standInInputs(run);
    expect(inputs["actions/checkout"]).toEqual({ "persist-credentials": "false" });
    if (inputs["actions/setup-node"]) expect(inputs["actions/setup-node"]).toEqual({ "node-version": node, "package-manager-cache": "false" });
  });
});

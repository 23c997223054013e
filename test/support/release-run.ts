/**
 * The release workflow (.github/workflows/release.yml) run by act (test/support/act.ts) on the push
 * of the tag v<version> to a copy of this checkout at its own commit (uncommitted changes committed
 * on top, dated as that commit: the release dates its files by it): `version`, `test` (whose
 * `npm ci` and `npm test`, the suite itself, are skipped for act's events), `build` on the Linux
 * x64 runner (the release folder, `npm run release`, with every single file started), `platforms`
 * for linux-arm64, `release` (one folder, SHA256SUMS, the attestation's and the GitHub
 * release's stand-ins), then the publishing jobs: npm, pypi, maven and container to the registries
 * of test/support/release-run-registries.ts, and go, whose tag goes to a bare repository of the
 * run's folder; their artifacts through act's artifact server. The macOS builds, the Windows run
 * and the nuget job are left out: act has no runner for them, this machine no .NET SDK. The run's
 * folder keeps the artifacts, what the GitHub release and the registries received and the run's
 * summary for test/release/release-run.test.ts.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { commitAll, runAct, seedNodeToolCache, tagCommit, transcript, STAND_INS, type ActRun } from "./act";
import { copyCheckout, userEnvironment } from "../release/packed/packed-app";
import { ARM64_LIBRARIES } from "../../tools/build-plugin-binary.js";
import { repoRoot } from "./pulumi-workspace";
import { resolvePythonEnv } from "./python-env";
import { registryFolders, startRunRegistries, type RegistryFolders } from "./release-run-registries";
import { unusedPort } from "./tcp-server";

/** The repository the copy is pushed as (GITHUB_REPOSITORY of the run). */
export const RELEASE_REPOSITORY = "pulumi-analytics/pulumi-analytics";

/** What a release run left in its folder `dir`. */
export interface ReleaseRun {
  /** The build job's artifact `release-linux-amd64`: the release folder of `npm run release`. */
  folder: string;
  /** The release job's artifact `release`: the assembled folder the publishing jobs take. */
  assembled: string;
  /** What the GitHub release's stand-in received, by tag (and `<tag>.draft` while it is a draft). */
  releases: string;
  /** The bare repository the go job pushed the tag sdk/v<version> to. */
  goRemote: string;
  /** The folders of the registries the other publishing jobs published to. */
  registries: RegistryFolders;
  /** The run's summary, and the commit it released: `run.json` beside them. */
  run: Omit<ActRun, "log"> & { commit: string };
}

/**
 * The environment of act and its steps: the user's, without a surrounding runner's variables, the
 * stand-ins' `gh` first on PATH, and a git config sending the repository's GitHub address to the
 * bare repository `remote` (as a fork's user sets `insteadOf`), where the go job pushes its tag.
 */
function actEnvironment(scratch: string, copy: string, python: string, remote: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(userEnvironment())) if (!/^(GITHUB|ACTIONS|RUNNER)_/.test(key)) env[key] = value;
  const npmCache = execFileSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).trim();
  const gitConfig = path.join(scratch, "gitconfig");
  fs.writeFileSync(gitConfig, `[url "${remote}"]\n\tinsteadOf = https://github.com/${RELEASE_REPOSITORY}.git\n`);
  return {
    ...env,
    GIT_CONFIG_GLOBAL: gitConfig,
    PATH: `${path.join(STAND_INS, "bin")}:${env.PATH ?? "/usr/bin:/bin"}`,
    ACT_CHECKOUT_SOURCE: copy,
    QEMU_LD_PREFIX: ARM64_LIBRARIES,
    ACT_PYTHON_BIN: path.dirname(python),
    ACT_STAND_IN_RELEASES: path.join(scratch, "github-releases"),
    npm_config_cache: npmCache,
    npm_config_prefer_offline: "true",
    npm_config_update_notifier: "false",
  };
}

/**
 * The repository the workflow runs on: a copy of this checkout with its git history, so the release
 * is built at the checkout's own commit (the image's revision label, the files' dates), and the
 * working tree's uncommitted changes, if any, committed on top. Returns it and the commit to tag.
 */
function releaseRepository(): { copy: string; sha: string } {
  const copy = copyCheckout("release-run-");
  fs.unlinkSync(path.join(copy, "node_modules"));
  const clone = fs.mkdtempSync(path.join(os.tmpdir(), "release-run-git-"));
  const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: repoRoot, encoding: "utf8" }).trim();
  execFileSync("git", ["clone", "-q", "--no-checkout", repoRoot, clone]);
  fs.renameSync(path.join(clone, ".git"), path.join(copy, ".git"));
  fs.rmSync(clone, { recursive: true, force: true });
  const git = (...args: string[]) => execFileSync("git", args, { cwd: copy, encoding: "utf8" }).trim();
  // The branch main at the checkout's commit, its files as copied (reset leaves the work tree alone).
  git("symbolic-ref", "HEAD", "refs/heads/main");
  git("reset", "-q", head);
  git("remote", "set-url", "origin", `https://github.com/${RELEASE_REPOSITORY}.git`);
  const date = git("log", "-1", "--format=%cI");
  return { copy, sha: commitAll(copy, "Uncommitted changes of the checkout", date, { onlyIfChanged: true }) };
}

/** Runs the release workflow on a tag push into `dir` (made here); throws with the log's end when the run fails. */
export async function runReleaseWorkflow(dir: string, log: (line: string) => void): Promise<ReleaseRun> {
  const { version } = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string };
  const python = (await resolvePythonEnv({ log })).python;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "release-run-act-"));
  const { copy, sha } = releaseRepository();
  const registries = await startRunRegistries(dir, scratch, log);
  try {
    tagCommit(copy, `v${version}`, sha);
    execFileSync("git", ["init", "-q", "--bare", path.join(dir, "go-remote.git")]);
    await seedNodeToolCache(scratch);
    const artifacts = { dir: path.join(dir, "artifacts"), port: await unusedPort() };
    log(`[release] running the release workflow with act on the push of v${version}`);
    const run = await runAct({
      repo: copy,
      workflow: ".github/workflows/release.yml",
      event: "push",
      payload: { ref: `refs/tags/v${version}`, after: sha, act: true, repository: { full_name: RELEASE_REPOSITORY, owner: { login: "pulumi-analytics" } } },
      // The Linux entries: the x64 build, and its arm64 files started on the arm64 runner, this
      // host, which runs them through the kernel's qemu registration (.ci/run) with the arm64 libraries.
      matrix: { platform: ["linux-amd64", "linux-arm64"] },
      runners: ["ubuntu-24.04-arm"],
      // The job token the workflow hands `gh` and `docker login` (act would otherwise ask a `gh` on
      // PATH for one), and the publishing jobs' secrets.
      secrets: { GITHUB_TOKEN: "release-run-job-token", ...registries.secrets },
      vars: registries.vars,
      scratch,
      artifacts,
      progress: log,
      env: { ...actEnvironment(scratch, copy, python, path.join(dir, "go-remote.git")), ...registries.env },
    });
    log(transcript(`push of v${version}`, run));
    const { log: _log, ...summary } = run;
    fs.writeFileSync(path.join(dir, "run.json"), JSON.stringify({ ...summary, commit: sha }));
    if (run.status !== 0) throw new Error(`the release workflow failed under act (exit ${run.status}):\n${run.output.slice(-12_000)}`);
    fs.renameSync(path.join(scratch, "github-releases"), path.join(dir, "github-releases"));
    log(`[release] artifacts: ${artifactSizes(path.join(artifacts.dir, "1")).join(", ")}`);
    return readReleaseRun(dir);
  } finally {
    await registries.close();
    for (const folder of [copy, scratch]) fs.rmSync(folder, { recursive: true, force: true });
  }
}

/** Each artifact of a run's folder of artifacts: its name, its files and their bytes. */
function artifactSizes(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .sort()
    .map((name) => {
      const files = fs.readdirSync(path.join(dir, name), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
      const bytes = files.reduce((sum, entry) => sum + fs.statSync(path.join(entry.parentPath, entry.name)).size, 0);
      return `${name} (${files.length} files, ${(bytes / 1e6).toFixed(1)} MB)`;
    });
}

/** The release run that left its files in `dir`. */
export function readReleaseRun(dir: string): ReleaseRun {
  const artifacts = path.join(dir, "artifacts", "1");
  return {
    folder: path.join(artifacts, "release-linux-amd64"),
    assembled: path.join(artifacts, "release"),
    releases: path.join(dir, "github-releases"),
    goRemote: path.join(dir, "go-remote.git"),
    registries: registryFolders(dir),
    run: JSON.parse(fs.readFileSync(path.join(dir, "run.json"), "utf8")) as ReleaseRun["run"],
  };
}

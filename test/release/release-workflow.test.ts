/**
 * .github/workflows/release.yml, the pull-request workflow .github/workflows/ci.yml and
 * examples/gitops' workflow linted by actionlint (pinned in tools/pinned/actionlint, built into the
 * project cache as versitygw is): they pass, and a broken copy fails. All three audited by zizmor (pinned with hashes in tools/pinned/zizmor/requirements.txt, run offline)
 * with no finding, and a copy whose checkouts keep their credentials and that takes an action by
 * tag fails. The release's shape: the tag checked against package.json, publishing after the test
 * suite and the GitHub release, secrets and OIDC tokens only in jobs with an environment, the
 * reference server's image pushed to ghcr.io by digest with its provenance. The pull-request
 * workflow's shape: the quick job (type-check, unit tier) before the long one, superseded runs
 * cancelled, read-only jobs, release.yml's commits, and the Debian packages of .ci/run.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { resolvePinnedGoTool, type PinnedGoTool } from "../../toolchain/src/pulumi-cli";
import { TARGETS } from "../../tools/build-plugin-binary.js";
import { PLUGIN_LINE, supportedLine } from "../../tools/lib/node-runtime.js";
import { checkTag } from "../../tools/publish.js";
import { repoRoot } from "../support/pulumi-workspace";
import { resolvePythonTool } from "../support/python-tool";

const ACTIONLINT: PinnedGoTool = {
  name: "actionlint",
  version: "1.7.12",
  moduleDir: path.join(repoRoot, "tools", "pinned", "actionlint"),
  goPackage: "github.com/rhysd/actionlint/cmd/actionlint",
  binary: "actionlint",
};
const WORKFLOW = path.join(repoRoot, ".github", "workflows", "release.yml");

/** The `node-version` of every actions/setup-node step of a workflow's text. */
function setupNodeVersions(workflow: string): string[] {
  return [...workflow.matchAll(/uses: actions\/setup-node@\S+(?: #[^\n]*)?\s+with:\s+node-version:\s*"([^"]+)"/g)].map((match) => match[1]!);
}

const GITOPS_WORKFLOW = path.join(repoRoot, "examples", "gitops", ".github", "workflows", "analytics.yml");
const CI_WORKFLOW = path.join(repoRoot, ".github", "workflows", "ci.yml");
const VERSION = (JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }).version;

/** zizmor over workflow files, offline (no GitHub API), plain output without colours. */
function zizmor(binary: string, workflows: string[]): { status: number | null; output: string } {
  const result = spawnSync(binary, ["--offline", "--no-progress", "--color=never", ...workflows], { cwd: repoRoot, encoding: "utf8", timeout: 120_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The jobs of a workflow's text, each as the lines of its block (the workflows here indent jobs by two spaces). */
function jobs(workflow: string): Map<string, string> {
  const body = workflow.slice(workflow.indexOf("\njobs:\n") + "\njobs:\n".length);
  const blocks = body.split(/^(?=  [\w-]+:\s*$)/m);
  return new Map(blocks.map((block) => [/^  ([\w-]+):/.exec(block)![1]!, block] as const));
}

/** The job names a job's `needs:` lists. */
function needs(job: string): string[] {
  const value = /^    needs: (.+)$/m.exec(job)?.[1] ?? "";
  return value
    .replace(/[[\]]/g, "")
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
}

/** actionlint over one workflow file, without the shellcheck and pyflakes it would look for on PATH. */
function actionlint(binary: string, workflow: string): { status: number | null; output: string } {
  const result = spawnSync(binary, ["-no-color", "-shellcheck=", "-pyflakes=", workflow], { cwd: path.dirname(workflow), encoding: "utf8", timeout: 60_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe("the release workflow", () => {
  let binary: string;
  beforeAll(async () => {
    binary = await resolvePinnedGoTool(ACTIONLINT);
  }, 900_000);

  it("passes actionlint, and so do the pull-request workflow and examples/gitops' workflow", () => {
    for (const workflow of [WORKFLOW, CI_WORKFLOW, GITOPS_WORKFLOW]) {
      const result = actionlint(binary, workflow);
      expect(result.output).toBe("");
      expect(result.status).toBe(0);
    }
  });

  it("fails actionlint when broken: an unknown matrix key and a missing job dependency", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "release-workflow-"));
    try {
      const broken = path.join(dir, "release.yml");
      const text = fs.readFileSync(WORKFLOW, "utf8");
      fs.writeFileSync(
        broken,
        text
          .replace("${{ matrix.runner }}", "${{ matrix.runnr }}")
          .replace("needs: [version, test, build, platforms]", "needs: [version, test, bulid, platforms]"),
      );
      const result = actionlint(binary, broken);
      expect(result.status).not.toBe(0);
      expect(result.output).toMatch(/runnr/);
      expect(result.output).toMatch(/bulid/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("sets up the pinned Node.js of PLUGIN_LINE, the one the single-file plugin embeds, and only it, in every job that sets up Node.js", () => {
    const text = fs.readFileSync(WORKFLOW, "utf8");
    const versions = setupNodeVersions(text);
    expect(versions).toHaveLength([...text.matchAll(/uses: actions\/setup-node@/g)].length);
    expect(new Set(versions)).toEqual(new Set([supportedLine(PLUGIN_LINE).pinned]));
  });

  describe("zizmor", () => {
    let zizmorBinary: string;
    beforeAll(async () => {
      zizmorBinary = (await resolvePythonTool("zizmor", path.join(repoRoot, "tools", "pinned", "zizmor", "requirements.txt"))).bin("zizmor");
    }, 900_000);

    it("finds nothing in the release workflow, the pull-request workflow and examples/gitops' workflow", () => {
      const result = zizmor(zizmorBinary, [WORKFLOW, CI_WORKFLOW, GITOPS_WORKFLOW]);
      expect(result.output).toMatch(/No findings to report/);
      expect(result.status).toBe(0);
    });

    it("fails a copy whose checkouts keep their credentials (the default) and that takes an action by tag", () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "release-workflow-"));
      try {
        const broken = path.join(dir, "release.yml");
        const text = fs.readFileSync(WORKFLOW, "utf8");
        fs.writeFileSync(
          broken,
          text.replace(/\n\s+with:\n\s+persist-credentials: false/g, "").replace(/actions\/setup-java@[0-9a-f]{40} # (v[\d.]+)/g, "actions/setup-java@$1"),
        );
        const result = zizmor(zizmorBinary, [broken]);
        expect(result.status).not.toBe(0);
        expect(result.output).toMatch(/artipacked/);
        expect(result.output).toMatch(/unpinned-uses/);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  it("pins every action of the three workflows to a commit, with its release in a comment", () => {
    for (const workflow of [WORKFLOW, CI_WORKFLOW, GITOPS_WORKFLOW]) {
      const uses = [...fs.readFileSync(workflow, "utf8").matchAll(/uses: (\S+)(.*)$/gm)];
      expect(uses.length).toBeGreaterThan(3);
      for (const [, action, rest] of uses) expect(`${action}${rest}`).toMatch(/^[\w-]+\/[\w-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
    }
  });

  it("checks the tag against package.json's version, in the script its first job runs", () => {
    expect(checkTag(`refs/tags/v${VERSION}`)).toBe(`v${VERSION}`);
    expect(() => checkTag("refs/tags/v0.0.0-other")).toThrow(/v0\.0\.0-other is not v/);
    expect(checkTag("refs/heads/main")).toBeUndefined();
    const wrong = spawnSync(process.execPath, [path.join(repoRoot, "tools", "publish.js"), "check-tag", "refs/tags/v999.0.0"], { encoding: "utf8" });
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain(`v999.0.0 is not v${VERSION}`);
    expect(jobs(fs.readFileSync(WORKFLOW, "utf8")).get("version")).toContain(`node tools/publish.js check-tag "$GITHUB_REF"`);
  });

  it("publishes only after the test suite and the GitHub release, which waits for the tag check, the tests, every build and every platform's run", () => {
    const all = jobs(fs.readFileSync(WORKFLOW, "utf8"));
    expect(needs(all.get("test")!)).toEqual(["version"]);
    expect(needs(all.get("build")!)).toEqual(["version"]);
    expect(needs(all.get("platforms")!)).toEqual(["build"]);
    expect(needs(all.get("release")!)).toEqual(["version", "test", "build", "platforms"]);
    const publishing = ["npm", "pypi", "maven", "go", "nuget", "container"];
    for (const name of publishing) expect(needs(all.get(name)!), name).toEqual(["test", "release"]);
    expect([...all.keys()].sort()).toEqual(["build", "platforms", "release", "test", "version", ...publishing].sort());
    // The suite's own commands are skipped only for an event carrying `act` (test/support/release-run.ts),
    // which no GitHub event does; no job but the release (on a tag) and NuGet (not under act, which
    // has no .NET SDK) has a condition of its own.
    expect(all.get("test")).toContain(
      "      - run: npm ci\n        if: ${{ !github.event.act }}\n      - run: npm test\n        if: ${{ !github.event.act }}\n",
    );
    const conditions = [...all].filter(([, text]) => /^ {4}if:/m.test(text)).map(([job]) => job);
    expect(conditions).toEqual(["release", "nuget"]);
    expect(all.get("nuget")).toContain("    if: ${{ !github.event.act }}\n");
    expect(all.get("release")).toContain("    if: startsWith(github.ref, 'refs/tags/v')\n");
  });

  it("builds on Linux x64 and on each macOS, starts every single file where it was built and on a runner of its platform, and verifies the macOS signatures", () => {
    const all = jobs(fs.readFileSync(WORKFLOW, "utf8"));
    const platforms = (job: string) => [...job.matchAll(/platform: ([\w-]+)/g)].map((match) => match[1]);
    const name = (t: { os: string; arch: string }) => `${t.os}-${t.arch}`;
    // Linux x64 makes every platform the npm registry has a Node.js for; macOS, which it has none for, builds its own.
    expect(platforms(all.get("build")!)).toEqual(["linux-amd64", ...TARGETS.filter((t) => !t.npmNode).map(name)]);
    expect(platforms(all.get("platforms")!)).toEqual(TARGETS.filter((t) => t.npmNode && name(t) !== "linux-amd64").map(name));
    expect(all.get("build")).toContain('node tools/smoke-plugin.js smoke/"$PLATFORM"/pulumi-resource-analytics\n');
    expect(all.get("build")).toContain(
      "node tools/smoke-plugin.js smoke/linux-arm64/pulumi-resource-analytics -- qemu-aarch64-static -L /usr/aarch64-linux-gnu",
    );
    expect(all.get("build")).toContain('node tools/smoke-reference-server.js smoke/"$PLATFORM"/analytics-reference-server\n');
    expect(all.get("build")).toContain(
      "node tools/smoke-reference-server.js smoke/linux-arm64/analytics-reference-server -- qemu-aarch64-static -L /usr/aarch64-linux-gnu",
    );
    expect(all.get("build")).toMatch(
      /if: runner\.os == 'macOS'\n(?:.*\n){2}\s+run: \|\n\s+codesign --verify --strict .*pulumi-resource-analytics\n\s+codesign --verify --strict .*analytics-reference-server\n/,
    );
    expect(all.get("platforms")).toContain('node tools/smoke-plugin.js smoke/"$EXECUTABLE"');
    expect(all.get("platforms")).toContain('node tools/smoke-reference-server.js smoke/"$SERVER"');
    // Each macOS build's archives (every build of the matrix succeeded, or the job would not run).
    expect(all.get("release")).toContain("for folder in artifacts/release-darwin-*; do");
    expect(all.get("release")).toContain('cp "$folder"/analytics-reference-server-v*-"$platform".tar.gz release/');
    expect(all.get("platforms")).toMatch(/name: release-linux-amd64\n/);
    const upload = all.get("build")!.indexOf("actions/upload-artifact");
    expect(all.get("build")!.lastIndexOf("tools/smoke-plugin.js")).toBeLessThan(upload);
    expect(all.get("build")!.lastIndexOf("tools/smoke-reference-server.js")).toBeLessThan(upload);
  });

  it("makes the release a draft, uploads every asset, checks the draft holds them all, then publishes it", () => {
    const release = jobs(fs.readFileSync(WORKFLOW, "utf8")).get("release")!;
    const order = ["gh release create", "--draft", "gh release view", 'gh release edit "$TAG" --repo "$GITHUB_REPOSITORY" --draft=false'].map((text) =>
      release.indexOf(text),
    );
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(release).not.toMatch(/gh release upload/);
    expect(release).toMatch(/attest-build-provenance@[0-9a-f]{40}[^\n]*\n\s+with:\n\s+subject-path: \|\n\s+release\/SHA256SUMS\n\s+release\/\*\.cdx\.json/);
  });

  it("keeps no checkout credentials and restores no cache in any job", () => {
    const text = fs.readFileSync(WORKFLOW, "utf8");
    const checkouts = [...text.matchAll(/uses: actions\/checkout@\S+.*\n\s+with:\n\s+persist-credentials: false/g)];
    expect(checkouts).toHaveLength([...text.matchAll(/uses: actions\/checkout@/g)].length);
    expect(text).not.toMatch(/^\s+cache: (?!false)/m);
    expect([...text.matchAll(/uses: actions\/setup-node@\S+.*\n\s+with:\n\s+node-version: "[^"]+"\n\s+package-manager-cache: false/g)]).toHaveLength(
      [...text.matchAll(/uses: actions\/setup-node@/g)].length,
    );
  });

  it("grants secrets and OIDC tokens only to jobs with an environment, and the gitops preview job none", () => {
    for (const workflow of [WORKFLOW, GITOPS_WORKFLOW]) {
      const text = fs.readFileSync(workflow, "utf8");
      expect(text.slice(0, text.indexOf("\njobs:\n"))).not.toMatch(/secrets\.|id-token/);
      for (const [name, job] of jobs(text)) {
        if (/secrets\.|id-token: write/.test(job) && !(workflow === GITOPS_WORKFLOW && name === "preview"))
          expect(job, name).toMatch(/^    environment: \S+$/m);
      }
    }
    const gitops = jobs(fs.readFileSync(GITOPS_WORKFLOW, "utf8"));
    expect(gitops.get("preview")).not.toMatch(/secrets\./);
    expect(gitops.get("preview")).not.toMatch(/^\s+environment:/m);
    expect(gitops.get("up")).toMatch(/ANALYTICS_API_KEY: \$\{\{ secrets\.ANALYTICS_API_KEY \}\}/);
  });

  it("pushes the reference server's image index to ghcr.io by digest from the Linux x64 folder, logged in through stdin, with provenance pushed beside it", () => {
    const job = jobs(fs.readFileSync(WORKFLOW, "utf8")).get("container")!;
    expect(job).toMatch(/^    environment: ghcr$/m);
    const permissions = /^    permissions:\n((?:      .+\n)+)/m
      .exec(job)![1]!
      .split("\n")
      .filter(Boolean)
      .map((line) => line.trim().replace(/ #.*$/, ""));
    expect(permissions.sort()).toEqual(["attestations: write", "contents: read", "id-token: write", "packages: write"]);
    expect(job).toMatch(/uses: actions\/download-artifact@[0-9a-f]{40} # v[\d.]+\n\s+with:\n\s+name: release-linux-amd64\n\s+path: release\n/);
    // The token only in the environment, piped to --password-stdin: never in an argument or a URL.
    expect(job).toMatch(/^      CONTAINER_REGISTRY: \$\{\{ vars\.CONTAINER_REGISTRY \|\| 'ghcr\.io' \}\}\n/m);
    expect(job).toMatch(
      /GH_TOKEN: \$\{\{ github\.token \}\}\n\s+run: printf '%s' "\$GH_TOKEN" \| docker login "\$CONTAINER_REGISTRY" --username "\$GITHUB_ACTOR" --password-stdin\n/,
    );
    expect(job).not.toMatch(/--password[ =]|-p |:\/\/[^/\s]*@|token@/);
    const push =
      'id: push\n        run: node tools/publish.js container --release release --repository "$CONTAINER_REGISTRY/${GITHUB_REPOSITORY_OWNER,,}/analytics-reference-server"\n';
    expect(job).toContain(push);
    expect(job).toMatch(
      /uses: actions\/attest-build-provenance@[0-9a-f]{40} # v[\d.]+\n\s+with:\n\s+subject-name: \$\{\{ steps\.push\.outputs\.name \}\}\n\s+subject-digest: \$\{\{ steps\.push\.outputs\.digest \}\}\n\s+push-to-registry: true\n/,
    );
    const at = (text: string) => job.indexOf(text);
    expect([at("docker login"), at(push), at("attest-build-provenance")].every((value, i, all) => value >= 0 && (i === 0 || value > all[i - 1]!))).toBe(true);
    // The same attest action, at the same commit, as the release's own attestation.
    const attests = new Set([...fs.readFileSync(WORKFLOW, "utf8").matchAll(/actions\/attest-build-provenance@([0-9a-f]{40})/g)].map((match) => match[1]));
    expect(attests.size).toBe(1);
  });

  it("runs tools/publish.js for each registry, with the public registry's address unless a repository variable names another", () => {
    const all = jobs(fs.readFileSync(WORKFLOW, "utf8"));
    /** The step running `command` with `option "$NAME"`, NAME the variable's value or `fallback`. */
    const addressed = (command: string, option: string, name: string, fallback: string) =>
      new RegExp(
        `- run: node tools/publish\\.js ${command} ${option} "\\$${name}".*\\n\\s+env:\\n(?:\\s+\\w+: .+\\n)*?\\s+${name}: \\$\\{\\{ vars\\.${name} \\|\\| '${fallback.replace(/[.]/g, "\\.")}' \\}\\}\\n`,
      );
    expect(all.get("npm")).toMatch(addressed("npm", "--release release --registry", "NPM_REGISTRY", "https://registry.npmjs.org/"));
    // Provenance on GitHub; under act, which has no OIDC token to sign it with, none.
    expect(all.get("npm")).toMatch(/NPM_CONFIG_PROVENANCE: \$\{\{ !github\.event\.act \}\}/);
    expect(all.get("pypi")).toMatch(addressed("pypi", "--release release --registry", "PYPI_REGISTRY", "https://upload.pypi.org/legacy/"));
    expect(all.get("maven")).toMatch(
      addressed(
        "maven",
        "--release release --registry",
        "MAVEN_REGISTRY",
        "https://ossrh-staging-api.central.sonatype.com/service/local/staging/deploy/maven2/",
      ),
    );
    expect(all.get("maven")).toMatch(addressed("central-portal", "--api", "CENTRAL_PORTAL_API", "https://ossrh-staging-api.central.sonatype.com/"));
    expect(all.get("go")).toContain('node tools/publish.js go --remote "https://github.com/$GITHUB_REPOSITORY.git"');
    expect(all.get("nuget")).toContain("node tools/publish.js nuget --registry https://api.nuget.org/v3/index.json");
  });
});

describe("the pull-request workflow", () => {
  const text = fs.readFileSync(CI_WORKFLOW, "utf8");
  const all = jobs(text);
  /** A job's `run:` steps, in order. */
  const runs = (job: string) => [...job.matchAll(/^\s+(?:- )?run: (.+)$/gm)].map((match) => match[1]!);

  it("runs on pull requests and pushes to main, and a newer run of the same pull request or branch cancels the one it supersedes", () => {
    const head = text.slice(0, text.indexOf("\njobs:\n"));
    expect(head).toMatch(/^on:\n  pull_request:\n  push:\n    branches: \[main\]\n/m);
    expect(head).toMatch(/^concurrency:\n  group: ci-\$\{\{ github\.event\.pull_request\.number \|\| github\.ref \}\}\n  cancel-in-progress: true\n/m);
  });

  it("runs the format check, the lint, the type-check and the unit tier first, and the README's install and test commands only once they pass", () => {
    expect([...all.keys()]).toEqual(["quick", "test"]);
    expect(needs(all.get("quick")!)).toEqual([]);
    expect(runs(all.get("quick")!)).toEqual(["npm ci", "npm run format:check", "npm run lint", "npm run typecheck", "npm run test:unit"]);
    expect(needs(all.get("test")!)).toEqual(["quick"]);
    expect(runs(all.get("test")!)).toEqual(["bash .ci/install-packages", "npm ci", "npm test"]);
    for (const job of all.values()) expect(job).toMatch(/^    runs-on: ubuntu-24\.04$/m);
    // The long job sets up what release.yml's test job sets up for the same `npm test`.
    const setup = (job: string) =>
      [...job.matchAll(/uses: (actions\/setup-\w+@\S+)(?: #.*)?\n\s+with:\n((?:\s{10}.+\n)+)/g)].map((match) => `${match[1]}\n${match[2]}`);
    expect(setup(all.get("test")!)).toEqual(setup(jobs(fs.readFileSync(WORKFLOW, "utf8")).get("test")!));
  });

  it("grants nothing at the top and only read access to the repository in each job, with no secret", () => {
    expect(text).toMatch(/^permissions: \{\}$/m);
    for (const [name, job] of all) {
      const permissions = /^    permissions:\n((?:      .+\n)+)/m.exec(job)?.[1]?.trim();
      expect(permissions, name).toBe("contents: read");
    }
    expect(text).not.toMatch(/secrets\.|id-token|environment:/);
    expect([...text.matchAll(/uses: actions\/checkout@\S+.*\n\s+with:\n\s+persist-credentials: false/g)]).toHaveLength(
      [...text.matchAll(/uses: actions\/checkout@/g)].length,
    );
    expect(text).not.toMatch(/^\s+cache: (?!false)/m);
    expect([...text.matchAll(/package-manager-cache: false/g)]).toHaveLength([...text.matchAll(/uses: actions\/setup-node@/g)].length);
  });

  it("takes each action at the commit release.yml takes it at", () => {
    const commits = (workflow: string) => new Map([...workflow.matchAll(/uses: ([\w-]+\/[\w-]+)@([0-9a-f]{40})/g)].map((match) => [match[1]!, match[2]!]));
    const release = commits(fs.readFileSync(WORKFLOW, "utf8"));
    for (const [action, commit] of commits(text)) expect(commit, action).toBe(release.get(action));
  });

  it("installs the Debian packages .ci/run installs, from one list that names podman's network DNS, a package only recommended", () => {
    expect(fs.readFileSync(path.join(repoRoot, ".ci", "run"), "utf8")).toMatch(/^bash \.ci\/install-packages$/m);
    expect(fs.readFileSync(path.join(repoRoot, ".ci", "install-packages"), "utf8")).toContain('list="$(dirname "$0")/debian-packages"');
    const listed = fs
      .readFileSync(path.join(repoRoot, ".ci", "debian-packages"), "utf8")
      .split("\n")
      .filter((line) => line && !line.startsWith("#"));
    expect(listed).toEqual(expect.arrayContaining(["podman", "netavark", "aardvark-dns", "chromium", "docker-registry", "wine64 no-recommends"]));
    for (const line of listed) expect(line).toMatch(/^[a-z0-9][a-z0-9.+-]*( no-recommends)?$/);
  });
});

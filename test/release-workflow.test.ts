/**
 * .github/workflows/release.yml linted by actionlint (pinned in tools/actionlint, built into the
 * project cache as versitygw is): it passes, and a broken copy fails. Its Node.js is the release
 * the single-file plugin embeds (tools/node-runtime.js).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { resolvePinnedGoTool, type PinnedGoTool } from "../src/toolchain/pulumi-cli";
import { PLUGIN_LINE, supportedLine } from "../tools/node-runtime.js";
import { repoRoot } from "./support/pulumi-workspace";

const ACTIONLINT: PinnedGoTool = {
  name: "actionlint",
  version: "1.7.12",
  moduleDir: path.join(repoRoot, "tools", "actionlint"),
  goPackage: "github.com/rhysd/actionlint/cmd/actionlint",
  binary: "actionlint",
};
const WORKFLOW = path.join(repoRoot, ".github", "workflows", "release.yml");

/** The `node-version` of every actions/setup-node step of a workflow's text. */
function setupNodeVersions(workflow: string): string[] {
  return [...workflow.matchAll(/uses: actions\/setup-node@\S+\s+with:\s+node-version:\s*"([^"]+)"/g)].map((match) => match[1]!);
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

  it("passes actionlint", () => {
    const result = actionlint(binary, WORKFLOW);
    expect(result.output).toBe("");
    expect(result.status).toBe(0);
  });

  it("fails actionlint when broken: an unknown matrix key and a missing job dependency", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "release-workflow-"));
    try {
      const broken = path.join(dir, "release.yml");
      const text = fs.readFileSync(WORKFLOW, "utf8");
      fs.writeFileSync(broken, text.replace("${{ matrix.runner }}", "${{ matrix.runnr }}").replace("needs: build", "needs: bulid"));
      const result = actionlint(binary, broken);
      expect(result.status).not.toBe(0);
      expect(result.output).toMatch(/runnr/);
      expect(result.output).toMatch(/bulid/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("sets up the pinned Node.js of PLUGIN_LINE, the one the single-file plugin embeds, and only it", () => {
    expect(setupNodeVersions(fs.readFileSync(WORKFLOW, "utf8"))).toEqual([supportedLine(PLUGIN_LINE).pinned]);
  });
});

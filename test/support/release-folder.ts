/**
 * The release folder (`npm run release`, tools/release.js) of this checkout, built once per test
 * run however many test files ask for it: the first builds it under a cross-process lock, from a
 * copy of the checkout (its dist/ is rebuilt there, never the one other tests use), the others wait
 * and reuse it. A run is one `vitest run` or every tier of one `npm test` (test/support/test-run.js);
 * whoever made the run's id removes the folder when the run ends.
 */
import { execFile, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { withLock } from "../../toolchain/src/go-build";
import { copyCheckout, userEnvironment } from "../release/packed/packed-app";
import { currentRunId, runFolder } from "./test-run.js";
import { repoRoot } from "./pulumi-workspace";
import { resolvePythonEnv } from "./python-env";

/** Runs tools/release.js in a copy of the checkout, into `out`, with the cached Python environment's interpreter. */
async function buildRelease(out: string, log: (line: string) => void): Promise<void> {
  const started = Date.now();
  const pyEnv = await resolvePythonEnv({ log });
  const copy = copyCheckout("pulumi-analytics-release-copy-");
  try {
    // `npm sbom` reads a symlinked node_modules as links to outside projects (and wants their dev
    // dependencies): give the copy a node_modules of hard links instead, which costs no space; or,
    // where the checkout's own node_modules is a link (a git worktree sharing another checkout's
    // install), a copy of what it points at, so that nothing the release writes reaches that checkout.
    fs.unlinkSync(path.join(copy, "node_modules"));
    const modules = path.join(repoRoot, "node_modules");
    const shared = fs.lstatSync(modules).isSymbolicLink();
    execFileSync("cp", shared ? ["-a", `${fs.realpathSync(modules)}/.`, path.join(copy, "node_modules")] : ["-al", modules, path.join(copy, "node_modules")]);
    const env = userEnvironment();
    // The copy has no .git: git reads the checkout's (the last commit's time, the C# SDK's file list).
    env.GIT_DIR = execFileSync("git", ["rev-parse", "--absolute-git-dir"], { cwd: repoRoot, encoding: "utf8" }).trim();
    env.GIT_WORK_TREE = copy;
    log(`[release] building the release folder (npm run release) from a copy of the checkout`);
    await promisify(execFile)(process.execPath, [path.join(copy, "tools", "release.js"), "--out", out, "--python", pyEnv.python], { cwd: copy, env, maxBuffer: 64 * 1024 * 1024 });
    log(`[release] the release folder is ready (${Math.round((Date.now() - started) / 1000)} s)`);
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
}

/** The path of this test run's release folder, built on first use. */
export async function sharedReleaseFolder(log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Promise<string> {
  const runId = currentRunId();
  const dir = runFolder(runId);
  const out = path.join(dir, "release");
  const marker = path.join(dir, ".complete");
  if (!fs.existsSync(marker)) {
    await withLock(`${dir}.lock`, log, async () => {
      if (fs.existsSync(marker)) return;
      await buildRelease(out, log);
      fs.writeFileSync(marker, "");
    }, "the release folder");
  }
  return out;
}

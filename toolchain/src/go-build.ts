/**
 * How the toolchain builds a pinned Go program (the engine, the language hosts, test tools) into
 * its cache: Go checked against the module's `go` line, the committed go.sum deciding every
 * module, progress lines, a cross-process lock, and an entry that appears only when complete.
 */
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { ToolchainError } from "./toolchain-error";
import { compareVersions, parseVersion } from "./versions";

const execFileAsync = promisify(execFile);

/** Oldest Go that builds the module in `moduleDir`: its go.mod's `go` line (the build runs with GOTOOLCHAIN=local). */
export function minimumGoVersion(moduleDir: string): string {
  const line = /^go\s+(\S+)\s*$/m.exec(fs.readFileSync(path.join(moduleDir, "go.mod"), "utf8"));
  if (!line) throw new ToolchainError(`${path.join(moduleDir, "go.mod")} has no \`go\` line.`);
  return line[1]!;
}

/** `<prefix>-v<version>-<platform>-<arch>-<digest of the module's files>`: the name of a cache entry built from a pinned module. */
export function moduleCacheKey(prefix: string, version: string, moduleDir: string, files: readonly string[]): string {
  const hash = createHash("sha256");
  for (const file of files) hash.update(fs.readFileSync(path.join(moduleDir, file)));
  return `${prefix}-v${version}-${process.platform}-${process.arch}-${hash.digest("hex").slice(0, 12)}`;
}

/** Serializes builds across processes (parallel test workers, two terminals) with an atomic mkdir. */
export async function withLock(lockDir: string, log: (line: string) => void, body: () => Promise<void>, what = "the Pulumi engine"): Promise<void> {
  fs.mkdirSync(path.dirname(lockDir), { recursive: true });
  let waitedLogged = false;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      fs.writeFileSync(path.join(lockDir, "pid"), String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      if (lockIsStale(lockDir)) {
        fs.rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (!waitedLogged) {
        log(`[toolchain] another process is building ${what}; waiting for it`);
        waitedLogged = true;
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  try {
    await body();
  } finally {
    fs.rmSync(lockDir, { recursive: true, force: true });
  }
}

function lockIsStale(lockDir: string): boolean {
  try {
    const pid = Number(fs.readFileSync(path.join(lockDir, "pid"), "utf8"));
    if (!pid) return Date.now() - fs.statSync(lockDir).mtimeMs > 10_000;
    process.kill(pid, 0);
    return false;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ESRCH: the holder died. ENOENT: the pid file is not written yet or the lock just went away.
    return code === "ESRCH" || (code === "ENOENT" && !fs.existsSync(lockDir));
  }
}

async function goVersion(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  try {
    const { stdout } = await execFileAsync("go", ["env", "GOVERSION"], { env, timeout: 30_000 });
    return parseVersion(stdout.replace(/^go/, "")) ?? /go(\d+\.\d+)/.exec(stdout)?.[1]?.concat(".0");
  } catch {
    return undefined;
  }
}

/** Go's environment for the pinned builds: the local toolchain, and go.sum decides every module (no go.mod edits, no checksum-database lookups). */
function pinnedGoEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...env,
    GOTOOLCHAIN: "local",
    GOFLAGS: "-mod=readonly",
    CGO_ENABLED: env.CGO_ENABLED ?? "0",
  };
}

/** One build of Go programs from a pinned module (toolchain/go/, tools/) into a cache entry. */
export interface GoModuleBuild {
  /** What is built, in progress lines, e.g. `Pulumi 3.200.0` or `pulumi-language-yaml 1.19.1`. */
  what: string;
  /** Prefix of the step lines, e.g. `YAML host ` (empty for the engine). */
  steps: string;
  /** The module (go.mod, go.sum, tools.go) that pins it. */
  moduleDir: string;
  /** Go packages of the mains to build. */
  packages: string[];
  /** What the compile step says it compiles. */
  compiling: string;
  /** `-ldflags` after `-s -w`, e.g. `-X` version symbols. */
  ldflags?: string;
  /** The output file when one package is built under another name; else `bin/` gets each main's name. */
  binary?: string;
  /** Version recorded in the entry's `.complete` marker. */
  version: string;
  /** How long the first build takes, in words. */
  duration: string;
  /** The error's advice when Go is missing or too old. */
  install: (minimumGo: string) => string;
  /** A last step on the staged `bin/` (words, work), before the entry is made complete. */
  finish?: { words: string; run: (binDir: string, goEnv: NodeJS.ProcessEnv) => Promise<void> };
}

/**
 * Builds `build` into `target` the one way every pinned program is built: Go checked against the
 * module's `go` line, `GOTOOLCHAIN=local`, `-mod=readonly`, `CGO_ENABLED=0`, modules downloaded and
 * packages compiled with progress lines, into a staging directory renamed into place when complete.
 */
export async function buildGoModule(build: GoModuleBuild, target: string, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<void> {
  const goEnv = pinnedGoEnv(env);
  const minimumGo = minimumGoVersion(build.moduleDir);
  const go = await goVersion(goEnv);
  if (!go) throw new ToolchainError(`\`go\` is not on PATH to build ${build.what}. ${build.install(minimumGo)}`);
  if (compareVersions(go, minimumGo) < 0)
    throw new ToolchainError(`Go ${go} is older than ${minimumGo}, which ${build.what} needs. ${build.install(minimumGo)}`);

  const staging = `${target}.tmp-${process.pid}`;
  const binDir = path.join(staging, "bin");
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(binDir, { recursive: true });
  const started = Date.now();
  const elapsed = () => `${Math.round((Date.now() - started) / 1000)}s`;
  const count = build.finish ? 3 : 2;

  log(`[toolchain] building ${build.what} with Go ${go} into ${target} (first run only; ${build.duration})`);
  log(`[toolchain] ${build.steps}step 1/${count}: downloading Go modules`);
  await runWithProgress(
    "go",
    ["mod", "download", "-x"],
    build.moduleDir,
    goEnv,
    (lines) => `[toolchain]   ${lines} module files fetched or checked (${elapsed()})`,
    log,
    missingProxyHint,
  );

  log(`[toolchain] ${build.steps}step 2/${count}: compiling ${build.compiling}`);
  const total = await countPackages(build.moduleDir, goEnv, build.packages);
  const output = build.binary ? path.join(binDir, build.binary) : binDir + path.sep;
  await runWithProgress(
    "go",
    ["build", "-v", "-trimpath", "-ldflags", `-s -w${build.ldflags ? ` ${build.ldflags}` : ""}`, "-o", output, ...build.packages],
    build.moduleDir,
    goEnv,
    (lines) => `[toolchain]   compiled ${lines}${total ? ` of up to ${total}` : ""} packages (${elapsed()})`,
    log,
    missingProxyHint,
  );
  if (build.finish) {
    log(`[toolchain] ${build.steps}step 3/3: ${build.finish.words}`);
    await build.finish.run(binDir, goEnv);
  }
  fs.writeFileSync(path.join(staging, ".complete"), JSON.stringify({ version: build.version, go, builtAt: new Date().toISOString() }) + "\n");
  fs.rmSync(target, { recursive: true, force: true });
  fs.renameSync(staging, target);
  log(`[toolchain] ${build.what} ready in ${elapsed()}: ${path.join(target, "bin")}`);
}

/** The releases (`X.Y.Z`, no prereleases) newer than `version` in `go list -m -versions` output, oldest first. */
export function newerReleases(listOutput: string, version: string): string[] {
  const versions = listOutput.trim().split(/\s+/).slice(1);
  return versions.filter((v) => /^v\d+\.\d+\.\d+$/.test(v) && compareVersions(v, version) > 0).map((v) => v.slice(1));
}

/**
 * The releases of Go module `modulePath` newer than `version` that the Go module proxy (GOPROXY)
 * lists, or why it could not be asked: never an error, so a run without the network goes on.
 */
export async function newerOnProxy(modulePath: string, version: string, env: NodeJS.ProcessEnv): Promise<{ newer: string[] } | { unavailable: string }> {
  try {
    const { stdout } = await execFileAsync("go", ["list", "-m", "-versions", modulePath], {
      cwd: os.tmpdir(),
      env: { ...env, GOTOOLCHAIN: "local" },
      timeout: 30_000,
    });
    return { newer: newerReleases(stdout, version) };
  } catch (err) {
    const { stderr, message } = err as { stderr?: string; message: string };
    return { unavailable: (stderr?.trim() || message).split("\n")[0]! };
  }
}

function missingProxyHint(output: string): string {
  if (/proxy|dial tcp|no such host|403|404|timeout/i.test(output)) {
    return " The Go module proxy could not serve a pinned module: check network access to it (GOPROXY).";
  }
  return "";
}

async function countPackages(cwd: string, env: NodeJS.ProcessEnv, packages: string[]): Promise<number | undefined> {
  try {
    const { stdout } = await execFileAsync("go", ["list", "-deps", ...packages], {
      cwd,
      env,
      maxBuffer: 64 * 1024 * 1024,
      timeout: 300_000,
    });
    return stdout.split("\n").filter(Boolean).length;
  } catch {
    return undefined;
  }
}

/** Runs a command, reporting how many output lines it produced every few seconds, and keeps the tail for errors. */
function runWithProgress(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  describe: (lines: number) => string,
  log: (line: string) => void,
  hint: (output: string) => string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let lines = 0;
    let tail = "";
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      lines += text.split("\n").length - 1;
      tail = (tail + text).slice(-4000);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    const timer = setInterval(() => log(describe(lines)), 10_000);
    child.on("error", (err) => {
      clearInterval(timer);
      reject(new ToolchainError(`Could not run ${command}: ${err.message}`));
    });
    child.on("close", (code) => {
      clearInterval(timer);
      if (code === 0) {
        log(describe(lines));
        resolve();
        return;
      }
      reject(
        new ToolchainError(
          `\`${command} ${args.slice(0, 2).join(" ")}\` in ${cwd} failed with exit code ${code}.${hint(tail)}\n${tail.trim().split("\n").slice(-15).join("\n")}`,
        ),
      );
    });
  });
}

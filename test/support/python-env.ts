/**
 * The Python the tests run Python programs, `python -m build` and mypy with: a virtualenv in the
 * project cache holding every package of tools/pinned/python-env/requirements.txt (the pinned Pulumi
 * Python SDK, sdk/python's dependencies and build backend, `build`, mypy, cyclonedx-bom), made once under the
 * toolchain's cross-process build lock and reused after; and what the tests do with it: build
 * sdk/python into an sdist and a wheel outside the repository, and give a program a virtualenv of
 * its own with that wheel installed, as a user installs a package. No Python step writes bytecode
 * into the repository ({@link PYTHON_TEST_VARIABLES}).
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { withLock } from "../../toolchain/src/go-build";
import { defaultCacheRoot } from "../../toolchain/src/pulumi-cli";
import { repoRoot } from "./pulumi-workspace";

const execFileAsync = promisify(execFile);

/** The pinned packages of the environment, one `name==version` a line. */
export const PYTHON_REQUIREMENTS = path.join(repoRoot, "tools/pinned/python-env/requirements.txt");

/** The `pulumi==` pin of a requirements text. */
const pulumiPin = (requirements: string): string | undefined => /^pulumi==(\S+)$/m.exec(requirements)?.[1];

/** The Pulumi Python SDK version the requirements pin. */
export const PINNED_PYTHON_SDK_VERSION = pulumiPin(fs.readFileSync(PYTHON_REQUIREMENTS, "utf8"))!;

/** The cached virtualenv. */
export interface PythonEnv {
  /** Its directory, in the project cache. */
  dir: string;
  /** Its interpreter. */
  python: string;
  /** Its site-packages, which program virtualenvs see too. */
  sitePackages: string;
  /** The base interpreter's version, e.g. `3.11.7`. */
  pythonVersion: string;
}

/** Options of {@link resolvePythonEnv}. */
export interface PythonEnvOptions {
  /** Progress lines; default stderr. */
  log?: (line: string) => void;
  /** Environment (cache root, PATH); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Cache root; default the toolchain's. */
  cacheDir?: string;
}

/**
 * Variables for every Python process a test starts: no bytecode written beside the sources (the
 * cached environment's own, compiled by pip when it installed them, is still read), no pip prompts
 * or version checks.
 */
export const PYTHON_TEST_VARIABLES: Readonly<Record<string, string>> = {
  PYTHONDONTWRITEBYTECODE: "1",
  PIP_DISABLE_PIP_VERSION_CHECK: "1",
  PIP_NO_INPUT: "1",
};

/** `base` (default process.env) with {@link PYTHON_TEST_VARIABLES}. */
export function pythonEnvironment(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...base, ...PYTHON_TEST_VARIABLES };
}

/** Output of one Python run. */
export interface PythonRunResult {
  /** Exit code (0 on success). */
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of {@link runPython}. */
export interface PythonRunOptions {
  /** Environment, before {@link PYTHON_TEST_VARIABLES} are added; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Working directory; default the temp dir, never the repository. */
  cwd?: string;
  /** Milliseconds before it is killed; default 5 minutes. */
  timeout?: number;
  /** Return a failed run's result instead of throwing. */
  allowFailure?: boolean;
}

/** Runs `file ARGS` (an interpreter) with {@link pythonEnvironment}; throws with its output when it fails, unless `allowFailure`. */
export async function runPython(file: string, args: string[], options: PythonRunOptions = {}): Promise<PythonRunResult> {
  try {
    const { stdout, stderr } = await execFileAsync(file, args, {
      env: pythonEnvironment(options.env),
      cwd: options.cwd ?? os.tmpdir(),
      timeout: options.timeout ?? 300_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const { stdout = "", stderr = "", code } = err as { stdout?: string; stderr?: string; code?: unknown };
    if (options.allowFailure && typeof code === "number") return { code, stdout, stderr };
    throw new Error(`${path.basename(file)} ${args.join(" ")} failed: ${err instanceof Error ? err.message : String(err)}\n${stdout}\n${stderr}`, {
      cause: err,
    });
  }
}

/** {@link runPython}'s stdout. */
async function run(file: string, args: string[], options: PythonRunOptions = {}): Promise<string> {
  return (await runPython(file, args, options)).stdout;
}

/**
 * Cache key of the environment: the pinned Pulumi SDK version, the interpreter's version, the
 * platform and a digest of the requirements and the interpreter's path, so a change of either makes a new entry.
 */
export function pythonEnvCacheKey(interpreter: { executable: string; version: string }, requirements = fs.readFileSync(PYTHON_REQUIREMENTS, "utf8")): string {
  const pulumi = pulumiPin(requirements) ?? "unpinned";
  const hash = createHash("sha256").update(requirements).update(interpreter.executable).digest("hex");
  return `python-env-pulumi${pulumi}-py${interpreter.version}-${process.platform}-${process.arch}-${hash.slice(0, 12)}`;
}

/** The base `python3` on PATH: its real executable and version. */
async function baseInterpreter(env: NodeJS.ProcessEnv): Promise<{ executable: string; version: string }> {
  const out = await run("python3", ["-c", "import sys, platform; print(sys.executable); print(platform.python_version())"], { env });
  const [executable, version] = out.trim().split("\n");
  return { executable: executable!, version: version! };
}

/**
 * The cached environment, made on first use under the toolchain's cross-process lock (so parallel
 * test files never race to make it) with progress lines; reused while the requirements and the
 * interpreter stay the same, and remade when a run was killed half-way (no `.complete` marker).
 */
export async function resolvePythonEnv(options: PythonEnvOptions = {}): Promise<PythonEnv> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const interpreter = await baseInterpreter(env);
  const dir = path.join(options.cacheDir ?? defaultCacheRoot(env), pythonEnvCacheKey(interpreter));
  const marker = path.join(dir, ".complete");
  if (!fs.existsSync(marker)) {
    await withLock(
      `${dir}.lock`,
      log,
      async () => {
        if (!fs.existsSync(marker)) await createPythonEnv(interpreter.executable, dir, env, log);
      },
      "the Python environment",
    );
  }
  const { sitePackages } = JSON.parse(fs.readFileSync(marker, "utf8")) as { sitePackages: string };
  return { dir, python: path.join(dir, "bin", "python"), sitePackages, pythonVersion: interpreter.version };
}

async function createPythonEnv(baseExecutable: string, dir: string, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<void> {
  const started = Date.now();
  const count = fs
    .readFileSync(PYTHON_REQUIREMENTS, "utf8")
    .split("\n")
    .filter((line) => /^[\w.-]+==/.test(line)).length;
  log(`[python] making the Python environment in ${dir} (first run only; about a minute)`);
  fs.rmSync(dir, { recursive: true, force: true });
  log(`[python] step 1/3: python3 -m venv`);
  await run(baseExecutable, ["-m", "venv", dir], { env });
  log(`[python] step 2/3: pip install of ${count} pinned packages (Pulumi ${PINNED_PYTHON_SDK_VERSION} for Python, build, mypy, schemathesis, cyclonedx-bom)`);
  const python = path.join(dir, "bin", "python");
  await run(python, ["-m", "pip", "install", "--require-virtualenv", "-r", PYTHON_REQUIREMENTS], { env, timeout: 900_000 });
  const sitePackages = (await run(python, ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], { env })).trim();
  log(`[python] step 3/3: compiling the installed packages to bytecode`);
  // Bytecode beside the installed packages (in the cache, not the repository), so every program
  // that imports pulumi, grpc and protobuf later reads it instead of compiling them again.
  await run(python, ["-m", "compileall", "-q", "-j", "0", sitePackages], { env, allowFailure: true });
  fs.writeFileSync(path.join(dir, ".complete"), JSON.stringify({ pulumi: PINNED_PYTHON_SDK_VERSION, sitePackages }));
  log(`[python] the Python environment is ready (${Math.round((Date.now() - started) / 1000)} s)`);
}

/** An sdist and a wheel of sdk/python. */
export interface SdkDistributions {
  sdist: string;
  wheel: string;
}

/**
 * Builds sdk/python with `python -m build` (an sdist, then a wheel from it) into `outDir`: from a
 * copy, so nothing (build/, *.egg-info, bytecode) is written into the repository; without build
 * isolation, so the pinned setuptools builds it and no index is asked.
 */
export async function buildPythonSdk(pyEnv: PythonEnv, outDir: string): Promise<SdkDistributions> {
  const source = path.join(outDir, "source");
  const dist = path.join(outDir, "dist");
  fs.cpSync(path.join(repoRoot, "sdk", "python"), source, { recursive: true });
  await run(pyEnv.python, ["-m", "build", "--no-isolation", "--outdir", dist, source], { cwd: outDir });
  const built = fs.readdirSync(dist);
  const sdist = built.find((f) => f.endsWith(".tar.gz"));
  const wheel = built.find((f) => f.endsWith(".whl"));
  if (!sdist || !wheel) throw new Error(`python -m build made ${built.join(", ") || "nothing"}, not an sdist and a wheel`);
  return { sdist: path.join(dist, sdist), wheel: path.join(dist, wheel) };
}

/**
 * Makes a virtualenv at `venvDir` for one program, with `wheel` installed into it by pip: from the
 * file alone (`--no-index`), or by name from the index `pipArgs` names (`--index-url <url>`). It
 * sees the cached environment's packages (pip among them) through a `.pth` file, so the wheel's
 * dependencies (pulumi, parver, semver) are there already, as after a user's `pip install`,
 * without downloading them again or paying for ensurepip. `wheel` may also be a package name that
 * `pipArgs` (`--find-links <folder>` or `--index-url <url>`) lets pip find. Returns its interpreter.
 */
export async function createProgramVenv(pyEnv: PythonEnv, venvDir: string, wheel: string, pipArgs: string[] = []): Promise<string> {
  await run(pyEnv.python, ["-m", "venv", "--without-pip", venvDir]);
  const python = path.join(venvDir, "bin", "python");
  const sitePackages = (await run(python, ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])).trim();
  fs.writeFileSync(path.join(sitePackages, "pulumi-analytics-test-env.pth"), `${pyEnv.sitePackages}\n`);
  const source = pipArgs.includes("--index-url") ? [] : ["--no-index"];
  await run(python, ["-m", "pip", "install", ...source, "--no-compile", ...pipArgs, wheel]);
  return python;
}

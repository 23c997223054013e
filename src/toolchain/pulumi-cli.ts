import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { buildGoModule, minimumGoVersion, withLock } from "./go-build";
import { ToolchainError } from "./toolchain-error";
import { compareVersions, parseVersion } from "./versions";

export { ToolchainError } from "./toolchain-error";
export { compareVersions, parseVersion } from "./versions";

const execFileAsync = promisify(execFile);

/** Pulumi CLI and Node.js language host release the engine build uses; tools/pulumi/go.mod pins the same one. The npm SDK is the app's own (peer range in package.json). */
export const PINNED_PULUMI_VERSION = "3.200.0";

/** Pulumi YAML language host release the toolchain builds when none is installed; tools/pulumi-yaml/go.mod pins the same one. */
export const PINNED_YAML_VERSION = "1.19.1";

/** File name of the language host the engine starts for `runtime: yaml` programs. */
export const YAML_LANGUAGE_HOST = "pulumi-language-yaml";

/** File names of the Go and Python language hosts the engine starts for `runtime: go` / `runtime: python` programs and `pulumi package gen-sdk --language go|python`. */
export const GO_LANGUAGE_HOST = "pulumi-language-go";
export const PYTHON_LANGUAGE_HOST = "pulumi-language-python";
/** The Python script the Python host runs programs with (`python/cmd/` of sdk/v3). */
export const PYTHON_EXEC = "pulumi-language-python-exec";
/** The stand-in for pulumi-language-dotnet's code generator, built from the engine's pkg/v3 (tools/pulumi-langhosts/gen-dotnet). */
export const DOTNET_GENERATOR = "gen-dotnet";

/** Oldest CLI accepted from the machine: dynamic providers get `configure` from 3.139 on. */
export const MINIMUM_PULUMI_VERSION = "3.139.0";

/** Where a resolved `pulumi` came from. */
export type ToolchainSource = "env" | "path" | "cache" | "build";

/** A working Pulumi CLI with its Node.js language host and dynamic-provider plugin. */
export interface PulumiToolchain {
  /** Absolute path of the `pulumi` executable. */
  pulumi: string;
  /** Directory prepended to PATH so the engine finds its language host and plugins. */
  binDir: string;
  /** Version reported by `pulumi version`, without the leading `v`. */
  version: string;
  /** How the CLI was found. */
  source: ToolchainSource;
  /** The `pulumi-analyzer-policy` plugin next to `pulumi` that runs Node.js policy packs, when there is one. */
  policyAnalyzer?: string;
  /** The `pulumi-language-yaml` language host for `runtime: yaml` programs, when one was found or built; its directory is on {@link pulumiEnvironment}'s PATH. */
  yamlLanguageHost?: string;
  /** The `pulumi-language-go` language host (`runtime: go`, Go SDK generation), when one was found or built; its directory is on {@link pulumiEnvironment}'s PATH. */
  goLanguageHost?: string;
  /** The `pulumi-language-python` language host (`runtime: python`, Python SDK generation), when one was found or built, with `pulumi-language-python-exec` beside it. */
  pythonLanguageHost?: string;
  /** `gen-dotnet <schema> <out> [version]`: writes a C# SDK with the engine release's codegen (pulumi-language-dotnet is not built here), when built. */
  dotnetGenerator?: string;
}

/** Options for {@link resolvePulumiToolchain}. */
export interface ResolveOptions {
  /** Receives progress lines; defaults to stderr. */
  log?: (line: string) => void;
  /** Environment to read PULUMI_CLI, PATH and cache locations from; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Cache root; defaults to $PULUMI_ANALYTICS_CACHE_DIR, $XDG_CACHE_HOME/pulumi-analytics or ~/.cache/pulumi-analytics. */
  cacheDir?: string;
  /** Skip PULUMI_CLI and PATH and use only the cached or built engine. */
  ignoreInstalled?: boolean;
}

const ENGINE_PACKAGE = "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi";
const LANGUAGE_HOST_PACKAGE = "github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3";
const VERSION_SYMBOL = "github.com/pulumi/pulumi/sdk/v3/go/common/version.Version";
const BINARIES = ["pulumi", "pulumi-language-nodejs", "pulumi-resource-pulumi-nodejs"] as const;
const YAML_HOST_PACKAGE = "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml";
const YAML_VERSION_SYMBOL = "github.com/pulumi/pulumi-yaml/pkg/version.Version";
const GO_HOST_PACKAGE = "github.com/pulumi/pulumi/sdk/go/pulumi-language-go/v3";
const PYTHON_HOST_PACKAGE = "github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3";
const DOTNET_GENERATOR_PACKAGE = "./gen-dotnet";
const LANGHOST_BINARIES = [GO_LANGUAGE_HOST, PYTHON_LANGUAGE_HOST, PYTHON_EXEC, DOTNET_GENERATOR] as const;

/**
 * The dynamic-provider plugin: the engine starts it in the program's directory, and it runs
 * @pulumi/pulumi's provider host with node. Resolution falls back to node's own lookup so
 * hoisted node_modules (workspaces) work too.
 */
const DYNAMIC_PROVIDER_SHIM = `#!/bin/sh
# Pulumi dynamic-provider plugin: serves pulumi.dynamic resources with node.
host=./node_modules/@pulumi/pulumi/cmd/dynamic-provider
if [ ! -e "$host/index.js" ]; then
  host=$(node -p 'require("path").dirname(require.resolve("@pulumi/pulumi/cmd/dynamic-provider", { paths: [process.cwd()] }))') || exit 1
fi
exec node "$host" "$@"
`;

/** File name of the plugin the CLI starts for `--policy-pack` with a Node.js pack. */
export const POLICY_ANALYZER = "pulumi-analyzer-policy";

/**
 * The policy-pack plugin: the engine starts it in the pack's directory, and it runs
 * @pulumi/pulumi's policy-pack runner from there, found the same way as the provider host. It is
 * written next to `pulumi`, where the CLI looks for its bundled plugins, so no "from $PATH"
 * warning appears; it is not part of the cache key, so adding it never rebuilds the engine.
 */
const POLICY_ANALYZER_LAUNCHER = `#!/bin/sh
# Pulumi policy-pack analyzer: runs the Node.js policy pack in this directory with node.
runner=./node_modules/@pulumi/pulumi/cmd/run-policy-pack
if [ ! -e "$runner/index.js" ]; then
  runner=$(node -p 'require("path").dirname(require.resolve("@pulumi/pulumi/cmd/run-policy-pack", { paths: [process.cwd()] }))' 2>/dev/null) || {
    echo "Cannot find module '@pulumi/pulumi/cmd/run-policy-pack' from $(pwd): run npm install in the policy pack's directory." >&2
    exit 1
  }
fi
exec node "$runner" "$@"
`;

/** Writes the launchers that are not compiled (the policy analyzer) into `binDir`, unless already current. */
export function installLaunchers(binDir: string): string {
  const target = path.join(binDir, POLICY_ANALYZER);
  const current = fs.existsSync(target) ? fs.readFileSync(target, "utf8") : undefined;
  if (current !== POLICY_ANALYZER_LAUNCHER) {
    // Written beside and renamed, so a concurrent CLI never starts a half-written script.
    const staging = `${target}.tmp-${process.pid}`;
    fs.writeFileSync(staging, POLICY_ANALYZER_LAUNCHER, { mode: 0o755 });
    fs.renameSync(staging, target);
  }
  return target;
}

/** Directory holding the Go module that pins the engine (shipped with the package). */
export function engineModuleDir(): string {
  return path.resolve(__dirname, "..", "..", "tools", "pulumi");
}

/** Directory holding the Go module that pins the YAML language host (shipped with the package). */
export function yamlModuleDir(): string {
  return path.resolve(__dirname, "..", "..", "tools", "pulumi-yaml");
}

/** Directory holding the Go module that pins the Go and Python language hosts and the C# generator (shipped with the package). */
export function langhostsModuleDir(): string {
  return path.resolve(__dirname, "..", "..", "tools", "pulumi-langhosts");
}

/** Oldest Go that builds the pinned engine: the `go` line of tools/pulumi/go.mod, read from there. */
export const MINIMUM_GO_VERSION = minimumGoVersion(engineModuleDir());

/** Cache root of the engine build and other downloads: $PULUMI_ANALYTICS_CACHE_DIR, $XDG_CACHE_HOME/pulumi-analytics or ~/.cache/pulumi-analytics. */
export function defaultCacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PULUMI_ANALYTICS_CACHE_DIR) return env.PULUMI_ANALYTICS_CACHE_DIR;
  const base = env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");
  return path.join(base, "pulumi-analytics");
}

/** Cache key: the pinned version, the platform and a digest of everything the build reads. */
export function engineCacheKey(moduleDir = engineModuleDir()): string {
  const hash = createHash("sha256");
  for (const file of ["go.mod", "go.sum", "tools.go"]) hash.update(fs.readFileSync(path.join(moduleDir, file)));
  hash.update(DYNAMIC_PROVIDER_SHIM);
  return `pulumi-v${PINNED_PULUMI_VERSION}-${process.platform}-${process.arch}-${hash.digest("hex").slice(0, 12)}`;
}

/**
 * Cache key of the YAML language host, a cache entry of its own beside the engine's: its pinned
 * version, the platform and a digest of tools/pulumi-yaml's files. Changing that module rebuilds
 * only the host; the engine's key (and build) stays as it is.
 */
export function yamlHostCacheKey(moduleDir = yamlModuleDir()): string {
  const hash = createHash("sha256");
  for (const file of ["go.mod", "go.sum", "tools.go"]) hash.update(fs.readFileSync(path.join(moduleDir, file)));
  return `pulumi-language-yaml-v${PINNED_YAML_VERSION}-${process.platform}-${process.arch}-${hash.digest("hex").slice(0, 12)}`;
}

/**
 * Cache key of the Go and Python language hosts and the C# generator, a cache entry of its own like
 * the YAML host's: the engine release they come with, the platform and a digest of
 * tools/pulumi-langhosts's files. Changing that module rebuilds only these; the engine's key stays.
 */
export function langhostsCacheKey(moduleDir = langhostsModuleDir()): string {
  const hash = createHash("sha256");
  for (const file of ["go.mod", "go.sum", "tools.go", path.join("gen-dotnet", "main.go")]) hash.update(fs.readFileSync(path.join(moduleDir, file)));
  return `pulumi-langhosts-v${PINNED_PULUMI_VERSION}-${process.platform}-${process.arch}-${hash.digest("hex").slice(0, 12)}`;
}

/**
 * An installed CLI's YAML language host: the one next to `pulumi` (where Pulumi's releases ship
 * it and where the CLI looks first), else one on PATH; undefined when there is none.
 */
export function findYamlLanguageHost(pulumiBinDir: string, env: NodeJS.ProcessEnv): string | undefined {
  return findOnPath(YAML_LANGUAGE_HOST, { PATH: [pulumiBinDir, env.PATH ?? ""].join(path.delimiter) });
}

/**
 * Puts the built host at `engineBinDir/pulumi-language-yaml` as a hard link (a copy where linking
 * fails), so the CLI finds it next to itself, with no "from $PATH" warning, and the engine's cache
 * entry is not rebuilt. A link to another build (the module changed) is replaced.
 */
export function linkYamlLanguageHost(engineBinDir: string, host: string): string {
  return linkBeside(engineBinDir, host, YAML_LANGUAGE_HOST);
}

/** Puts `file` at `engineBinDir/name` as a hard link (a copy where linking fails), replacing a link to another build; see {@link linkYamlLanguageHost}. */
export function linkBeside(engineBinDir: string, host: string, name: string): string {
  const link = path.join(engineBinDir, name);
  const want = fs.statSync(host);
  const have = fs.statSync(link, { throwIfNoEntry: false });
  const same = have && ((have.ino === want.ino && have.dev === want.dev) || (have.size === want.size && have.mtimeMs === want.mtimeMs));
  if (!same) {
    // Made beside and renamed, so a concurrent CLI never finds the name missing or half written.
    const staging = `${link}.tmp-${process.pid}`;
    fs.rmSync(staging, { force: true });
    try {
      fs.linkSync(host, staging);
    } catch {
      fs.copyFileSync(host, staging);
      fs.chmodSync(staging, 0o755);
      fs.utimesSync(staging, want.atime, want.mtime);
    }
    fs.renameSync(staging, link);
  }
  return link;
}

async function versionOf(executable: string): Promise<string | undefined> {
  try {
    const { stdout } = await execFileAsync(executable, ["version"], {
      env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" },
      timeout: 30_000,
    });
    return parseVersion(stdout);
  } catch {
    return undefined;
  }
}

function findOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function isYamlHostComplete(dir: string): boolean {
  return fs.existsSync(path.join(dir, ".complete")) && fs.existsSync(path.join(dir, "bin", YAML_LANGUAGE_HOST));
}

function isLanghostsComplete(dir: string): boolean {
  return fs.existsSync(path.join(dir, ".complete")) && LANGHOST_BINARIES.every((b) => fs.existsSync(path.join(dir, "bin", b)));
}

function isComplete(dir: string): boolean {
  return fs.existsSync(path.join(dir, ".complete")) && BINARIES.every((b) => fs.existsSync(path.join(dir, "bin", b)));
}

/**
 * Finds a Pulumi CLI, in order: $PULUMI_CLI, a `pulumi` on PATH at version >= 3.139, the cached
 * build, or a fresh build of the pinned engine from Pulumi's Go modules (minutes, with progress).
 */
export async function resolvePulumiToolchain(options: ResolveOptions = {}): Promise<PulumiToolchain> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));

  if (!options.ignoreInstalled && env.PULUMI_CLI) {
    const pulumi = path.resolve(env.PULUMI_CLI);
    const version = await versionOf(pulumi);
    if (!version) throw new ToolchainError(`PULUMI_CLI=${env.PULUMI_CLI} does not run \`pulumi version\`. Point it at a Pulumi CLI >= ${MINIMUM_PULUMI_VERSION}, or unset it to use the built engine.`);
    if (compareVersions(version, MINIMUM_PULUMI_VERSION) < 0) {
      throw new ToolchainError(`PULUMI_CLI=${env.PULUMI_CLI} is Pulumi ${version}; dynamic-provider configuration needs >= ${MINIMUM_PULUMI_VERSION}. Upgrade it, or unset PULUMI_CLI to use the built engine.`);
    }
    const cacheRoot = options.cacheDir ?? defaultCacheRoot(env);
    return withInstalledLanghosts(await withInstalledYamlHost(withAnalyzer({ pulumi, binDir: path.dirname(pulumi), version, source: "env" }), cacheRoot, env, log), cacheRoot, env, log);
  }

  const cacheRoot = options.cacheDir ?? defaultCacheRoot(env);
  const cached = path.join(cacheRoot, engineCacheKey());

  if (!options.ignoreInstalled) {
    const onPath = findOnPath("pulumi", env);
    if (onPath && !onPath.startsWith(cacheRoot)) {
      const version = await versionOf(onPath);
      if (version && compareVersions(version, MINIMUM_PULUMI_VERSION) >= 0) {
        return withInstalledLanghosts(await withInstalledYamlHost(withAnalyzer({ pulumi: onPath, binDir: path.dirname(onPath), version, source: "path" }), cacheRoot, env, log), cacheRoot, env, log);
      }
      if (version) log(`[toolchain] ignoring ${onPath}: Pulumi ${version} is older than ${MINIMUM_PULUMI_VERSION}`);
    }
  }

  if (isComplete(cached)) return withBuiltLanghosts(await withBuiltYamlHost(fromDir(cached, "cache"), cacheRoot, env, log), cacheRoot, env, log);

  let built = false;
  await withLock(`${cached}.lock`, log, async () => {
    if (isComplete(cached)) return;
    await buildEngine(cached, env, log);
    built = true;
  });
  return withBuiltLanghosts(await withBuiltYamlHost(fromDir(cached, built ? "build" : "cache"), cacheRoot, env, log), cacheRoot, env, log);
}

function fromDir(dir: string, source: ToolchainSource): PulumiToolchain {
  const binDir = path.join(dir, "bin");
  return { pulumi: path.join(binDir, "pulumi"), binDir, version: PINNED_PULUMI_VERSION, source, policyAnalyzer: installLaunchers(binDir) };
}

/** An installed CLI keeps its own analyzer plugin (Pulumi's releases ship one next to `pulumi`); it is reported when present. */
function withAnalyzer(toolchain: PulumiToolchain): PulumiToolchain {
  const analyzer = path.join(toolchain.binDir, POLICY_ANALYZER);
  return fs.existsSync(analyzer) ? { ...toolchain, policyAnalyzer: analyzer } : toolchain;
}

/** An installed CLI keeps its own YAML host (next to it, else on PATH); ours is built into the cache only when it has none. */
async function withInstalledYamlHost(toolchain: PulumiToolchain, cacheRoot: string, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<PulumiToolchain> {
  const installed = findYamlLanguageHost(toolchain.binDir, env);
  if (installed) return { ...toolchain, yamlLanguageHost: installed };
  const built = await yamlHostOrWarn(cacheRoot, env, log);
  return built ? { ...toolchain, yamlLanguageHost: built } : toolchain;
}

/** The cached engine gets the cached (or freshly built) YAML host linked in next to `pulumi`. */
async function withBuiltYamlHost(toolchain: PulumiToolchain, cacheRoot: string, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<PulumiToolchain> {
  const built = await yamlHostOrWarn(cacheRoot, env, log);
  return built ? { ...toolchain, yamlLanguageHost: linkYamlLanguageHost(toolchain.binDir, built) } : toolchain;
}

/**
 * An installed CLI keeps its own Go and Python hosts (next to it, else on PATH; Pulumi's releases
 * ship both); ours are built into the cache only when one is missing. The C# generator is always ours.
 */
async function withInstalledLanghosts(toolchain: PulumiToolchain, cacheRoot: string, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<PulumiToolchain> {
  const lookup = { PATH: [toolchain.binDir, env.PATH ?? ""].join(path.delimiter) };
  const go = findOnPath(GO_LANGUAGE_HOST, lookup);
  const python = findOnPath(PYTHON_LANGUAGE_HOST, lookup);
  const pythonExec = python && fs.existsSync(path.join(path.dirname(python), PYTHON_EXEC));
  const built = await langhostsOrWarn(cacheRoot, env, log);
  const ours = (name: string) => (built ? path.join(built, name) : undefined);
  const result: PulumiToolchain = { ...toolchain };
  const goHost = go ?? ours(GO_LANGUAGE_HOST);
  const pythonHost = python && pythonExec ? python : ours(PYTHON_LANGUAGE_HOST);
  const dotnet = ours(DOTNET_GENERATOR);
  if (goHost) result.goLanguageHost = goHost;
  if (pythonHost) result.pythonLanguageHost = pythonHost;
  if (dotnet) result.dotnetGenerator = dotnet;
  return result;
}

/** The cached engine gets the cached (or freshly built) Go and Python hosts, and the python-exec script, linked in next to `pulumi`; the C# generator stays in its cache entry. */
async function withBuiltLanghosts(toolchain: PulumiToolchain, cacheRoot: string, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<PulumiToolchain> {
  const built = await langhostsOrWarn(cacheRoot, env, log);
  if (!built) return toolchain;
  linkBeside(toolchain.binDir, path.join(built, PYTHON_EXEC), PYTHON_EXEC);
  return {
    ...toolchain,
    goLanguageHost: linkBeside(toolchain.binDir, path.join(built, GO_LANGUAGE_HOST), GO_LANGUAGE_HOST),
    pythonLanguageHost: linkBeside(toolchain.binDir, path.join(built, PYTHON_LANGUAGE_HOST), PYTHON_LANGUAGE_HOST),
    dotnetGenerator: path.join(built, DOTNET_GENERATOR),
  };
}

/** The cached language hosts' bin directory, built on first use; a failure only stops Go and Python programs and SDK generation, so it is reported as a progress line. */
async function langhostsOrWarn(cacheRoot: string, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<string | undefined> {
  const dir = path.join(cacheRoot, langhostsCacheKey());
  if (isLanghostsComplete(dir)) return path.join(dir, "bin");
  try {
    await withLock(`${dir}.lock`, log, async () => {
      if (!isLanghostsComplete(dir)) await buildLanghosts(dir, env, log);
    }, "the Go and Python language hosts");
    return path.join(dir, "bin");
  } catch (err) {
    log(`[toolchain] no ${GO_LANGUAGE_HOST}/${PYTHON_LANGUAGE_HOST}, so Go and Python programs and SDK generation will not run: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

/**
 * The cached YAML host, built on first use. Not having one only stops YAML programs, so a failure
 * (no Go, no module proxy) is reported as a progress line and the toolchain is returned without it.
 */
async function yamlHostOrWarn(cacheRoot: string, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<string | undefined> {
  const dir = path.join(cacheRoot, yamlHostCacheKey());
  const host = path.join(dir, "bin", YAML_LANGUAGE_HOST);
  if (isYamlHostComplete(dir)) return host;
  try {
    await withLock(`${dir}.lock`, log, async () => {
      if (!isYamlHostComplete(dir)) await buildYamlHost(dir, env, log);
    }, "the Pulumi YAML language host");
    return host;
  } catch (err) {
    log(`[toolchain] no ${YAML_LANGUAGE_HOST}, so Pulumi YAML programs (runtime: yaml) will not run: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

/** Advice when the engine cannot be built: install a CLI, or a Go that can build it. */
const ENGINE_INSTALL = (minimumGo: string) =>
  `No Pulumi CLI >= ${MINIMUM_PULUMI_VERSION} was found (set PULUMI_CLI or put \`pulumi\` on PATH), so the engine must be built from Pulumi's Go modules: ` +
  `install a Pulumi CLI >= ${MINIMUM_PULUMI_VERSION}, or Go >= ${minimumGo} with access to the Go module proxy.`;

function buildEngine(target: string, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<void> {
  return buildGoModule(
    {
      what: `Pulumi ${PINNED_PULUMI_VERSION}`,
      steps: "",
      moduleDir: engineModuleDir(),
      packages: [ENGINE_PACKAGE, LANGUAGE_HOST_PACKAGE],
      compiling: "the engine and the Node.js language host",
      ldflags: `-X ${VERSION_SYMBOL}=v${PINNED_PULUMI_VERSION}`,
      version: PINNED_PULUMI_VERSION,
      duration: "a few minutes",
      install: ENGINE_INSTALL,
      finish: {
        words: "installing the dynamic-provider plugin and checking the CLI",
        run: async (binDir) => {
          fs.writeFileSync(path.join(binDir, "pulumi-resource-pulumi-nodejs"), DYNAMIC_PROVIDER_SHIM, { mode: 0o755 });
          const version = await versionOf(path.join(binDir, "pulumi"));
          if (version !== PINNED_PULUMI_VERSION) {
            throw new ToolchainError(`The built engine reports version ${version ?? "(none)"}, expected ${PINNED_PULUMI_VERSION}; the build in ${path.dirname(binDir)} was kept for inspection.`);
          }
        },
      },
    },
    target,
    env,
    log,
  );
}

function buildYamlHost(target: string, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<void> {
  return buildGoModule(
    {
      what: `${YAML_LANGUAGE_HOST} ${PINNED_YAML_VERSION}`,
      steps: "YAML host ",
      moduleDir: yamlModuleDir(),
      packages: [YAML_HOST_PACKAGE],
      compiling: "the YAML language host",
      ldflags: `-X ${YAML_VERSION_SYMBOL}=v${PINNED_YAML_VERSION}`,
      version: PINNED_YAML_VERSION,
      duration: "a minute or a few",
      install: (minimumGo) => `Put Pulumi's ${YAML_LANGUAGE_HOST} next to \`pulumi\` or on PATH, or install Go >= ${minimumGo} with access to the Go module proxy to build it.`,
    },
    target,
    env,
    log,
  );
}

/** A Go program pinned by a module of its own under tools/ and built into the cache like the engine. */
export interface PinnedGoTool {
  /** Name in progress lines and errors, e.g. `versitygw`. */
  name: string;
  /** The pinned release, without `v`; part of the cache key (the module's go.mod pins the same one). */
  version: string;
  /** Directory of the module (go.mod, go.sum, tools.go) that pins it. */
  moduleDir: string;
  /** Go package of its main. */
  goPackage: string;
  /** File name of the built binary, and the cache entry's prefix. */
  binary: string;
  /** Extra `-ldflags` (e.g. `-X` version symbols), after `-s -w`. */
  ldflags?: string;
}

/** Cache key of a {@link PinnedGoTool}: binary, version, platform and a digest of its module's files. */
export function pinnedGoToolCacheKey(tool: PinnedGoTool): string {
  const hash = createHash("sha256");
  for (const file of ["go.mod", "go.sum", "tools.go"]) hash.update(fs.readFileSync(path.join(tool.moduleDir, file)));
  return `${tool.binary}-v${tool.version}-${process.platform}-${process.arch}-${hash.digest("hex").slice(0, 12)}`;
}

/**
 * The cached binary of a {@link PinnedGoTool}, built on first use the way the engine and the YAML
 * host are: a cache entry of its own beside them (`<binary>-v<version>-<platform>-<arch>-<hash>/bin/`),
 * the same cross-process lock, `GOTOOLCHAIN=local`, `-mod=readonly`, `CGO_ENABLED=0`, the
 * committed go.sum, and progress lines. Throws a {@link ToolchainError} naming what is missing.
 */
export async function resolvePinnedGoTool(tool: PinnedGoTool, options: Pick<ResolveOptions, "log" | "env" | "cacheDir"> = {}): Promise<string> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const dir = path.join(options.cacheDir ?? defaultCacheRoot(env), pinnedGoToolCacheKey(tool));
  const binary = path.join(dir, "bin", tool.binary);
  const complete = () => fs.existsSync(path.join(dir, ".complete")) && fs.existsSync(binary);
  if (complete()) return binary;
  await withLock(`${dir}.lock`, log, async () => {
    if (!complete()) await buildPinnedGoTool(tool, dir, env, log);
  }, tool.name);
  return binary;
}

function buildPinnedGoTool(tool: PinnedGoTool, target: string, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<void> {
  return buildGoModule(
    {
      what: `${tool.name} ${tool.version}`,
      steps: `${tool.name} `,
      moduleDir: tool.moduleDir,
      packages: [tool.goPackage],
      compiling: tool.name,
      ...(tool.ldflags ? { ldflags: tool.ldflags } : {}),
      binary: tool.binary,
      version: tool.version,
      duration: "a minute or a few",
      install: (minimumGo) => `Install Go >= ${minimumGo} with access to the Go module proxy.`,
    },
    target,
    env,
    log,
  );
}

function buildLanghosts(target: string, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<void> {
  return buildGoModule(
    {
      what: `${GO_LANGUAGE_HOST} and ${PYTHON_LANGUAGE_HOST} of Pulumi ${PINNED_PULUMI_VERSION}`,
      steps: "language hosts ",
      moduleDir: langhostsModuleDir(),
      packages: [GO_HOST_PACKAGE, PYTHON_HOST_PACKAGE, DOTNET_GENERATOR_PACKAGE],
      compiling: "the Go and Python language hosts and the C# generator",
      ldflags: `-X ${VERSION_SYMBOL}=v${PINNED_PULUMI_VERSION}`,
      version: PINNED_PULUMI_VERSION,
      duration: "seconds to a minute",
      install: (minimumGo) =>
        `Put Pulumi's ${GO_LANGUAGE_HOST} and ${PYTHON_LANGUAGE_HOST} next to \`pulumi\` or on PATH, or install Go >= ${minimumGo} with access to the Go module proxy to build them.`,
      finish: {
        words: `copying ${PYTHON_EXEC}`,
        // The Python host runs programs through this script of sdk/v3 (python/cmd/); it is taken
        // from the module the build just verified against go.sum.
        run: async (binDir, goEnv) => {
          const { stdout } = await execFileAsync("go", ["mod", "download", "-json", "github.com/pulumi/pulumi/sdk/v3"], { cwd: langhostsModuleDir(), env: goEnv, timeout: 300_000 });
          const sdkDir = (JSON.parse(stdout) as { Dir?: string }).Dir;
          if (!sdkDir) throw new ToolchainError("`go mod download` did not report where github.com/pulumi/pulumi/sdk/v3 is.");
          fs.copyFileSync(path.join(sdkDir, "python", "cmd", PYTHON_EXEC), path.join(binDir, PYTHON_EXEC));
          fs.chmodSync(path.join(binDir, PYTHON_EXEC), 0o755);
        },
      },
    },
    target,
    env,
    log,
  );
}

/** Directories the toolchain needs first on PATH: `pulumi`'s, then the YAML, Go and Python hosts' when those are elsewhere. */
export function toolchainPathDirs(toolchain: PulumiToolchain): string[] {
  const dirs = [toolchain.binDir];
  for (const host of [toolchain.yamlLanguageHost, toolchain.goLanguageHost, toolchain.pythonLanguageHost]) {
    const dir = host && path.dirname(host);
    if (dir && !dirs.includes(dir)) dirs.push(dir);
  }
  return dirs;
}

/** Environment for running the CLI offline: the toolchain first on PATH, no update checks, no plugin downloads (unless `base` turns them on). */
export function pulumiEnvironment(toolchain: PulumiToolchain, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return {
    ...base,
    PATH: [...toolchainPathDirs(toolchain), base.PATH ?? ""].join(path.delimiter),
    PULUMI_SKIP_UPDATE_CHECK: "true",
    // Off unless `base` says otherwise (the release rehearsal lets the engine fetch the plugin).
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: base.PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION ?? "true",
    PULUMI_SKIP_CONFIRMATIONS: "true",
  };
}

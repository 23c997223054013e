import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { findOnPath, linkBeside } from "./executables";
import { buildGoModule, minimumGoVersion, moduleCacheKey, newerOnProxy, withLock } from "./go-build";
import { builtLanguageHosts, installedLanguageHosts, languageHostDirs, newestEngineLanguageHosts, type LanguageHosts } from "./language-hosts";
import { ToolchainError } from "./toolchain-error";
import { ENGINE_VERSION_SYMBOL, NEWEST_PULUMI_VERSION, PINNED_PULUMI_VERSION, compareVersions, parseVersion } from "./versions";

export { linkBeside } from "./executables";
export {
  DOTNET_GENERATOR,
  GO_LANGUAGE_HOST,
  JAVA_LANGUAGE_HOST,
  NEWEST_YAML_VERSION,
  PINNED_JAVA_VERSION,
  PINNED_YAML_VERSION,
  PYTHON_EXEC,
  PYTHON_LANGUAGE_HOST,
  YAML_LANGUAGE_HOST,
  findYamlLanguageHost,
  javaHostCacheKey,
  javaModuleDir,
  langhostsCacheKey,
  langhostsModuleDir,
  linkYamlLanguageHost,
  newestYamlHostCacheKey,
  newestYamlModuleDir,
  yamlHostCacheKey,
  yamlModuleDir,
} from "./language-hosts";
export type { LanguageHosts } from "./language-hosts";
export { ToolchainError } from "./toolchain-error";
export { NEWEST_PULUMI_VERSION, PINNED_PULUMI_VERSION, compareVersions, parseVersion } from "./versions";

const execFileAsync = promisify(execFile);

/** Oldest CLI accepted from the machine: dynamic providers get `configure` from 3.139 on. */
export const MINIMUM_PULUMI_VERSION = "3.139.0";

/** Where a resolved `pulumi` came from. */
export type ToolchainSource = "env" | "path" | "cache" | "build";

/** A working Pulumi CLI with its Node.js language host, dynamic-provider plugin and the other languages' hosts it has. */
export interface PulumiToolchain extends LanguageHosts {
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

/** The Go module whose releases are Pulumi's: the newest CLI pins one of them. */
const ENGINE_MODULE = "github.com/pulumi/pulumi/pkg/v3";
const ENGINE_PACKAGE = `${ENGINE_MODULE}/cmd/pulumi`;
const LANGUAGE_HOST_PACKAGE = "github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3";
/** The Node.js language host and the dynamic-provider plugin: the pinned engine's entry holds them next to `pulumi`. */
const NODE_BINARIES = ["pulumi-language-nodejs", "pulumi-resource-pulumi-nodejs"] as const;
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
  return path.resolve(__dirname, "..", "go", "pulumi");
}

/** Directory holding the Go module that pins the newest CLI (a test tool: not in the package). */
export function newestEngineModuleDir(): string {
  return path.resolve(__dirname, "..", "go", "pulumi-newest");
}

/** Oldest Go that builds the pinned engine: the `go` line of toolchain/go/pulumi/go.mod, read from there. */
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

/** Cache key of the newest CLI: its version, the platform and a digest of toolchain/go/pulumi-newest's files, apart from the pinned engine's. */
export function newestEngineCacheKey(moduleDir = newestEngineModuleDir()): string {
  return moduleCacheKey("pulumi", NEWEST_PULUMI_VERSION, moduleDir, ["go.mod", "go.sum", "tools.go"]);
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

/** A Pulumi CLI built from a pinned module of toolchain/go/ into a cache entry of its own. */
interface EngineBuild {
  version: string;
  moduleDir: () => string;
  /** The entry's directory name under the cache root. */
  key: () => string;
  /** Go packages of the mains to build. */
  packages: string[];
  /** What the compile step says it compiles. */
  compiling: string;
  /** What `bin/` holds when the entry is complete. */
  binaries: readonly string[];
  /** The last step's words, and what it writes into `bin/` before the CLI's version is checked. */
  finishing: string;
  extra?: (binDir: string) => void;
  /** The error's advice when Go is missing or too old. */
  install: (minimumGo: string) => string;
}

/** The pinned engine: the CLI, the Node.js language host and the dynamic-provider plugin. */
const PINNED_ENGINE: EngineBuild = {
  version: PINNED_PULUMI_VERSION,
  moduleDir: engineModuleDir,
  key: () => engineCacheKey(),
  packages: [ENGINE_PACKAGE, LANGUAGE_HOST_PACKAGE],
  compiling: "the engine and the Node.js language host",
  binaries: ["pulumi", ...NODE_BINARIES],
  finishing: "installing the dynamic-provider plugin and checking the CLI",
  extra: (binDir) => fs.writeFileSync(path.join(binDir, "pulumi-resource-pulumi-nodejs"), DYNAMIC_PROVIDER_SHIM, { mode: 0o755 }),
  install: (minimumGo) =>
    `No Pulumi CLI >= ${MINIMUM_PULUMI_VERSION} was found (set PULUMI_CLI or put \`pulumi\` on PATH), so the engine must be built from Pulumi's Go modules: ` +
    `install a Pulumi CLI >= ${MINIMUM_PULUMI_VERSION}, or Go >= ${minimumGo} with access to the Go module proxy.`,
};

/** The newest CLI, alone: its language hosts are other entries' ({@link resolveNewestPulumiToolchain}). */
const NEWEST_ENGINE: EngineBuild = {
  version: NEWEST_PULUMI_VERSION,
  moduleDir: newestEngineModuleDir,
  key: () => newestEngineCacheKey(),
  packages: [ENGINE_PACKAGE],
  compiling: "the engine",
  binaries: ["pulumi"],
  finishing: "checking the CLI",
  install: (minimumGo) =>
    `The newest Pulumi CLI (${NEWEST_PULUMI_VERSION}), which the compatibility tests run, is built from Pulumi's Go modules: install Go >= ${minimumGo} with access to the Go module proxy.`,
};

function isComplete(dir: string, binaries: readonly string[]): boolean {
  return fs.existsSync(path.join(dir, ".complete")) && binaries.every((b) => fs.existsSync(path.join(dir, "bin", b)));
}

/** The engine's cache entry, built under the cross-process lock when it is not complete; `built` says whether this call built it. */
async function cachedEngine(
  engine: EngineBuild,
  cacheRoot: string,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<{ dir: string; built: boolean }> {
  const dir = path.join(cacheRoot, engine.key());
  let built = false;
  if (isComplete(dir, engine.binaries)) return { dir, built };
  await withLock(
    `${dir}.lock`,
    log,
    async () => {
      if (isComplete(dir, engine.binaries)) return;
      await buildEngine(engine, dir, env, log);
      built = true;
    },
    `Pulumi ${engine.version}`,
  );
  return { dir, built };
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
    if (!version)
      throw new ToolchainError(
        `PULUMI_CLI=${env.PULUMI_CLI} does not run \`pulumi version\`. Point it at a Pulumi CLI >= ${MINIMUM_PULUMI_VERSION}, or unset it to use the built engine.`,
      );
    if (compareVersions(version, MINIMUM_PULUMI_VERSION) < 0) {
      throw new ToolchainError(
        `PULUMI_CLI=${env.PULUMI_CLI} is Pulumi ${version}; dynamic-provider configuration needs >= ${MINIMUM_PULUMI_VERSION}. Upgrade it, or unset PULUMI_CLI to use the built engine.`,
      );
    }
    const cacheRoot = options.cacheDir ?? defaultCacheRoot(env);
    return withInstalledLanguageHosts(withAnalyzer({ pulumi, binDir: path.dirname(pulumi), version, source: "env" }), cacheRoot, env, log);
  }

  const cacheRoot = options.cacheDir ?? defaultCacheRoot(env);

  if (!options.ignoreInstalled) {
    const onPath = findOnPath("pulumi", env);
    if (onPath && !onPath.startsWith(cacheRoot)) {
      const version = await versionOf(onPath);
      if (version && compareVersions(version, MINIMUM_PULUMI_VERSION) >= 0) {
        return withInstalledLanguageHosts(withAnalyzer({ pulumi: onPath, binDir: path.dirname(onPath), version, source: "path" }), cacheRoot, env, log);
      }
      if (version) log(`[toolchain] ignoring ${onPath}: Pulumi ${version} is older than ${MINIMUM_PULUMI_VERSION}`);
    }
  }

  const engine = await cachedEngine(PINNED_ENGINE, cacheRoot, env, log);
  return withBuiltLanguageHosts(fromDir(engine, PINNED_PULUMI_VERSION), cacheRoot, env, log);
}

/**
 * The newest Pulumi CLI the Go module proxy serves ({@link NEWEST_PULUMI_VERSION}), for the
 * compatibility tests: built from toolchain/go/pulumi-newest into a cache entry of its own (never an
 * installed CLI), with the pinned engine's Node.js host and dynamic-provider plugin (built first
 * when missing), pulumi-yaml {@link NEWEST_YAML_VERSION} and the pinned release's Python host
 * linked next to it. `npm run toolchain` keeps to the pinned engine. Logs any newer release the Go
 * module proxy lists ({@link newestOnProxyLine}).
 */
export async function resolveNewestPulumiToolchain(options: Pick<ResolveOptions, "log" | "env" | "cacheDir"> = {}): Promise<PulumiToolchain> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const cacheRoot = options.cacheDir ?? defaultCacheRoot(env);
  // Asked beside the build, and said whether the build succeeds or not.
  const proxy = newerOnProxy(ENGINE_MODULE, NEWEST_PULUMI_VERSION, env);
  try {
    const pinned = await cachedEngine(PINNED_ENGINE, cacheRoot, env, log);
    const toolchain = fromDir(await cachedEngine(NEWEST_ENGINE, cacheRoot, env, log), NEWEST_PULUMI_VERSION);
    for (const name of NODE_BINARIES) linkBeside(toolchain.binDir, path.join(pinned.dir, "bin", name), name);
    return { ...toolchain, ...(await newestEngineLanguageHosts(toolchain.binDir, cacheRoot, env, log)) };
  } finally {
    log(newestOnProxyLine(await proxy));
  }
}

/** What the Go module proxy says of the newest CLI: a newer release to pin, none, or that it could not be asked. */
export function newestOnProxyLine(proxy: Awaited<ReturnType<typeof newerOnProxy>>): string {
  if ("unavailable" in proxy)
    return `[toolchain] could not ask the Go module proxy for a Pulumi newer than ${NEWEST_PULUMI_VERSION}, so going on with it: ${proxy.unavailable}`;
  if (proxy.newer.length === 0) return `[toolchain] Pulumi ${NEWEST_PULUMI_VERSION} is the newest ${ENGINE_MODULE} the Go module proxy serves`;
  return `[toolchain] the Go module proxy serves Pulumi newer than ${NEWEST_PULUMI_VERSION}: ${proxy.newer.join(", ")}; pin ${proxy.newer.at(-1)} in toolchain/go/pulumi-newest (docs/maintainers/toolchain.md)`;
}

function fromDir(entry: { dir: string; built: boolean }, version: string): PulumiToolchain {
  const binDir = path.join(entry.dir, "bin");
  return { pulumi: path.join(binDir, "pulumi"), binDir, version, source: entry.built ? "build" : "cache", policyAnalyzer: installLaunchers(binDir) };
}

/** An installed CLI keeps its own analyzer plugin (Pulumi's releases ship one next to `pulumi`); it is reported when present. */
function withAnalyzer(toolchain: PulumiToolchain): PulumiToolchain {
  const analyzer = path.join(toolchain.binDir, POLICY_ANALYZER);
  return fs.existsSync(analyzer) ? { ...toolchain, policyAnalyzer: analyzer } : toolchain;
}

/** An installed CLI with its own language hosts (next to it, else on PATH), ours from the cache for any it lacks. */
async function withInstalledLanguageHosts(
  toolchain: PulumiToolchain,
  cacheRoot: string,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<PulumiToolchain> {
  return { ...toolchain, ...(await installedLanguageHosts(toolchain.binDir, cacheRoot, env, log)) };
}

/** The cached engine with the cached (or freshly built) language hosts linked in next to `pulumi`. */
async function withBuiltLanguageHosts(
  toolchain: PulumiToolchain,
  cacheRoot: string,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<PulumiToolchain> {
  return { ...toolchain, ...(await builtLanguageHosts(toolchain.binDir, cacheRoot, env, log)) };
}

/** Builds `engine` into `target` with its version stamped (`pulumi version` prints nothing without it), then checks what the CLI reports. */
function buildEngine(engine: EngineBuild, target: string, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<void> {
  return buildGoModule(
    {
      what: `Pulumi ${engine.version}`,
      steps: "",
      moduleDir: engine.moduleDir(),
      packages: engine.packages,
      compiling: engine.compiling,
      ldflags: `-X ${ENGINE_VERSION_SYMBOL}=v${engine.version}`,
      version: engine.version,
      duration: "a few minutes",
      install: engine.install,
      finish: {
        words: engine.finishing,
        run: async (binDir) => {
          engine.extra?.(binDir);
          const version = await versionOf(path.join(binDir, "pulumi"));
          if (version !== engine.version) {
            throw new ToolchainError(
              `The built engine reports version ${version ?? "(none)"}, expected ${engine.version}; the build in ${path.dirname(binDir)} was kept for inspection.`,
            );
          }
        },
      },
    },
    target,
    env,
    log,
  );
}

/** A Go program pinned by a module of its own (toolchain/go/, or tools/ for the test and release tools) and built into the cache like the engine. */
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
  /** The module's files beside go.mod and go.sum that decide the build, relative to it: `tools.go` unless the module holds its main's source. */
  sources?: string[];
}

/** Cache key of a {@link PinnedGoTool}: binary, version, platform and a digest of its module's files. */
export function pinnedGoToolCacheKey(tool: PinnedGoTool): string {
  return moduleCacheKey(tool.binary, tool.version, tool.moduleDir, ["go.mod", "go.sum", ...(tool.sources ?? ["tools.go"])]);
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
  await withLock(
    `${dir}.lock`,
    log,
    async () => {
      if (!complete()) await buildPinnedGoTool(tool, dir, env, log);
    },
    tool.name,
  );
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

/** Directories the toolchain needs first on PATH: `pulumi`'s, then the language hosts' when those are elsewhere. */
export function toolchainPathDirs(toolchain: PulumiToolchain): string[] {
  const dirs = [toolchain.binDir];
  for (const dir of languageHostDirs(toolchain)) if (!dirs.includes(dir)) dirs.push(dir);
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

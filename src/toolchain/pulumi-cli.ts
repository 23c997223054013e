import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { findOnPath } from "./executables";
import { buildGoModule, minimumGoVersion, moduleCacheKey, withLock } from "./go-build";
import { builtLanguageHosts, installedLanguageHosts, languageHostDirs, type LanguageHosts } from "./language-hosts";
import { ToolchainError } from "./toolchain-error";
import { ENGINE_VERSION_SYMBOL, PINNED_PULUMI_VERSION, compareVersions, parseVersion } from "./versions";

export { linkBeside } from "./executables";
export {
  DOTNET_GENERATOR,
  GO_LANGUAGE_HOST,
  JAVA_LANGUAGE_HOST,
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
  yamlHostCacheKey,
  yamlModuleDir,
} from "./language-hosts";
export type { LanguageHosts } from "./language-hosts";
export { ToolchainError } from "./toolchain-error";
export { PINNED_PULUMI_VERSION, compareVersions, parseVersion } from "./versions";

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

const ENGINE_PACKAGE = "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi";
const LANGUAGE_HOST_PACKAGE = "github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3";
const BINARIES = ["pulumi", "pulumi-language-nodejs", "pulumi-resource-pulumi-nodejs"] as const;
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
    return withInstalledLanguageHosts(withAnalyzer({ pulumi, binDir: path.dirname(pulumi), version, source: "env" }), cacheRoot, env, log);
  }

  const cacheRoot = options.cacheDir ?? defaultCacheRoot(env);
  const cached = path.join(cacheRoot, engineCacheKey());

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

  if (isComplete(cached)) return withBuiltLanguageHosts(fromDir(cached, "cache"), cacheRoot, env, log);

  let built = false;
  await withLock(`${cached}.lock`, log, async () => {
    if (isComplete(cached)) return;
    await buildEngine(cached, env, log);
    built = true;
  });
  return withBuiltLanguageHosts(fromDir(cached, built ? "build" : "cache"), cacheRoot, env, log);
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

/** An installed CLI with its own language hosts (next to it, else on PATH), ours from the cache for any it lacks. */
async function withInstalledLanguageHosts(toolchain: PulumiToolchain, cacheRoot: string, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<PulumiToolchain> {
  return { ...toolchain, ...(await installedLanguageHosts(toolchain.binDir, cacheRoot, env, log)) };
}

/** The cached engine with the cached (or freshly built) language hosts linked in next to `pulumi`. */
async function withBuiltLanguageHosts(toolchain: PulumiToolchain, cacheRoot: string, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<PulumiToolchain> {
  return { ...toolchain, ...(await builtLanguageHosts(toolchain.binDir, cacheRoot, env, log)) };
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
      ldflags: `-X ${ENGINE_VERSION_SYMBOL}=v${PINNED_PULUMI_VERSION}`,
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
  return moduleCacheKey(tool.binary, tool.version, tool.moduleDir, ["go.mod", "go.sum", "tools.go"]);
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

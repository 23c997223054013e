/**
 * The language hosts beside the engine: for an installed CLI its own (next to it, else on PATH),
 * otherwise ours, each built from a pinned module of toolchain/go/ into a cache entry of its own and
 * hard-linked next to the cached engine's `pulumi`. Not having one only stops that language.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { findOnPath, linkBeside } from "./executables";
import { buildGoModule, moduleCacheKey, withLock } from "./go-build";
import { ToolchainError } from "./toolchain-error";
import { ENGINE_VERSION_SYMBOL, PINNED_PULUMI_VERSION } from "./versions";

const execFileAsync = promisify(execFile);

/** Pulumi YAML language host release the toolchain builds when none is installed; toolchain/go/pulumi-yaml/go.mod pins the same one. */
export const PINNED_YAML_VERSION = "1.19.1";

/**
 * pulumi-yaml release whose host runs beside the newest CLI; toolchain/go/pulumi-yaml-newest/go.mod pins
 * the same one. 1.19.1 reads a program's config from RunRequest.configPropertyMap, which the engine
 * no longer sends from 3.207.0 on (docs/maintainers/toolchain.md, "The newest Pulumi CLI").
 */
export const NEWEST_YAML_VERSION = "1.25.0";

/** File name of the language host the engine starts for `runtime: yaml` programs. */
export const YAML_LANGUAGE_HOST = "pulumi-language-yaml";

/** File names of the Go and Python language hosts the engine starts for `runtime: go` / `runtime: python` programs and `pulumi package gen-sdk --language go|python`. */
export const GO_LANGUAGE_HOST = "pulumi-language-go";
export const PYTHON_LANGUAGE_HOST = "pulumi-language-python";
/** The Python script the Python host runs programs with (`python/cmd/` of sdk/v3). */
export const PYTHON_EXEC = "pulumi-language-python-exec";
/** The stand-in for pulumi-language-dotnet's code generator, built from the engine's pkg/v3 (toolchain/go/pulumi-langhosts/gen-dotnet). */
export const DOTNET_GENERATOR = "gen-dotnet";

/** pulumi-java release whose Java language host the toolchain builds when none is installed; toolchain/go/pulumi-java/go.mod pins the same one. */
export const PINNED_JAVA_VERSION = "1.12.0";

/** File name of the language host the engine starts for `runtime: java` programs and `pulumi package gen-sdk --language java`. */
export const JAVA_LANGUAGE_HOST = "pulumi-language-java";

/** The language hosts a toolchain found or built, each absent when there is none. */
export interface LanguageHosts {
  /** The `pulumi-language-yaml` language host for `runtime: yaml` programs, when one was found or built; its directory is on {@link pulumiEnvironment}'s PATH. */
  yamlLanguageHost?: string;
  /** The `pulumi-language-go` language host (`runtime: go`, Go SDK generation), when one was found or built; its directory is on {@link pulumiEnvironment}'s PATH. */
  goLanguageHost?: string;
  /** The `pulumi-language-python` language host (`runtime: python`, Python SDK generation), when one was found or built, with `pulumi-language-python-exec` beside it. */
  pythonLanguageHost?: string;
  /** `gen-dotnet <schema> <out> [version]`: writes a C# SDK with the engine release's codegen (pulumi-language-dotnet is not built here), when built. */
  dotnetGenerator?: string;
  /** The `pulumi-language-java` language host (`runtime: java`, Java SDK generation), when one was found or built; its directory is on {@link pulumiEnvironment}'s PATH. */
  javaLanguageHost?: string;
}

const YAML_HOST_PACKAGE = "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml";
const YAML_VERSION_SYMBOL = "github.com/pulumi/pulumi-yaml/pkg/version.Version";
const GO_HOST_PACKAGE = "github.com/pulumi/pulumi/sdk/go/pulumi-language-go/v3";
const PYTHON_HOST_PACKAGE = "github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3";
const DOTNET_GENERATOR_PACKAGE = "./gen-dotnet";
const JAVA_HOST_PACKAGE = "github.com/pulumi/pulumi-java/pkg/cmd/pulumi-language-java";
const JAVA_VERSION_SYMBOL = "github.com/pulumi/pulumi-java/pkg/version.Version";
const LANGHOST_BINARIES = [GO_LANGUAGE_HOST, PYTHON_LANGUAGE_HOST, PYTHON_EXEC, DOTNET_GENERATOR] as const;

/** Directory holding the Go module that pins the YAML language host (shipped with the package). */
export function yamlModuleDir(): string {
  return path.resolve(__dirname, "..", "go", "pulumi-yaml");
}

/** Directory holding the Go module that pins the YAML language host of the newest CLI (a test tool, not shipped). */
export function newestYamlModuleDir(): string {
  return path.resolve(__dirname, "..", "go", "pulumi-yaml-newest");
}

/** Directory holding the Go module that pins the Go and Python language hosts and the C# generator (shipped with the package). */
export function langhostsModuleDir(): string {
  return path.resolve(__dirname, "..", "go", "pulumi-langhosts");
}

/** Directory holding the Go module that pins the Java language host (shipped with the package). */
export function javaModuleDir(): string {
  return path.resolve(__dirname, "..", "go", "pulumi-java");
}

/**
 * Cache key of the YAML language host, a cache entry of its own beside the engine's: its pinned
 * version, the platform and a digest of toolchain/go/pulumi-yaml's files. Changing that module rebuilds
 * only the host; the engine's key (and build) stays as it is.
 */
export function yamlHostCacheKey(moduleDir = yamlModuleDir()): string {
  return moduleCacheKey(YAML_LANGUAGE_HOST, PINNED_YAML_VERSION, moduleDir, ["go.mod", "go.sum", "tools.go"]);
}

/** Cache key of the newest CLI's YAML language host: like {@link yamlHostCacheKey}, from its own version and module. */
export function newestYamlHostCacheKey(moduleDir = newestYamlModuleDir()): string {
  return moduleCacheKey(YAML_LANGUAGE_HOST, NEWEST_YAML_VERSION, moduleDir, ["go.mod", "go.sum", "tools.go"]);
}

/**
 * Cache key of the Go and Python language hosts and the C# generator, a cache entry of its own like
 * the YAML host's: the engine release they come with, the platform and a digest of
 * toolchain/go/pulumi-langhosts's files. Changing that module rebuilds only these; the engine's key stays.
 */
export function langhostsCacheKey(moduleDir = langhostsModuleDir()): string {
  return moduleCacheKey("pulumi-langhosts", PINNED_PULUMI_VERSION, moduleDir, ["go.mod", "go.sum", "tools.go", path.join("gen-dotnet", "main.go")]);
}

/**
 * Cache key of the Java language host, a cache entry of its own like the YAML host's: its pinned
 * pulumi-java release, the platform and a digest of toolchain/go/pulumi-java's files.
 */
export function javaHostCacheKey(moduleDir = javaModuleDir()): string {
  return moduleCacheKey(JAVA_LANGUAGE_HOST, PINNED_JAVA_VERSION, moduleDir, ["go.mod", "go.sum", "tools.go"]);
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

type Log = (line: string) => void;

/** A cache entry of language hosts built from one pinned module on first use. */
interface HostEntry {
  /** The entry's directory name under the cache root. */
  key: () => string;
  /** What `bin/` holds when the entry is complete. */
  binaries: readonly string[];
  /** What another process's build is building, for the lock's waiting line. */
  building: string;
  /** The progress line's start when the entry cannot be built: what is missing and what will not run. */
  missing: string;
  build: (target: string, env: NodeJS.ProcessEnv, log: Log) => Promise<void>;
}

/**
 * The entry's cached `bin/` directory, built on first use. Not having it only stops its language,
 * so a failure (no Go, no module proxy) is reported as a progress line and undefined is returned.
 */
async function entryOrWarn(entry: HostEntry, cacheRoot: string, env: NodeJS.ProcessEnv, log: Log): Promise<string | undefined> {
  const dir = path.join(cacheRoot, entry.key());
  const binDir = path.join(dir, "bin");
  const complete = () => fs.existsSync(path.join(dir, ".complete")) && entry.binaries.every((b) => fs.existsSync(path.join(binDir, b)));
  if (complete()) return binDir;
  try {
    await withLock(
      `${dir}.lock`,
      log,
      async () => {
        if (!complete()) await entry.build(dir, env, log);
      },
      entry.building,
    );
    return binDir;
  } catch (err) {
    log(`[toolchain] ${entry.missing}: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

/** What differs between the language hosts that one pinned Go module each builds (YAML, Java). */
interface SingleHost {
  binary: string;
  /** The language's name in messages. */
  language: string;
  /** What cannot run without the host. */
  unavailable: string;
  version: string;
  versionSymbol: string;
  moduleDir(): string;
  hostPackage: string;
  key: () => string;
}

/** The cache entry of a {@link SingleHost}. */
function singleHostEntry(host: SingleHost): HostEntry {
  return {
    key: host.key,
    binaries: [host.binary],
    building: `the ${host.language} language host ${host.version}`,
    missing: `no ${host.binary}, so ${host.unavailable} will not run`,
    build: (target, env, log) =>
      buildGoModule(
        {
          what: `${host.binary} ${host.version}`,
          steps: `${host.language} host `,
          moduleDir: host.moduleDir(),
          packages: [host.hostPackage],
          compiling: `the ${host.language} language host`,
          ldflags: `-X ${host.versionSymbol}=v${host.version}`,
          version: host.version,
          duration: "a minute or a few",
          install: (minimumGo) =>
            `Put Pulumi's ${host.binary} next to \`pulumi\` or on PATH, or install Go >= ${minimumGo} with access to the Go module proxy to build it.`,
        },
        target,
        env,
        log,
      ),
  };
}

const YAML_ENTRY = singleHostEntry({
  binary: YAML_LANGUAGE_HOST,
  language: "YAML",
  unavailable: "Pulumi YAML programs (runtime: yaml)",
  version: PINNED_YAML_VERSION,
  versionSymbol: YAML_VERSION_SYMBOL,
  moduleDir: yamlModuleDir,
  hostPackage: YAML_HOST_PACKAGE,
  key: yamlHostCacheKey,
});

const NEWEST_YAML_ENTRY = singleHostEntry({
  binary: YAML_LANGUAGE_HOST,
  language: "YAML",
  unavailable: "Pulumi YAML programs (runtime: yaml) with the newest CLI",
  version: NEWEST_YAML_VERSION,
  versionSymbol: YAML_VERSION_SYMBOL,
  moduleDir: newestYamlModuleDir,
  hostPackage: YAML_HOST_PACKAGE,
  key: newestYamlHostCacheKey,
});

const LANGHOSTS_ENTRY: HostEntry = {
  key: () => langhostsCacheKey(),
  binaries: LANGHOST_BINARIES,
  building: "the Go and Python language hosts",
  missing: `no ${GO_LANGUAGE_HOST}/${PYTHON_LANGUAGE_HOST}, so Go and Python programs and SDK generation will not run`,
  build: (target, env, log) =>
    buildGoModule(
      {
        what: `${GO_LANGUAGE_HOST} and ${PYTHON_LANGUAGE_HOST} of Pulumi ${PINNED_PULUMI_VERSION}`,
        steps: "language hosts ",
        moduleDir: langhostsModuleDir(),
        packages: [GO_HOST_PACKAGE, PYTHON_HOST_PACKAGE, DOTNET_GENERATOR_PACKAGE],
        compiling: "the Go and Python language hosts and the C# generator",
        ldflags: `-X ${ENGINE_VERSION_SYMBOL}=v${PINNED_PULUMI_VERSION}`,
        version: PINNED_PULUMI_VERSION,
        duration: "seconds to a minute",
        install: (minimumGo) =>
          `Put Pulumi's ${GO_LANGUAGE_HOST} and ${PYTHON_LANGUAGE_HOST} next to \`pulumi\` or on PATH, or install Go >= ${minimumGo} with access to the Go module proxy to build them.`,
        finish: { words: `copying ${PYTHON_EXEC}`, run: copyPythonExec },
      },
      target,
      env,
      log,
    ),
};

const JAVA_ENTRY = singleHostEntry({
  binary: JAVA_LANGUAGE_HOST,
  language: "Java",
  unavailable: "Java programs (runtime: java) and Java SDK generation",
  version: PINNED_JAVA_VERSION,
  versionSymbol: JAVA_VERSION_SYMBOL,
  moduleDir: javaModuleDir,
  hostPackage: JAVA_HOST_PACKAGE,
  key: javaHostCacheKey,
});

/**
 * The Python host runs programs through this script of sdk/v3 (python/cmd/); it is taken from the
 * module the build just verified against go.sum.
 */
async function copyPythonExec(binDir: string, goEnv: NodeJS.ProcessEnv): Promise<void> {
  const { stdout } = await execFileAsync("go", ["mod", "download", "-json", "github.com/pulumi/pulumi/sdk/v3"], {
    cwd: langhostsModuleDir(),
    env: goEnv,
    timeout: 300_000,
  });
  const sdkDir = (JSON.parse(stdout) as { Dir?: string }).Dir;
  if (!sdkDir) throw new ToolchainError("`go mod download` did not report where github.com/pulumi/pulumi/sdk/v3 is.");
  fs.copyFileSync(path.join(sdkDir, "python", "cmd", PYTHON_EXEC), path.join(binDir, PYTHON_EXEC));
  fs.chmodSync(path.join(binDir, PYTHON_EXEC), 0o755);
}

/**
 * The language hosts for an installed CLI: its own YAML, Go, Python and Java hosts (next to it, else
 * on PATH; Pulumi's releases ship them), ours built into the cache only when one is missing. The C#
 * generator is always ours.
 */
export async function installedLanguageHosts(pulumiBinDir: string, cacheRoot: string, env: NodeJS.ProcessEnv, log: Log): Promise<LanguageHosts> {
  const hosts: LanguageHosts = {};
  const yamlDir = () => entryOrWarn(YAML_ENTRY, cacheRoot, env, log);
  const yaml = findYamlLanguageHost(pulumiBinDir, env) ?? (await yamlDir().then((dir) => dir && path.join(dir, YAML_LANGUAGE_HOST)));
  if (yaml) hosts.yamlLanguageHost = yaml;

  const lookup = { PATH: [pulumiBinDir, env.PATH ?? ""].join(path.delimiter) };
  const go = findOnPath(GO_LANGUAGE_HOST, lookup);
  const python = findOnPath(PYTHON_LANGUAGE_HOST, lookup);
  const pythonExec = python && fs.existsSync(path.join(path.dirname(python), PYTHON_EXEC));
  const built = await entryOrWarn(LANGHOSTS_ENTRY, cacheRoot, env, log);
  const ours = (name: string) => (built ? path.join(built, name) : undefined);
  const goHost = go ?? ours(GO_LANGUAGE_HOST);
  const pythonHost = python && pythonExec ? python : ours(PYTHON_LANGUAGE_HOST);
  const dotnet = ours(DOTNET_GENERATOR);
  if (goHost) hosts.goLanguageHost = goHost;
  if (pythonHost) hosts.pythonLanguageHost = pythonHost;
  if (dotnet) hosts.dotnetGenerator = dotnet;
  const java =
    findOnPath(JAVA_LANGUAGE_HOST, lookup) ?? (await entryOrWarn(JAVA_ENTRY, cacheRoot, env, log).then((dir) => dir && path.join(dir, JAVA_LANGUAGE_HOST)));
  if (java) hosts.javaLanguageHost = java;
  return hosts;
}

/**
 * The language hosts for the cached engine: the cached (or freshly built) YAML, Go, Python and Java
 * hosts, and the python-exec script, linked in next to `pulumi`; the C# generator stays in its cache entry.
 */
export async function builtLanguageHosts(engineBinDir: string, cacheRoot: string, env: NodeJS.ProcessEnv, log: Log): Promise<LanguageHosts> {
  const hosts: LanguageHosts = {};
  const yaml = await entryOrWarn(YAML_ENTRY, cacheRoot, env, log);
  if (yaml) hosts.yamlLanguageHost = linkYamlLanguageHost(engineBinDir, path.join(yaml, YAML_LANGUAGE_HOST));
  const built = await entryOrWarn(LANGHOSTS_ENTRY, cacheRoot, env, log);
  if (built) {
    linkBeside(engineBinDir, path.join(built, PYTHON_EXEC), PYTHON_EXEC);
    hosts.goLanguageHost = linkBeside(engineBinDir, path.join(built, GO_LANGUAGE_HOST), GO_LANGUAGE_HOST);
    hosts.pythonLanguageHost = linkBeside(engineBinDir, path.join(built, PYTHON_LANGUAGE_HOST), PYTHON_LANGUAGE_HOST);
    hosts.dotnetGenerator = path.join(built, DOTNET_GENERATOR);
  }
  const java = await entryOrWarn(JAVA_ENTRY, cacheRoot, env, log);
  if (java) hosts.javaLanguageHost = linkBeside(engineBinDir, path.join(java, JAVA_LANGUAGE_HOST), JAVA_LANGUAGE_HOST);
  return hosts;
}

/**
 * The language hosts of the newest CLI (toolchain/go/pulumi-newest), linked next to its `pulumi`: the YAML
 * host of toolchain/go/pulumi-yaml-newest, and the Python host with python-exec of the pinned release's
 * entry (no newer build of that host module is served). Only what the compatibility tests run.
 */
export async function newestEngineLanguageHosts(engineBinDir: string, cacheRoot: string, env: NodeJS.ProcessEnv, log: Log): Promise<LanguageHosts> {
  const hosts: LanguageHosts = {};
  const yaml = await entryOrWarn(NEWEST_YAML_ENTRY, cacheRoot, env, log);
  if (yaml) hosts.yamlLanguageHost = linkYamlLanguageHost(engineBinDir, path.join(yaml, YAML_LANGUAGE_HOST));
  const built = await entryOrWarn(LANGHOSTS_ENTRY, cacheRoot, env, log);
  if (built) {
    linkBeside(engineBinDir, path.join(built, PYTHON_EXEC), PYTHON_EXEC);
    hosts.pythonLanguageHost = linkBeside(engineBinDir, path.join(built, PYTHON_LANGUAGE_HOST), PYTHON_LANGUAGE_HOST);
  }
  return hosts;
}

/** Directories of the hosts, for the PATH the CLI gets: the YAML, Go, Python and Java hosts' (duplicates included; the caller keeps the first). */
export function languageHostDirs(hosts: LanguageHosts): string[] {
  return [hosts.yamlLanguageHost, hosts.goLanguageHost, hosts.pythonLanguageHost, hosts.javaLanguageHost]
    .filter((host): host is string => !!host)
    .map((host) => path.dirname(host));
}

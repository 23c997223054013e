/**
 * The package as a user gets it: `npm pack` of the repository, installed with npm into a fresh
 * app beside the app's own `@pulumi/pulumi`, and the reference server started from that install.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { stopProcessTree, trackProcessTree } from "../../../toolchain/src/process-group";
import { defaultCacheRoot } from "../../../toolchain/src/pulumi-cli";
import { repoRoot } from "../../support/pulumi-workspace";

/** The newest `@pulumi/pulumi` the package is tested with; bumped by hand, so CI never changes under us. */
export const NEWEST_SDK = "3.270.0";

/** The oldest `@pulumi/pulumi` the peer range allows: the range's floor, read from package.json. */
export const OLDEST_SDK = peerFloor();

function peerFloor(): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { peerDependencies: Record<string, string> };
  const range = manifest.peerDependencies["@pulumi/pulumi"] ?? "";
  const floor = /^\^(\d+\.\d+\.\d+)$/.exec(range)?.[1];
  if (!floor) throw new Error(`peerDependencies["@pulumi/pulumi"] is ${JSON.stringify(range)}, expected ^X.Y.Z`);
  return floor;
}

/** npm's cache for these tests, under the project's cache root, so later runs install offline. */
export const NPM_CACHE = path.join(defaultCacheRoot(), "npm");

/** Output of one npm run. */
export interface NpmResult {
  /** What npm printed on stdout. */
  stdout: string;
  /** What npm printed on stderr. */
  stderr: string;
}

/** This process's environment without the variables an enclosing `npm test` adds (npm_*, INIT_CWD), as a user's shell has it. */
export function userEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key) && key !== "INIT_CWD") env[key] = value;
  return env;
}

/** Runs `npm ARGS` in `cwd` as from a user's shell (none of the enclosing `npm test`'s variables, `extra` added), with the test cache. */
export function npm(args: string[], cwd: string, extra: NodeJS.ProcessEnv = {}): Promise<NpmResult> {
  const env = { ...userEnvironment(), ...extra };
  env.npm_config_cache = NPM_CACHE;
  env.npm_config_update_notifier = "false";
  return new Promise((resolve, reject) => {
    execFile("npm", args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`npm ${args.join(" ")} failed in ${cwd}: ${error.message}\n${stdout}\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}

/** A packed tarball and the files npm put in it. */
export interface PackedTarball {
  /** Absolute path of the .tgz. */
  file: string;
  /** Paths inside the package, as `npm pack --json` lists them. */
  files: string[];
  /** Bytes of the .tgz, as `npm pack --json` reports them. */
  size: number;
  /** Bytes of its files unpacked, as `npm pack --json` reports them. */
  unpackedSize: number;
}

/** Folders of the checkout that a pack never reads: installed, built or scratch output. */
const NOT_COPIED = new Set(["node_modules", ".git", "dist", "demo/dist", "bench/dist", "bench/tmp", "bench/peers/node_modules"]);

/**
 * A copy of the checkout in a new temp dir named `prefix…`, without what a build or a pack makes
 * afresh, and with a symlink to the checkout's node_modules: where a pack or a release may build
 * dist/ while other tests use the checkout's own. The caller removes it.
 */
export function copyCheckout(prefix: string): string {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.cpSync(repoRoot, copy, {
    recursive: true,
    filter: (source) => !NOT_COPIED.has(path.relative(repoRoot, source).split(path.sep).join("/")),
  });
  fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(copy, "node_modules"), "dir");
  return copy;
}

/** The `@types/node` the repository builds with, so an app type-checks with the same Node typings. */
function typesNodeRange(): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
  return manifest.devDependencies["@types/node"] ?? "*";
}

/**
 * Writes the app's package.json (its own `@pulumi/pulumi` at `sdk`, pulumi-analytics from
 * `tarball`) and runs `npm install` (with `env` added), preferring the cache. Returns how long the install took, in ms.
 */
export async function installApp(appDir: string, sdk: string, tarball: string, env: NodeJS.ProcessEnv = {}): Promise<number> {
  const manifest = {
    name: "packed-app",
    private: true,
    dependencies: { "@pulumi/pulumi": sdk, "pulumi-analytics": `file:${tarball}` },
    devDependencies: { "@types/node": typesNodeRange() },
  };
  fs.writeFileSync(path.join(appDir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  const started = Date.now();
  await npm(["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], appDir, env);
  return Date.now() - started;
}

/** Swaps the app's pulumi-analytics for `tarball` (and its SDK for `sdk`), as `npm install <tarball>` does. */
export async function upgradeApp(appDir: string, sdk: string, tarball: string): Promise<void> {
  await npm(["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", `@pulumi/pulumi@${sdk}`, tarball], appDir);
}

/** Every `@pulumi/pulumi` under `dir`'s node_modules, nested copies included: the path and version of each. */
export function sdkCopies(dir: string): string[] {
  const found: string[] = [];
  const walk = (modules: string) => {
    if (!fs.existsSync(modules)) return;
    for (const entry of fs.readdirSync(modules, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name === ".bin") continue;
      const packages = entry.name.startsWith("@") ? fs.readdirSync(path.join(modules, entry.name)).map((n) => path.join(entry.name, n)) : [entry.name];
      for (const name of packages) {
        const packageDir = path.join(modules, name);
        const manifestFile = path.join(packageDir, "package.json");
        if (fs.existsSync(manifestFile)) {
          const manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8")) as { name?: string; version?: string };
          if (manifest.name === "@pulumi/pulumi") found.push(`${path.relative(dir, packageDir)}@${manifest.version}`);
        }
        walk(path.join(packageDir, "node_modules"));
      }
    }
  };
  walk(path.join(dir, "node_modules"));
  return found;
}

/**
 * Type-checks the app with the repository's TypeScript against the installed .d.ts and compiles it
 * into bin/: tsconfig.json, the program and the CI script that imports the package's subpaths, in
 * one program (each tsc run reads @pulumi/pulumi's declarations anew, about 10 s of CPU); or
 * another tsconfig of the app, one at a time.
 */
export async function compileApp(appDir: string, projects: readonly string[] = ["tsconfig.json"]): Promise<void> {
  const tsc = path.join(repoRoot, "node_modules", "typescript", "bin", "tsc");
  for (const project of projects) {
    await new Promise<void>((resolve, reject) => {
      execFile(process.execPath, [tsc, "-p", path.join(appDir, project)], { cwd: appDir }, (error, stdout, stderr) => {
        if (error) reject(new Error(`tsc -p ${project} failed on the app:\n${stdout}${stderr}`));
        else resolve();
      });
    });
  }
}

/** A reference server started from an app's installed package, as `npx analytics-reference-server` does. */
export interface InstalledServer {
  /** Base URL it listens on. */
  url: string;
  /** The API key it printed for the bootstrap user. */
  apiKey: string;
  /** Stops it (SIGTERM) and waits for the exit. */
  stop(): Promise<void>;
}

/** Starts `node_modules/.bin/analytics-reference-server` of `appDir` on a free port with one bootstrap user (`env` added to this process's). */
export function startInstalledServer(appDir: string, extraArgs: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<InstalledServer> {
  const bin = path.join(appDir, "node_modules", ".bin", "analytics-reference-server");
  const child: ChildProcess = trackProcessTree(
    spawn(bin, ["--port", "0", "--inspection", "--bootstrap-user", "ci", ...extraArgs], {
      cwd: appDir,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    }),
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`the reference server did not start:\n${output}`)), 30_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      void stopProcessTree(child);
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      const apiKey = /API key for ci \(shown once\): (\S+)/.exec(output)?.[1];
      if (!url || !apiKey) return;
      clearTimeout(timer);
      resolve({
        url,
        apiKey,
        stop: async () => {
          await stopProcessTree(child);
          await exited;
        },
      });
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("error", fail);
    child.once("exit", (code) => fail(new Error(`the reference server exited with ${code}:\n${output}`)));
  });
}

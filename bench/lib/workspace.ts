import * as fs from "node:fs";
import * as path from "node:path";
import { runPulumi, type PulumiRunResult, type PulumiToolchain } from "@pulumi-analytics/toolchain";
import { sampledRun, type Sampled } from "./proc";

/** Repository root: two folders up from bench/lib, three from its build in bench/dist/lib. */
export const repoRoot = path.resolve(__dirname, path.basename(path.dirname(__dirname)) === "dist" ? "../../.." : "../..");

/** Global flags runPulumi puts before every command, repeated in the report's command lines. */
export const GLOBAL_FLAGS = ["--non-interactive", "--color=never"];

/** A CLI run timed and sampled from /proc (the provider: see {@link BenchWorkspace.create}'s `providerMarker`). */
export type TimedRun = PulumiRunResult & Sampled;

/** A state backend other than the workspace's own `file://` directory: PULUMI_BACKEND_URL (an `s3://` bucket and prefix, say) and the environment the CLI needs to reach it. */
export interface Backend {
  url: string;
  env: NodeJS.ProcessEnv;
}

/**
 * One Pulumi project for the bench: a copy of a fixture program with this repository's
 * node_modules linked in (and the package itself as `pulumi-analytics`), a `file://` backend (or
 * the one given) and a PULUMI_HOME, all in a temp dir under bench/tmp/.
 */
export class BenchWorkspace {
  private constructor(
    readonly toolchain: PulumiToolchain,
    readonly root: string,
    readonly programDir: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly providerMarker: string,
  ) {}

  /**
   * Copies `fixture` into a fresh temp dir; `env` is added to every command. The provider whose
   * peak RSS each run reports is any process in the program's directory whose command line holds
   * `providerMarker` (the SDK's dynamic provider by default). With `backend`, the stacks live there
   * instead of in the workspace's `file://` directory.
   */
  static create(toolchain: PulumiToolchain, fixture: string, env: NodeJS.ProcessEnv, providerMarker = "dynamic-provider", backend?: Backend): BenchWorkspace {
    const { root, programDir } = copyFixture(fixture);
    linkNodeModules(programDir);
    fs.mkdirSync(path.join(root, "backend"));
    fs.mkdirSync(path.join(root, "home"));
    return new BenchWorkspace(
      toolchain,
      root,
      programDir,
      {
        ...envWithout("PULUMI_", "ANALYTICS_"),
        PULUMI_HOME: path.join(root, "home"),
        PULUMI_BACKEND_URL: backend?.url ?? `file://${path.join(root, "backend")}`,
        PULUMI_CONFIG_PASSPHRASE: "pulumi-analytics bench passphrase",
        ...backend?.env,
        ...env,
      },
      providerMarker,
    );
  }

  /** Creates stack `stack` with `bench:count` = `count`, written straight into its config file (one CLI call fewer). */
  async initStack(stack: string, count: number): Promise<void> {
    await this.pulumi(["stack", "init", stack]);
    fs.appendFileSync(path.join(this.programDir, `Pulumi.${stack}.yaml`), `config:\n  bench:count: "${count}"\n`);
  }

  /**
   * Runs `pulumi ARGS`, timing it and sampling the provider's peak RSS and CPU; throws unless it
   * exits 0 or once it has run `timeoutMs` (15 min by default; see {@link upTimeLimitMs}).
   */
  async pulumi(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = COMMAND_TIME_LIMIT_MS): Promise<TimedRun> {
    const run = await this.attempt(args, env, timeoutMs);
    if (run.code !== 0) {
      throw new Error(`pulumi ${args.join(" ")} exited ${run.code}\n--- stdout\n${run.stdout.slice(-4000)}\n--- stderr\n${run.stderr.slice(-4000)}`);
    }
    return run;
  }

  /** {@link pulumi}, but resolving with whatever exit code the CLI gives. */
  attempt(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = COMMAND_TIME_LIMIT_MS): Promise<TimedRun> {
    return sampledRun(this.programDir, this.providerMarker, "pulumi", () =>
      runPulumi(this.toolchain, args, { cwd: this.programDir, env: { ...this.env, ...env }, timeoutMs }),
    );
  }

  /** Removes the temp dir. */
  dispose(): void {
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}

/** A fresh temp dir under bench/tmp/, named after `fixture`, holding a copy of it as `program/`. */
export function copyFixture(fixture: string): { root: string; programDir: string } {
  const tmp = path.join(repoRoot, "bench", "tmp");
  fs.mkdirSync(tmp, { recursive: true });
  const root = fs.mkdtempSync(path.join(tmp, `${path.basename(fixture)}-`));
  const programDir = path.join(root, "program");
  fs.cpSync(fixture, programDir, { recursive: true });
  return { root, programDir };
}

/** This process's environment without the variables whose names start with one of `prefixes`. */
export function envWithout(...prefixes: string[]): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !prefixes.some((prefix) => name.startsWith(prefix))));
}

/** How long any one `pulumi` command may run, unless told otherwise. */
const COMMAND_TIME_LIMIT_MS = 900_000;

/**
 * How long a `pulumi up` of `count` resources may run: checkpoints rewrite a state that grows with
 * every resource, so an up slows with the square of its size (2,000 DataSources passed 15 minutes
 * on a two-core machine).
 */
export function upTimeLimitMs(count: number): number {
  return COMMAND_TIME_LIMIT_MS + count * count;
}

/** A node_modules of symlinks to the repository's dependencies, plus the repository itself as `pulumi-analytics`. */
function linkNodeModules(programDir: string): void {
  const source = path.join(repoRoot, "node_modules");
  const target = path.join(programDir, "node_modules");
  fs.mkdirSync(target);
  for (const entry of fs.readdirSync(source)) {
    if (entry === ".bin" || entry === "pulumi-analytics") continue;
    fs.symlinkSync(path.join(source, entry), path.join(target, entry), "dir");
  }
  fs.symlinkSync(repoRoot, path.join(target, "pulumi-analytics"), "dir");
}

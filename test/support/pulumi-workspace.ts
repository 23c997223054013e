import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { signalProcessTree, trackProcessTree } from "../../toolchain/src/process-group";
import { pulumiEnvironment, type PulumiToolchain } from "../../toolchain/src/pulumi-cli";
import { runPulumi } from "../../toolchain/src/run-pulumi";
import type { StackSecrets } from "./kms-server";
import { copyStackTemplate, stackTemplate } from "./stack-template";

/** Repository root, for node_modules and fixtures. */
export const repoRoot = path.resolve(__dirname, "..", "..");

/** Passphrase of the secrets provider of the test stacks that keep a passphrase (see {@link WorkspaceOptions.passphrase}). */
export const TEST_PASSPHRASE = "pulumi-analytics test passphrase";

/**
 * `pulumi up` for a test whose subject comes after it (a state to read, a replace, a destroy): no
 * preview first, which would run the program and start every provider once more. A test about the
 * up itself runs `up --yes`, preview included, as a pipeline does.
 */
export const SETUP_UP = ["up", "--yes", "--skip-preview"];

/** Output of one CLI run. */
export interface CommandResult {
  /** Exit code (0 on success). */
  code: number;
  /** Everything the CLI printed on stdout. */
  stdout: string;
  /** Everything the CLI printed on stderr. */
  stderr: string;
}

/** Options for {@link PulumiWorkspace.create}. */
export interface WorkspaceOptions {
  /** Directory copied in as the Pulumi program. */
  programDir: string;
  /** Stack name; defaults to `test`. */
  stack?: string;
  /** Extra environment for every command. */
  env?: NodeJS.ProcessEnv;
  /** Install this package as `pulumi-analytics` in the program's node_modules, as a user would have it. */
  linkPackage?: boolean;
  /** The program gets no node_modules here: the test installs its own, as a user's app has. */
  ownNodeModules?: boolean;
  /** The program is not a Node.js one (`runtime: yaml`): it gets no node_modules at all. */
  withoutNodeModules?: boolean;
  /**
   * The stack's secrets under the passphrase provider, as a user's first stack on a `file://`
   * backend has them, instead of the tier's KMS key (test/support/kms-server.ts). A workspace
   * whose `env` sets any `PULUMI_*` variable always has them.
   */
  passphrase?: boolean;
}

/**
 * The arguments of one `pulumi config set-all`: `plain` values in plaintext, `secret` ones
 * encrypted (see {@link PulumiWorkspace.setConfig}).
 */
export function configSetAllArgs(plain: Record<string, string>, secret: Record<string, string> = {}): string[] {
  const pairs = (flag: string, values: Record<string, string>) => Object.entries(values).flatMap(([key, value]) => [flag, `${key}=${value}`]);
  return ["config", "set-all", ...pairs("--plaintext", plain), ...pairs("--secret", secret)];
}

/**
 * A throwaway Pulumi project: its own copy of the program, a `file://` backend, a PULUMI_HOME and
 * a stack, all in one temp dir. Every command's output is kept for later secret audits.
 */
export class PulumiWorkspace {
  /** Output of every command run so far, in order. */
  readonly transcript: CommandResult[] = [];
  /** Aborted by {@link dispose}: stops any {@link pulumi} run still going (a test that timed out). */
  private readonly disposed = new AbortController();
  /** Pids of the {@link start}ed runs still going. */
  private readonly started = new Set<number>();

  private constructor(
    readonly toolchain: PulumiToolchain,
    readonly root: string,
    readonly programDir: string,
    readonly backendDir: string,
    readonly stack: string,
    /** The environment every command runs with: its home, backend, stack and secrets provider's settings. */
    readonly env: NodeJS.ProcessEnv,
  ) {}

  static async create(toolchain: PulumiToolchain, options: WorkspaceOptions): Promise<PulumiWorkspace> {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-analytics-"));
    const programDir = path.join(root, "program");
    const backendDir = path.join(root, "backend");
    const home = path.join(root, "home");
    fs.cpSync(options.programDir, programDir, { recursive: true });
    if (!options.ownNodeModules && !options.withoutNodeModules) linkNodeModules(programDir, options.linkPackage ?? false);
    fs.mkdirSync(backendDir);
    fs.mkdirSync(home);
    const base = { ...process.env };
    for (const key of Object.keys(base)) {
      if (key.startsWith("PULUMI_") || key.startsWith("ANALYTICS_")) delete base[key];
    }
    const env: NodeJS.ProcessEnv = {
      ...base,
      PULUMI_HOME: home,
      PULUMI_BACKEND_URL: `file://${backendDir}`,
      PULUMI_CONFIG_PASSPHRASE: TEST_PASSPHRASE,
      ...options.env,
    };
    const stack = options.stack ?? "test";
    // The default backend: the stack comes from a template (test/support/stack-template.ts), its
    // secrets under the tier's KMS key unless the test keeps the passphrase, and PULUMI_STACK
    // selects it for every command (no `pulumi stack select` run).
    if (!Object.keys(options.env ?? {}).some((key) => key.startsWith("PULUMI_"))) {
      const secrets = options.passphrase ? undefined : await tierStackSecrets();
      const workspace = new PulumiWorkspace(toolchain, root, programDir, backendDir, stack, { ...env, ...kmsEnvironment(secrets), PULUMI_STACK: stack });
      copyStackTemplate(await stackTemplate(toolchain, options.programDir, stack, workspace.env, secrets?.secretsProvider), backendDir, programDir);
      return workspace;
    }
    const workspace = new PulumiWorkspace(toolchain, root, programDir, backendDir, stack, env);
    await workspace.pulumi(["stack", "init", stack]);
    return workspace;
  }

  /** Runs `pulumi ARGS` in the program directory; throws with the output unless it exits 0 or `allowFailure` is set. */
  async pulumi(args: string[], options: { allowFailure?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<CommandResult> {
    const result = await runPulumi(this.toolchain, args, { cwd: this.programDir, env: { ...this.env, ...options.env }, signal: this.disposed.signal });
    this.transcript.push(result);
    if (result.code !== 0 && !options.allowFailure) {
      throw new Error(`pulumi ${args.join(" ")} exited ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);
    }
    return result;
  }

  /**
   * Sets the stack's config in one `pulumi config set-all`: `plain` values in plaintext, `secret`
   * ones encrypted. One run instead of one per value: each run of the CLI costs a few tenths of a
   * second of CPU, and on a passphrase stack derives the passphrase's key, about 0.6 s more.
   */
  async setConfig(plain: Record<string, string>, secret: Record<string, string> = {}): Promise<CommandResult> {
    return this.pulumi(configSetAllArgs(plain, secret));
  }

  /**
   * Starts `pulumi ARGS` in its own process group and returns at once, so a test can interrupt
   * it: `signal` reaches the CLI and every process it started (the engine puts the language host
   * and each plugin in a group of its own, so a signal to the CLI's group alone would orphan
   * them). The result joins the transcript.
   */
  start(args: string[], options: { env?: NodeJS.ProcessEnv } = {}): RunningCommand {
    const child = spawn(this.toolchain.pulumi, ["--non-interactive", "--color=never", ...args], {
      cwd: this.programDir,
      env: pulumiEnvironment(this.toolchain, { ...this.env, ...options.env }),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    trackProcessTree(child);
    const pid = child.pid;
    if (pid !== undefined) this.started.add(pid);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const result = new Promise<CommandResult>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (code, signal) => {
        if (pid !== undefined) this.started.delete(pid);
        const done = { code: code ?? (signal ? 128 : 1), stdout, stderr };
        this.transcript.push(done);
        resolve(done);
      });
    });
    return {
      result,
      output: () => `${stdout}\n${stderr}`,
      signal: (name) => {
        if (pid !== undefined) signalProcessTree(pid, name);
      },
      pid,
    };
  }

  /** `pulumi stack export`, parsed. */
  async exportStack(): Promise<StackExport> {
    const { stdout } = await this.pulumi(["stack", "export"]);
    return JSON.parse(stdout) as StackExport;
  }

  /** Every file below the backend directory (current state, history, backups, locks), as text. */
  backendFiles(): Map<string, string> {
    const files = new Map<string, string>();
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else files.set(path.relative(this.backendDir, full), fs.readFileSync(full, "utf8"));
      }
    };
    walk(this.backendDir);
    return files;
  }

  /** Stops any run still going (SIGKILL for started ones, SIGTERM then SIGKILL for the others), then removes the temp dir. */
  dispose(): void {
    for (const pid of this.started) signalProcessTree(pid, "SIGKILL");
    this.disposed.abort();
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}

/**
 * The tier's KMS key (test/global-setup.ts provides it to the workers). Vitest is imported here
 * alone, when a worker creates a workspace: vitest.config.ts imports this module's neighbours, and
 * a config may not import vitest itself.
 */
async function tierStackSecrets(): Promise<StackSecrets> {
  const { inject } = await import("vitest");
  return inject("stackSecrets");
}

/** The AWS SDK's settings for a stack under `secrets`' KMS key, with the machine's own AWS profile left out; none for a passphrase. */
function kmsEnvironment(secrets: StackSecrets | undefined): NodeJS.ProcessEnv {
  return secrets ? { ...secrets.env, AWS_PROFILE: undefined, AWS_DEFAULT_PROFILE: undefined } : {};
}

/** A CLI run started with {@link PulumiWorkspace.start}. */
export interface RunningCommand {
  /** Settles when the CLI exits, with everything it printed. */
  result: Promise<CommandResult>;
  /** What it printed so far (stdout, then stderr). */
  output(): string;
  /** Sends a signal to the CLI and every process it started (engine, language host, providers), whatever their group. */
  signal(name: NodeJS.Signals): void;
  /** The CLI's own pid, for a signal to it alone (as a terminal's Ctrl-C reaches it, and not the plugins). */
  pid: number | undefined;
}

/**
 * Gives a program the repository's dependencies: a symlink to node_modules, or, with the package
 * itself linked in as `pulumi-analytics`, a node_modules of symlinks to each dependency.
 */
export function linkNodeModules(programDir: string, withPackage: boolean): void {
  const source = path.join(repoRoot, "node_modules");
  const target = path.join(programDir, "node_modules");
  if (!withPackage) {
    fs.symlinkSync(source, target, "dir");
    return;
  }
  fs.mkdirSync(target);
  for (const entry of fs.readdirSync(source)) {
    if (entry === ".bin" || entry === "pulumi-analytics") continue;
    fs.symlinkSync(path.join(source, entry), path.join(target, entry), "dir");
  }
  fs.symlinkSync(repoRoot, path.join(target, "pulumi-analytics"), "dir");
}

/** The parts of `pulumi stack export` the tests read. */
export interface StackExport {
  version: number;
  deployment: {
    resources?: ExportedResource[];
  };
}

/** One resource of a stack export. */
export interface ExportedResource {
  urn: string;
  type: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

/** Resources of a given type in an export. */
export function resourcesOfType(exported: StackExport, type: string): ExportedResource[] {
  return (exported.deployment.resources ?? []).filter((r) => r.type === type);
}

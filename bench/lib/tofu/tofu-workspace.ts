/**
 * One OpenTofu working directory for scenario T: a copy of bench/fixtures/tofu, a CLI config file
 * naming a filesystem mirror that holds the pinned terraform-provider-restapi (so `tofu init`
 * installs it offline), the local state backend, and every command timed with the provider
 * processes' CPU and peak RSS sampled from /proc.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { stopProcessTree, trackProcessTree } from "@pulumi-analytics/toolchain";
import { sampledRun } from "../proc";
import { RESTAPI_VERSION } from "./tofu-tools";
import { copyFixture, envWithout, repoRoot, type TimedRun } from "../workspace";

/** The provider's address in the fixture's `required_providers` (OpenTofu's default registry). */
const PROVIDER_ADDRESS = "registry.opentofu.org/mastercard/restapi";

/** Text in the command line of every provider process OpenTofu starts. */
export const RESTAPI_MARKER = "terraform-provider-restapi";

/** An OpenTofu working directory of its own under bench/tmp/. */
export class TofuWorkspace {
  private constructor(
    readonly tofu: string,
    readonly root: string,
    readonly programDir: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /**
   * Copies bench/fixtures/tofu into a fresh temp dir with a filesystem mirror holding `restapi` (the
   * built provider binary); `vars` become `TF_VAR_*` (the fixture's variables, secrets included).
   */
  static create(tofu: string, restapi: string, vars: Record<string, string>): TofuWorkspace {
    const { root, programDir } = copyFixture(path.join(repoRoot, "bench", "fixtures", "tofu"));
    const platform = `${process.platform}_${process.arch === "x64" ? "amd64" : process.arch}`;
    const mirrorDir = path.join(root, "mirror");
    const providerDir = path.join(mirrorDir, PROVIDER_ADDRESS, RESTAPI_VERSION, platform);
    fs.mkdirSync(providerDir, { recursive: true });
    fs.copyFileSync(restapi, path.join(providerDir, `terraform-provider-restapi_v${RESTAPI_VERSION}`));
    fs.chmodSync(path.join(providerDir, `terraform-provider-restapi_v${RESTAPI_VERSION}`), 0o755);
    const cliConfig = path.join(root, "tofu.tfrc");
    fs.writeFileSync(
      cliConfig,
      `provider_installation {\n  filesystem_mirror {\n    path    = ${JSON.stringify(mirrorDir)}\n    include = ["${PROVIDER_ADDRESS}"]\n  }\n}\n`,
    );
    const env: NodeJS.ProcessEnv = {
      ...envWithout("TF_", "PULUMI_", "ANALYTICS_"),
      HOME: root,
      TF_CLI_CONFIG_FILE: cliConfig,
      TF_IN_AUTOMATION: "1",
      TF_INPUT: "0",
      ...Object.fromEntries(Object.entries(vars).map(([name, value]) => [`TF_VAR_${name}`, value])),
    };
    return new TofuWorkspace(tofu, root, programDir, env);
  }

  /** The local backend's state file. */
  get stateFile(): string {
    return path.join(this.programDir, "terraform.tfstate");
  }

  /**
   * Runs `tofu ARGS -no-color` in the working directory, in a process group of its own (tracked, so
   * the bench never leaves it behind), timed, with the provider processes sampled; resolves with any exit code.
   */
  run(args: string[], timeoutMs = 900_000): Promise<TimedRun> {
    const start = (): ChildProcess =>
      trackProcessTree(spawn(this.tofu, [...args, "-no-color"], { cwd: this.programDir, env: this.env, stdio: ["ignore", "pipe", "pipe"], detached: true }));
    return sampledRun(this.programDir, RESTAPI_MARKER, "tofu", () => collect(start(), timeoutMs));
  }

  /** Removes the temp dir. */
  dispose(): void {
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}

/** Output and exit code of a started process; stops its group after `timeoutMs`. */
function collect(child: ChildProcess, timeoutMs: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      stderr += `\n[bench] stopped after ${timeoutMs} ms\n`;
      void stopProcessTree(child);
    }, timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
  });
}

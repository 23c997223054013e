import { spawn } from "node:child_process";
import { pulumiEnvironment, type PulumiToolchain } from "./pulumi-cli";

/** Output of one `pulumi` run. */
export interface PulumiRunResult {
  /** Exit code (0 on success). */
  code: number;
  /** Everything printed on stdout. */
  stdout: string;
  /** Everything printed on stderr. */
  stderr: string;
}

/** Options of {@link runPulumi}. */
export interface RunPulumiOptions {
  /** Project directory. */
  cwd: string;
  /** Environment (PATH gets the toolchain prepended; update checks and plugin downloads are turned off). */
  env?: NodeJS.ProcessEnv;
  /** Also stream the output to this process's stdout/stderr as it arrives. */
  echo?: boolean;
  /** Kill the CLI after this many ms (default 10 minutes). */
  timeoutMs?: number;
}

/** Runs `pulumi --non-interactive --color=never ARGS` and collects its output. */
export function runPulumi(toolchain: PulumiToolchain, args: string[], options: RunPulumiOptions): Promise<PulumiRunResult> {
  return new Promise((resolve, reject) => {
    // Global flags first, so a `--` in ARGS (for values starting with a dash) stays the last flag.
    const child = spawn(toolchain.pulumi, ["--non-interactive", "--color=never", ...args], {
      cwd: options.cwd,
      env: pulumiEnvironment(toolchain, options.env ?? process.env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (options.echo) process.stdout.write(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      if (options.echo) process.stderr.write(chunk);
    });
    const timer = setTimeout(() => child.kill("SIGTERM"), options.timeoutMs ?? 600_000);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
  });
}

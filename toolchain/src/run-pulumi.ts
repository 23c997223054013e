import { spawn } from "node:child_process";
import { pulumiEnvironment, type PulumiToolchain } from "./pulumi-cli";
import { stopProcessTree, trackProcessTree } from "./process-group";

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
  /** Stop the CLI, its language host and its plugins after this many ms (default 10 minutes). */
  timeoutMs?: number;
  /** Stops the CLI, its language host and its plugins when aborted; the run then resolves as a failure. */
  signal?: AbortSignal;
}

/**
 * Runs `pulumi --non-interactive --color=never ARGS` and collects its output. The CLI runs in a
 * process group of its own; a timeout or an abort stops it with every process it started (SIGTERM,
 * SIGKILL after 5 s) and resolves once they are gone.
 */
export function runPulumi(toolchain: PulumiToolchain, args: string[], options: RunPulumiOptions): Promise<PulumiRunResult> {
  return new Promise((resolve, reject) => {
    // Global flags first, so a `--` in ARGS (for values starting with a dash) stays the last flag.
    const child = spawn(toolchain.pulumi, ["--non-interactive", "--color=never", ...args], {
      cwd: options.cwd,
      env: pulumiEnvironment(toolchain, options.env ?? process.env),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    trackProcessTree(child);
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
    let stopping: Promise<void> | undefined;
    const stop = (why: string): void => {
      if (stopping) return;
      stderr += `\n[runPulumi] ${why}: stopping pulumi and the processes it started\n`;
      stopping = stopProcessTree(child);
    };
    const timeoutMs = options.timeoutMs ?? 600_000;
    const timer = setTimeout(() => stop(`no exit after ${timeoutMs} ms`), timeoutMs);
    const onAbort = (): void => stop("aborted");
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
    const settle = (): void => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    };
    child.on("error", (error) => {
      settle();
      reject(error);
    });
    child.on("close", (code, signal) => {
      settle();
      // After a timeout or an abort, resolve once the whole tree is gone, not just the CLI.
      void (stopping ?? Promise.resolve()).then(() => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
    });
  });
}

import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { peerVersion } from "./peers";

/**
 * The machine and the tool versions of a run: the CPU model and logical CPUs, total memory in MiB,
 * `linux 6.8.0 x64`, the Node.js version, the Pulumi CLI the scenario drove (when it drove one),
 * the installed @pulumi/pulumi, and Prism in bench/peers (the server scenario's peer).
 */
export interface SystemInfo {
  cpuModel: string;
  cpus: number;
  totalMemMiB: number;
  os: string;
  node: string;
  pulumiCli?: string | undefined;
  pulumiSdk: string;
  prism?: string;
}

/** Machine facts and versions. */
export function systemInfo(repoRoot: string, pulumiCli: string | undefined): SystemInfo {
  const cpus = os.cpus();
  const pulumiSdk = (JSON.parse(fs.readFileSync(path.join(repoRoot, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8")) as { version: string })
    .version;
  return {
    cpuModel: cpus[0]?.model.trim() ?? "unknown",
    cpus: cpus.length,
    totalMemMiB: Math.round(os.totalmem() / 2 ** 20),
    os: `${os.platform()} ${os.release()} ${os.arch()}`,
    node: process.version,
    pulumiCli,
    pulumiSdk,
    prism: peerVersion("@stoplight/prism-cli") ?? "not installed",
  };
}

/** The commit measured (short), marked when the work tree differs from it. */
export function commitOf(repoRoot: string): string {
  const git = (...args: string[]): string => execFileSync("git", args, { cwd: repoRoot, encoding: "utf8" }).trim();
  try {
    return `${git("rev-parse", "--short=12", "HEAD")}${git("status", "--porcelain", "--untracked-files=no") ? " (with uncommitted changes)" : ""}`;
  } catch {
    return "unknown (no git checkout)";
  }
}

/** 1, 5 and 15 minute load averages, rounded. */
export function loadAverage(): [number, number, number] {
  const [a = 0, b = 0, c = 0] = os.loadavg();
  return [a, b, c].map((v) => Math.round(v * 100) / 100) as [number, number, number];
}

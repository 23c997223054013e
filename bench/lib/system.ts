import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { peerVersion } from "./peers";

/** Where the machine and the tool versions stood during a run. */
export interface SystemInfo {
  /** CPU model, as os.cpus() reports it, and logical CPUs. */
  cpuModel: string;
  cpus: number;
  /** Total memory in MiB. */
  totalMemMiB: number;
  /** `linux 6.8.0 x64`. */
  os: string;
  /** process.version. */
  node: string;
  /** `pulumi version` of the CLI the scenario drove, when it drove one. */
  pulumiCli?: string | undefined;
  /** Installed @pulumi/pulumi. */
  pulumiSdk: string;
  /** Prism in bench/peers (the server scenario's peer). */
  prism?: string;
}

/** Machine facts and versions. */
export function systemInfo(repoRoot: string, pulumiCli: string | undefined): SystemInfo {
  const cpus = os.cpus();
  const pulumiSdk = (JSON.parse(fs.readFileSync(path.join(repoRoot, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8")) as { version: string }).version;
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

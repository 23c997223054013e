import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { peerVersion } from "./peers";

/** Where the machine, its load and the tool versions stood during a run. */
export interface SystemInfo {
  /** CPU model, as os.cpus() reports it. */
  cpuModel: string;
  /** Logical CPUs. */
  cpus: number;
  /** Total memory in MiB. */
  totalMemMiB: number;
  /** `linux 6.8.0 x64`. */
  os: string;
  /** process.version. */
  node: string;
  /** `pulumi version` of the CLI the bench drove. */
  pulumiCli: string;
  /** Installed @pulumi/pulumi. */
  pulumiSdk: string;
  /** Installed undici (the client's transport). */
  undici: string;
  /** Installed autocannon (the load generator). */
  autocannon: string;
  /** Prism in bench/peers (the peer of D and S). */
  prism?: string;
  /** Vega in bench/peers (renders the charts). */
  vega?: string;
  /** Vega-Lite in bench/peers (the charts' specifications). */
  vegaLite?: string;
}

/** Version of an installed package, read from its package.json. */
export function installedVersion(repoRoot: string, name: string): string {
  const file = path.join(repoRoot, "node_modules", name, "package.json");
  return (JSON.parse(fs.readFileSync(file, "utf8")) as { version: string }).version;
}

/** Machine facts and versions. */
export function systemInfo(repoRoot: string, pulumiCli: string): SystemInfo {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? "unknown",
    cpus: cpus.length,
    totalMemMiB: Math.round(os.totalmem() / 2 ** 20),
    os: `${os.platform()} ${os.release()} ${os.arch()}`,
    node: process.version,
    pulumiCli,
    pulumiSdk: installedVersion(repoRoot, "@pulumi/pulumi"),
    undici: installedVersion(repoRoot, "undici"),
    autocannon: installedVersion(repoRoot, "autocannon"),
    prism: peerVersion("@stoplight/prism-cli") ?? "not installed",
    vega: peerVersion("vega") ?? "not installed",
    vegaLite: peerVersion("vega-lite") ?? "not installed",
  };
}

/** 1, 5 and 15 minute load averages, rounded. */
export function loadAverage(): [number, number, number] {
  const [a = 0, b = 0, c = 0] = os.loadavg();
  return [a, b, c].map((v) => Math.round(v * 100) / 100) as [number, number, number];
}

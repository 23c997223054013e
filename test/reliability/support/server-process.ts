/**
 * The reference server as its own process (the built bin), so a test can SIGKILL it mid-request
 * and start it again on the same port with the same state file.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import * as path from "node:path";
import { signalProcessTree, stopProcessTree, trackProcessTree } from "../../../toolchain/src/process-group";
import type { FaultSettings, FaultsView, RequestSummary } from "../../../src/reference-server";
import { repoRoot } from "../../support/pulumi-workspace";
import { pollFor } from "./pulumi-runs";

/** A running bin. */
export interface ServerProcess {
  /** Base URL. */
  url: string;
  /** Port (reused by a restart). */
  port: number;
  /** Key minted for the bootstrap user, if one was asked for. */
  apiKey: string | undefined;
  /** Everything the bin printed on stdout (request lines). */
  stdout(): string;
  /** SIGKILL, then wait until the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM (clean shutdown; SIGKILL after 5 s), then wait until the process is gone. */
  stop(): Promise<void>;
}

/** Starts `dist/reference-server/bin.js` with inspection on. `port` 0 picks a free one. */
export async function startServerProcess(options: { port: number; statePath: string; bootstrapUser?: string }): Promise<ServerProcess> {
  const args = [path.join(repoRoot, "dist/reference-server/bin.js"), "--port", String(options.port), "--state", options.statePath, "--inspection"];
  if (options.bootstrapUser !== undefined) args.push("--bootstrap-user", options.bootstrapUser);
  const child: ChildProcessWithoutNullStreams = trackProcessTree(spawn(process.execPath, args, { stdio: "pipe", detached: true }));
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const ready = await pollFor(() => {
    if (child.exitCode !== null) throw new Error(`reference server exited early: ${stderr}`);
    const url = /listening on (http:\/\/127\.0\.0\.1:(\d+))\n/.exec(stdout);
    if (!url || (options.bootstrapUser !== undefined && !/API key for .* \(shown once\): \S+\n/.test(stdout))) return undefined;
    return { url: url[1]!, port: Number(url[2]) };
  }, "the reference server to listen");
  const apiKey = /API key for .* \(shown once\): (\S+)\n/.exec(stdout)?.[1];
  const kill = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) signalProcessTree(child.pid, "SIGKILL");
    await exited;
  };
  return { ...ready, apiKey, stdout: () => stdout, kill, stop: () => stopProcessTree(child) };
}

/** GET an inspection route of a server process. */
export async function inspectJson<T>(url: string, route: string): Promise<T> {
  const res = await fetch(`${url}/_reference/${route}`);
  if (res.status !== 200) throw new Error(`GET /_reference/${route} answered ${res.status}`);
  return ((await res.json()) as { data: T }).data;
}

/** Replaces the fault settings of a server process; returns the injected counts at that very moment. */
export async function setFaults(url: string, settings: FaultSettings): Promise<FaultsView> {
  const res = await fetch(`${url}/_reference/faults`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(settings) });
  if (res.status !== 200) throw new Error(`POST /_reference/faults answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { data: FaultsView }).data;
}

/** Ids of the data sources a server process holds. */
export async function serverDataSourceIds(url: string): Promise<string[]> {
  return (await inspectJson<Array<{ id: string }>>(url, "data-sources")).map((d) => d.id);
}

/** Ids of the organizations a server process holds. */
export async function serverOrganizationIds(url: string): Promise<string[]> {
  return (await inspectJson<Array<{ id: string }>>(url, "organizations")).map((o) => o.id);
}

/** The request summary of a server process. */
export function serverRequests(url: string): Promise<RequestSummary> {
  return inspectJson<RequestSummary>(url, "requests");
}

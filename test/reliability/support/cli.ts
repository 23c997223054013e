/**
 * Real `pulumi` runs for the reliability suite: a workspace on the `many` fixture (one
 * organization, `count` data sources named "Warehouse <i>"), state counts, and the secrets audit.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { PulumiWorkspace, repoRoot, resourcesOfType, type CommandResult } from "../../support/pulumi-workspace";
import type { PulumiToolchain } from "../../../toolchain/src/pulumi-cli";
import { plaintextHits } from "./campaign";

/** Type token of organizations in state. */
export const ORG_TYPE = "pulumi-nodejs:dynamic/analytics:Organization";
/** Type token of data sources in state. */
export const DS_TYPE = "pulumi-nodejs:dynamic/analytics:DataSource";
/** The data sources' password: must never appear in plaintext. */
export const PASSWORD = "reliability-password-7f3e9c21";

/** Options of {@link manyWorkspace}. */
export interface ManyOptions {
  /** Stack config `analytics:baseUrl`. */
  baseUrl: string;
  /** Stack config `analytics:apiKey` (as a secret); unset when omitted. */
  apiKey?: string;
  /** Number of data sources; default 1. */
  count?: number;
  /** Extra environment for every command. */
  env?: NodeJS.ProcessEnv;
}

/** A stack of the `many` fixture, configured. */
export async function manyWorkspace(toolchain: PulumiToolchain, options: ManyOptions): Promise<PulumiWorkspace> {
  const ws = await PulumiWorkspace.create(toolchain, {
    programDir: path.join(repoRoot, "test/fixtures/many"),
    linkPackage: true,
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  await ws.pulumi(["config", "set", "analytics:baseUrl", options.baseUrl]);
  if (options.apiKey !== undefined) await ws.pulumi(["config", "set", "--secret", "analytics:apiKey", options.apiKey]);
  await ws.pulumi(["config", "set", "--secret", "fixture:password", PASSWORD]);
  await ws.pulumi(["config", "set", "fixture:count", String(options.count ?? 1)]);
  return ws;
}

/** Everything a command printed. */
export function output(result: CommandResult): string {
  return `${result.stdout}\n${result.stderr}`;
}

/** Ids of the organizations and data sources in the stack's state. */
export async function stateIds(ws: PulumiWorkspace): Promise<{ orgs: string[]; dataSources: string[] }> {
  const exported = await ws.exportStack();
  const ids = (type: string) => resourcesOfType(exported, type).map((r) => r.id ?? "");
  return { orgs: ids(ORG_TYPE), dataSources: ids(DS_TYPE) };
}

/**
 * The secrets audit (reliability item 10): every file of the backend, every command's output and any
 * extra text (state files, server logs) searched for each secret. Returns where each was found.
 */
export function auditWorkspace(ws: PulumiWorkspace, secrets: readonly string[], extra: ReadonlyArray<{ where: string; text: string }> = []): string[] {
  const haystacks = [...ws.backendFiles().entries()].map(([file, text]) => ({ where: `backend/${file}`, text }));
  ws.transcript.forEach((result, i) => haystacks.push({ where: `command #${i}`, text: output(result) }));
  return plaintextHits([...haystacks, ...extra], secrets);
}

/** A file's text for the audit, or nothing when it does not exist. */
export function fileForAudit(file: string): Array<{ where: string; text: string }> {
  // The state file and the journal beside it.
  return [file, `${file}.journal`].filter((f) => fs.existsSync(f)).map((f) => ({ where: path.basename(f), text: fs.readFileSync(f, "utf8") }));
}

/** Polls `probe` every `everyMs` until it returns a value, at most `attempts` times. */
export async function pollFor<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, attempts = 3000, everyMs = 20): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  throw new Error(`gave up waiting for ${what}`);
}

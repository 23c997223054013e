/**
 * Real `pulumi` runs for the reliability suite: a workspace on the `many` fixture (one
 * organization, `count` data sources named "Warehouse <i>") on either path of the CLI (the
 * TypeScript program on the dynamic providers, or its YAML twin on the native plugin), state
 * counts, and the secrets audit.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PulumiWorkspace, repoRoot, resourcesOfType, type CommandResult } from "../../support/pulumi-workspace";
import { writePluginShim } from "../../support/plugin-shim";
import type { PulumiToolchain } from "../../../toolchain/src/pulumi-cli";
import { plaintextHits, type PATHS } from "./campaign";
import { YAML_PASSWORD_KEY, writeManyYaml } from "./yaml-program";

/** The campaign paths a `pulumi` program takes: the dynamic providers, or the native plugin. */
export type CliPath = Exclude<keyof typeof PATHS, "service">;
/** Both {@link CliPath}s, for `describe.each`. */
export const CLI_PATHS: readonly CliPath[] = ["dynamic", "native"];

/** Type token of organizations in state. */
export const ORG_TYPE = "pulumi-nodejs:dynamic/analytics:Organization";
/** Type token of data sources in state. */
export const DS_TYPE = "pulumi-nodejs:dynamic/analytics:DataSource";
/** The type tokens of each path, as the state and the CLI's output name them. */
export const TYPES: Record<CliPath, { org: string; dataSource: string }> = {
  dynamic: { org: ORG_TYPE, dataSource: DS_TYPE },
  native: { org: "analytics:index:Organization", dataSource: "analytics:index:DataSource" },
};
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
  /** The TypeScript program on the dynamic providers (default), or the YAML one on the native plugin. */
  path?: CliPath;
}

/** A stack of the `many` fixture, configured. */
export async function manyWorkspace(toolchain: PulumiToolchain, options: ManyOptions): Promise<PulumiWorkspace> {
  const env = options.env === undefined ? {} : { env: options.env };
  const ws =
    options.path === "native"
      ? await yamlWorkspace(toolchain, options.count ?? 1, env)
      : await PulumiWorkspace.create(toolchain, { programDir: path.join(repoRoot, "test/fixtures/many"), linkPackage: true, ...env });
  // One command for the whole config: each `pulumi` run costs a second or more on a loaded machine.
  const plain: Record<string, string> = { "analytics:baseUrl": options.baseUrl };
  const secret: Record<string, string> = options.apiKey === undefined ? {} : { "analytics:apiKey": options.apiKey };
  if (options.path === "native") secret[YAML_PASSWORD_KEY] = PASSWORD;
  else {
    secret["fixture:password"] = PASSWORD;
    plain["fixture:count"] = String(options.count ?? 1);
  }
  await ws.setConfig(plain, secret);
  return ws;
}

/** The YAML twin of the fixture, `count` data sources written into the program, the plugin shim beside it. */
async function yamlWorkspace(toolchain: PulumiToolchain, count: number, env: { env?: NodeJS.ProcessEnv }): Promise<PulumiWorkspace> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reliability-yaml-"));
  try {
    const ws = await PulumiWorkspace.create(toolchain, { programDir: writeManyYaml(dir, count), withoutNodeModules: true, ...env });
    writePluginShim(path.join(ws.programDir, "plugin-bin"));
    return ws;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Everything a command printed. */
export function output(result: CommandResult): string {
  return `${result.stdout}\n${result.stderr}`;
}

/** Ids of the organizations and data sources in the stack's state, whichever path's types it holds. */
export async function stateIds(ws: PulumiWorkspace): Promise<{ orgs: string[]; dataSources: string[] }> {
  const exported = await ws.exportStack();
  const ids = (kind: "org" | "dataSource") => CLI_PATHS.flatMap((p) => resourcesOfType(exported, TYPES[p][kind]).map((r) => r.id ?? ""));
  return { orgs: ids("org"), dataSources: ids("dataSource") };
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

/** How a scenario's name starts in the campaign's figures, by path. */
export function cliLabel(cliPath: CliPath): string {
  return cliPath === "native" ? "CLI (YAML, native plugin)" : "CLI";
}

/**
 * What comes before a provider notice (a retry) in the CLI's output, by path: the dynamic providers
 * write `info: …` lines to stderr, which the engine shows as they are; the native plugin sends each
 * notice to the engine's log (the engine hides a plugin's stderr), which shows an info diagnostic
 * with no prefix.
 */
export const NOTICE_PREFIX: Record<CliPath, string> = { dynamic: "info: ", native: "" };

/**
 * The `error:` lines of the CLI's diagnostics, by the heading they are listed under,
 * `<type> (<name>)`: how the output names the resource a failure belongs to.
 */
export function diagnosticErrors(text: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const start = text.lastIndexOf("\nDiagnostics:\n");
  if (start < 0) return found;
  // The section's lines are indented; it ends at the next line that is not (`Resources:`, `Outputs:`).
  const section = /^(?:(?: .*)?\n)*/.exec(text.slice(start + "\nDiagnostics:\n".length))![0];
  for (const block of section.split(/\n(?=  \S)/)) {
    const [heading, ...lines] = block.split("\n");
    const errors = lines.map((line) => line.trim()).filter((line) => line.startsWith("error: "));
    if (errors.length > 0) found.set(heading!.trim().replace(/:$/, ""), errors);
  }
  return found;
}

/**
 * {@link diagnosticErrors} but the stack's own heading when all it says is the engine's summary of
 * a failed update: what failed, by resource. Any other error under the stack stays in.
 */
export function resourceFailures(text: string): Map<string, string[]> {
  const found = diagnosticErrors(text);
  for (const [heading, errors] of found) {
    if (heading.startsWith("pulumi:pulumi:Stack (") && errors.join("\n") === "error: update failed") found.delete(heading);
  }
  return found;
}

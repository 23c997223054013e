/**
 * A stack initialized once per program, CLI and stack name in a test run (one `vitest run`, or
 * every tier of `npm test`: test/support/test-run.js), copied into each workspace after the first.
 * A copy of what `pulumi stack init` wrote (the backend's stack file and the program's
 * `Pulumi.<stack>.yaml` with its secrets provider, salt or encrypted data key), with the stack
 * named by `PULUMI_STACK`, gives the CLI the same stack without a second init: with the passphrase
 * provider an init derives the stack's key (PBKDF2, a million rounds: about 0.8 s of CPU). The
 * first process to need a template makes it under a lock in the run's folder.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { withLock } from "../../toolchain/src/go-build";
import type { PulumiToolchain } from "../../toolchain/src/pulumi-cli";
import { runPulumi } from "../../toolchain/src/run-pulumi";
import { currentRunId, runFolder } from "./test-run.js";

/** What `pulumi stack init` wrote, kept for copying. */
export interface StackTemplate {
  /** The `file://` backend's folder right after the init. */
  backendDir: string;
  /** The program's stack config file after the init (the passphrase's salt in it). */
  stackConfig: string;
}

const templates = new Map<string, Promise<StackTemplate>>();

/** The folder of templates: the test run's (removed with it). */
const root = (): string => path.join(runFolder(currentRunId()), "stack-templates");

/** The files of a template in `dir`. */
const filesOf = (dir: string, stack: string): StackTemplate => ({
  backendDir: path.join(dir, "backend"),
  stackConfig: path.join(dir, "program", `Pulumi.${stack}.yaml`),
});

/** Runs `pulumi stack init STACK` for the program of `programDir` in `dir`, with `env` and `secretsProvider` (the passphrase when none). */
async function initTemplate(
  toolchain: PulumiToolchain,
  programDir: string,
  stack: string,
  env: NodeJS.ProcessEnv,
  secretsProvider: string | undefined,
  dir: string,
): Promise<void> {
  fs.rmSync(dir, { recursive: true, force: true });
  const program = path.join(dir, "program");
  const backendDir = path.join(dir, "backend");
  for (const sub of [program, backendDir, path.join(dir, "home")]) fs.mkdirSync(sub, { recursive: true });
  for (const file of ["Pulumi.yaml", `Pulumi.${stack}.yaml`])
    if (fs.existsSync(path.join(programDir, file))) fs.copyFileSync(path.join(programDir, file), path.join(program, file));
  const own = { ...env, PULUMI_HOME: path.join(dir, "home"), PULUMI_BACKEND_URL: `file://${backendDir}` };
  const args = ["stack", "init", stack, ...(secretsProvider ? ["--secrets-provider", secretsProvider] : [])];
  const result = await runPulumi(toolchain, args, { cwd: program, env: own });
  if (result.code !== 0) throw new Error(`pulumi stack init ${stack} exited ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);
}

/** The template of `key` in the templates' folder, made under a lock unless another process made it. */
async function madeTemplate(
  key: string,
  toolchain: PulumiToolchain,
  programDir: string,
  stack: string,
  env: NodeJS.ProcessEnv,
  secretsProvider: string | undefined,
): Promise<StackTemplate> {
  const dir = path.join(root(), createHash("sha256").update(key).digest("hex").slice(0, 16));
  const complete = path.join(dir, ".complete");
  if (!fs.existsSync(complete)) {
    await withLock(
      `${dir}.lock`,
      () => {},
      async () => {
        if (fs.existsSync(complete)) return;
        await initTemplate(toolchain, programDir, stack, env, secretsProvider, dir);
        fs.writeFileSync(complete, "");
      },
      "a stack template",
    );
  }
  return filesOf(dir, stack);
}

/**
 * The template of stack `stack` of the program in `programDir` on `toolchain`'s CLI, made on first
 * use, its secrets under `secretsProvider` (a KMS key, reached as `env` says) or, when none, under
 * the passphrase in `env`: every workspace of that template uses the same.
 */
export function stackTemplate(
  toolchain: PulumiToolchain,
  programDir: string,
  stack: string,
  env: NodeJS.ProcessEnv,
  secretsProvider?: string,
): Promise<StackTemplate> {
  const secrets = secretsProvider ? [secretsProvider, env.AWS_ENDPOINT_URL_KMS] : [env.PULUMI_CONFIG_PASSPHRASE];
  const key = JSON.stringify([toolchain.pulumi, path.resolve(programDir), stack, ...secrets]);
  let template = templates.get(key);
  if (!template) {
    template = madeTemplate(key, toolchain, programDir, stack, env, secretsProvider);
    templates.set(key, template);
    template.catch(() => templates.delete(key));
  }
  return template;
}

/** Copies `template` into a workspace: its backend folder and its program's folder. */
export function copyStackTemplate(template: StackTemplate, backendDir: string, programDir: string): void {
  fs.cpSync(template.backendDir, backendDir, { recursive: true });
  fs.copyFileSync(template.stackConfig, path.join(programDir, path.basename(template.stackConfig)));
}

/**
 * A stack initialized once per program, CLI and stack name in a test file's process, copied into
 * each workspace after the first. `pulumi stack init` with the passphrase secrets provider derives
 * the stack's key (PBKDF2, a million rounds: about 0.8 s of CPU); a copy of what it wrote (the
 * backend's stack file and the program's `Pulumi.<stack>.yaml` with its salt) and a
 * `pulumi stack select` give the CLI the same stack without it.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { PulumiToolchain } from "../../toolchain/src/pulumi-cli";
import { runPulumi } from "../../toolchain/src/run-pulumi";

/** What `pulumi stack init` wrote, kept for copying. */
export interface StackTemplate {
  /** The `file://` backend's folder right after the init. */
  backendDir: string;
  /** The program's stack config file after the init (the passphrase's salt in it). */
  stackConfig: string;
}

const templates = new Map<string, Promise<StackTemplate>>();
let templatesRoot: string | undefined;

/** This process's folder of templates, removed when it exits. */
function root(): string {
  if (!templatesRoot) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-analytics-stack-templates-"));
    process.once("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
    templatesRoot = dir;
  }
  return templatesRoot;
}

/** Runs `pulumi stack init STACK` for the program of `programDir` in a folder of its own, with `env` (passphrase included). */
async function initTemplate(toolchain: PulumiToolchain, programDir: string, stack: string, env: NodeJS.ProcessEnv): Promise<StackTemplate> {
  const dir = fs.mkdtempSync(path.join(root(), "stack-"));
  const program = path.join(dir, "program");
  const backendDir = path.join(dir, "backend");
  for (const sub of [program, backendDir, path.join(dir, "home")]) fs.mkdirSync(sub);
  const stackFile = `Pulumi.${stack}.yaml`;
  for (const file of ["Pulumi.yaml", stackFile]) if (fs.existsSync(path.join(programDir, file))) fs.copyFileSync(path.join(programDir, file), path.join(program, file));
  const own = { ...env, PULUMI_HOME: path.join(dir, "home"), PULUMI_BACKEND_URL: `file://${backendDir}` };
  const result = await runPulumi(toolchain, ["stack", "init", stack], { cwd: program, env: own });
  if (result.code !== 0) throw new Error(`pulumi stack init ${stack} exited ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);
  return { backendDir, stackConfig: path.join(program, stackFile) };
}

/**
 * The template of stack `stack` of the program in `programDir` on `toolchain`'s CLI, made on first
 * use. `env` must hold the passphrase every workspace of that template uses.
 */
export function stackTemplate(toolchain: PulumiToolchain, programDir: string, stack: string, env: NodeJS.ProcessEnv): Promise<StackTemplate> {
  const key = JSON.stringify([toolchain.pulumi, path.resolve(programDir), stack, env.PULUMI_CONFIG_PASSPHRASE]);
  let template = templates.get(key);
  if (!template) {
    template = initTemplate(toolchain, programDir, stack, env);
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

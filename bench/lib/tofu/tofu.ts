/**
 * Scenario T: what a team without a provider for this API would use instead, OpenTofu with
 * Mastercard's generic REST provider (`restapi_object`, bench/fixtures/tofu), the same provider
 * bridged into Pulumi by Pulumi's Terraform bridge from a YAML program (bench/fixtures/restapi-yaml,
 * as the Pulumi Registry's restapi package offers it), side by side with the
 * native provider plugin from a YAML program and from a TypeScript program on its generated SDK
 * (as the Node.js host runs it by default, type-checking with ts-node), and with this package's
 * dynamic classes. Each side runs once per N against a fresh reference server, on the pinned CLI
 * with a fresh PULUMI_HOME: create everything, a no-change plan/preview, destroy. For each command:
 * wall time, the objects the server gained (duplicates show here), the requests it received by
 * route, and the CPU seconds of the provider processes and of the engine. For each side: state
 * bytes and objects left on the server after destroy.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { PulumiToolchain } from "@pulumi-analytics/toolchain";
import type { ReferenceServer } from "pulumi-analytics/reference-server";
import { nativeSubject, OURS, startBenchServer, upArgs, type Subject } from "../engine";
import { singleFilePlugin } from "../single-file";
import { tofuDiagnostics } from "./tofu-parse";
import { bridgeSubject, configureBridgeStack } from "./restapi-bridge";
import { OPENTOFU_VERSION, RESTAPI_VERSION, resolveRestapiBridge, resolveTofuTools, TFBRIDGE_VERSION } from "./tofu-tools";
import { TofuWorkspace } from "./tofu-workspace";
import { BenchWorkspace, repoRoot, upTimeLimitMs, type TimedRun } from "../workspace";

/** The sides of scenario T. */
export type TofuSide = "tofu" | "bridge" | "yaml" | "ts" | "dynamic";

/** Every side, in report order. */
export const TOFU_SIDES: readonly TofuSide[] = ["tofu", "bridge", "yaml", "ts", "dynamic"];

/** The sides whose program runs our native plugin. */
export const PLUGIN_SIDES: readonly TofuSide[] = ["yaml", "ts"];

/** The password every side declares as a secret (a sensitive variable for OpenTofu). */
export const BENCH_PASSWORD = "bench-password-not-a-secret";

/**
 * One command of a side's sequence (`apply`, `up`, `plan -refresh=false`, `preview`, `destroy`):
 * its command line, exit code and wall time, the objects the server gained, the CPU seconds of the
 * provider processes (restapi, our plugin or the dynamic provider), of every process of the command
 * and of the engine's own (`pulumi` or `tofu`), a provider's peak RSS and the first 3 errors printed.
 */
export interface StepResult {
  step: string;
  command: string;
  code: number;
  ms: number;
  creates: number;
  providerCpuS: number;
  allCpuS: number;
  engineCpuS?: number;
  providerPeakMiB: number;
  errors: string[];
}

/** One side at one N (DataSources, plus one Organization), checkpoints on or skipped: its steps, the state file's bytes after the first apply/up. */
export interface SideRun {
  side: TofuSide;
  count: number;
  checkpoints: boolean;
  steps: StepResult[];
  stateBytes: number;
}

/** Everything scenario T measured. */
export interface TofuResult {
  versions: { opentofu: string; restapi: string; tfbridge?: string };
  runs: SideRun[];
}

/** Runs scenario T: for each N of `counts`, each side once on a fresh reference server (each Pulumi side with checkpoints on, then skipped). */
export async function runTofuScenario(toolchain: PulumiToolchain, counts: readonly number[], log: (line: string) => void): Promise<TofuResult> {
  const tools = await resolveTofuTools(repoRoot, log);
  const bridge = await resolveRestapiBridge(repoRoot, log);
  // The plugin as the engine fetches it from a release: the single file, Node.js built in.
  const binary = await singleFilePlugin(log);
  const plugin = nativeSubject([binary], binary);
  const runs: SideRun[] = [];
  for (const count of counts) {
    for (const side of TOFU_SIDES) {
      for (const checkpoints of side === "tofu" ? [true] : [true, false]) {
        runs.push(
          side === "tofu" ? await runTofuSide(tools, count, log) : await runPulumiSide(toolchain, side, { ours: plugin, bridge }, count, checkpoints, log),
        );
      }
    }
  }
  return { versions: { opentofu: OPENTOFU_VERSION, restapi: RESTAPI_VERSION, tfbridge: TFBRIDGE_VERSION }, runs };
}

/** Organizations plus data sources the server holds. */
const objectsOn = (server: ReferenceServer): number => server.inspect.organizations().length + server.inspect.dataSources().length;

/** Runs one command, recording what the server saw and what the command said. */
async function step(server: ReferenceServer, name: string, command: string, run: () => Promise<TimedRun>, log: (line: string) => void): Promise<StepResult> {
  const objects = objectsOn(server);
  const result = await run();
  const output = `${result.stdout}\n${result.stderr}`;
  const pulumiErrors = [...output.matchAll(/^\s*error: (.+)$/gm)].map((m) => m[1]!.trim());
  const recorded: StepResult = {
    step: name,
    command,
    code: result.code,
    ms: result.ms,
    creates: objectsOn(server) - objects,
    providerCpuS: result.providerCpuS,
    allCpuS: result.allCpuS,
    engineCpuS: result.engineCpuS,
    providerPeakMiB: result.providerPeakMiB,
    errors: [...new Set([...tofuDiagnostics(output).errors, ...pulumiErrors])].slice(0, 3),
  };
  log(
    `  ${name}: exit ${recorded.code}, ${(recorded.ms / 1000).toFixed(2)} s, ${recorded.creates} creates, provider CPU ${recorded.providerCpuS.toFixed(2)} s of ${recorded.allCpuS.toFixed(2)} s${recorded.errors[0] ? `, error: ${recorded.errors[0].slice(0, 120)}` : ""}`,
  );
  return recorded;
}

/** The OpenTofu side: init, apply, a no-change plan -refresh=false, destroy. */
async function runTofuSide(tools: { tofu: string; restapi: string }, count: number, log: (line: string) => void): Promise<SideRun> {
  const { server, env } = await startBenchServer();
  const ws = TofuWorkspace.create(tools.tofu, tools.restapi, {
    base_url: server.url,
    api_key: env.ANALYTICS_API_KEY ?? "",
    password: BENCH_PASSWORD,
    data_source_count: String(count),
  });
  log(`T N=${count} tofu ${OPENTOFU_VERSION} + restapi ${RESTAPI_VERSION}`);
  try {
    const init = await ws.run(["init", "-input=false"]);
    if (init.code !== 0) throw new Error(`tofu init exited ${init.code}:\n${init.stdout}\n${init.stderr}`);
    const tofuStep = (name: string, args: string[]): Promise<StepResult> =>
      step(server, name, `tofu ${args.join(" ")} -no-color`, () => ws.run(args, upTimeLimitMs(count)), log);
    const steps: StepResult[] = [];
    steps.push(await tofuStep("apply", ["apply", "-auto-approve", "-input=false"]));
    const stateBytes = fs.existsSync(ws.stateFile) ? fs.statSync(ws.stateFile).size : 0;
    steps.push(await tofuStep("plan -refresh=false", ["plan", "-input=false", "-detailed-exitcode", "-refresh=false"]));
    steps.push(await tofuStep("destroy", ["destroy", "-auto-approve", "-input=false"]));
    return { side: "tofu", count, checkpoints: true, steps, stateBytes };
  } finally {
    ws.dispose();
    await server.close();
  }
}

/** The program of bench/fixtures/`fixture` with `plugin`'s shim, and `setup` run on the copy after it. */
function withPlugin(plugin: Subject, fixture: string, setup: (programDir: string) => void): Subject {
  const prepare = (ws: BenchWorkspace): void => {
    plugin.prepare!(ws);
    setup(ws.programDir);
  };
  return { fixture: path.join(repoRoot, "bench", "fixtures", fixture), providerMarker: plugin.providerMarker!, prepare };
}

/** The provider plugins of the Pulumi sides: ours (put where a program's Pulumi.yaml looks for it), and the bridged restapi's binary. */
type SidePlugins = { ours: Subject; bridge: string };

/**
 * The Pulumi program of each Pulumi side, with its plugin: the TypeScript program on the generated
 * SDK (bench/fixtures/native-ts) has the SDK linked in as ./sdk, the YAML one its data sources appended.
 */
function subjectOf(side: Exclude<TofuSide, "tofu">, count: number, plugins: SidePlugins): Subject {
  if (side === "dynamic") return OURS;
  if (side === "bridge") return bridgeSubject(plugins.bridge, count);
  if (side === "ts") return withPlugin(plugins.ours, "native-ts", (dir) => fs.symlinkSync(path.join(repoRoot, "sdk", "nodejs"), path.join(dir, "sdk"), "dir"));
  return withPlugin(plugins.ours, "native-yaml", (dir) => fs.appendFileSync(path.join(dir, "Pulumi.yaml"), yamlDataSources(count)));
}

/** The `ds-0` … `ds-<count-1>` entries scenario T appends to bench/fixtures/native-yaml's `resources:`. */
export function yamlDataSources(count: number): string {
  let text = "";
  for (let i = 0; i < count; i++) {
    text +=
      `  ds-${i}:\n    type: analytics:DataSource\n    properties:\n      orgId: \${org.id}\n      type: direct\n      dialect: POSTGRES\n` +
      `      displayName: Warehouse ${i}\n      host: 127.0.0.1\n      port: 5432\n      databaseName: analytics\n      username: bench_reader\n` +
      `      password: \${password}\n      sslEnabled: false\n`;
  }
  return text;
}

/** A Pulumi side: up, a no-change preview, destroy. */
async function runPulumiSide(
  toolchain: PulumiToolchain,
  side: Exclude<TofuSide, "tofu">,
  plugins: SidePlugins,
  count: number,
  checkpoints: boolean,
  log: (line: string) => void,
): Promise<SideRun> {
  const { server, env } = await startBenchServer();
  const subject = subjectOf(side, count, plugins);
  const ws = BenchWorkspace.create(toolchain, subject.fixture, env, subject.providerMarker);
  subject.prepare?.(ws);
  const extra: NodeJS.ProcessEnv = checkpoints ? {} : { PULUMI_SKIP_CHECKPOINTS: "true" };
  log(`T N=${count} ${side}${checkpoints ? "" : " PULUMI_SKIP_CHECKPOINTS=true"}`);
  try {
    const stack = "bench";
    await ws.initStack(stack, count);
    await configureStack(ws, side, stack, env);
    const envText = checkpoints ? "" : "PULUMI_SKIP_CHECKPOINTS=true ";
    const pulumiStep = (name: string, args: string[]): Promise<StepResult> =>
      step(server, name, `${envText}pulumi ${args.join(" ")}`, () => ws.attempt(args, extra, upTimeLimitMs(count)), log);
    const stateFile = path.join(ws.root, "backend", ".pulumi", "stacks", projectName(ws.programDir), `${stack}.json`);
    const steps: StepResult[] = [];
    steps.push(await pulumiStep("up", upArgs(stack)));
    const stateBytes = fs.existsSync(stateFile) ? fs.statSync(stateFile).size : 0;
    steps.push(await pulumiStep("preview", ["preview", "--expect-no-changes", "--stack", stack]));
    steps.push(await pulumiStep("destroy", ["destroy", "--yes", "--skip-preview", "--stack", stack]));
    return { side, count, checkpoints, steps, stateBytes };
  } finally {
    ws.dispose();
    await server.close();
  }
}

/** A stack's secrets: the password for every program but the dynamic classes' (which read it from the environment), and the bridged restapi's provider settings from the server's `env` (it reads no environment). */
async function configureStack(ws: BenchWorkspace, side: Exclude<TofuSide, "tofu">, stack: string, env: NodeJS.ProcessEnv): Promise<void> {
  if (side === "dynamic") return;
  await ws.pulumi(["config", "set", "--secret", "password", "--stack", stack, "--", BENCH_PASSWORD]);
  if (side === "bridge") await configureBridgeStack(ws, stack, env.ANALYTICS_BASE_URL ?? "", env.ANALYTICS_API_KEY ?? "");
}

/** The project name in a program's Pulumi.yaml. */
function projectName(programDir: string): string {
  return /^name:\s*(\S+)/m.exec(fs.readFileSync(path.join(programDir, "Pulumi.yaml"), "utf8"))?.[1] ?? "";
}

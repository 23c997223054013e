/**
 * Scenario T: what a team without a provider for this API would use instead, OpenTofu with
 * Mastercard's generic REST provider (`restapi_object`, bench/fixtures/tofu), the same provider
 * bridged into Pulumi by Pulumi's Terraform bridge from a YAML program (bench/fixtures/restapi-yaml,
 * as the Pulumi Registry's restapi package offers it), side by side with the
 * native provider plugin from a YAML program and from a TypeScript program on its generated SDK,
 * and with this package's dynamic classes. Each side runs once per N against a fresh reference
 * server: create everything, a no-change plan/preview (default, and without/with refresh), a
 * second apply/up, destroy, and an apply/up killed halfway. For each command: wall time, the
 * objects the server gained (duplicates show here), the requests it received by route, and the
 * CPU seconds of the provider processes alone. For each side: state bytes, objects left on the
 * server after destroy, and how often the password and the API key appear in state and output.
 */
import { execFileSync, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { pulumiEnvironment, signalProcessTree, type PulumiToolchain } from "@pulumi-analytics/toolchain";
import type { ReferenceServer } from "pulumi-analytics/reference-server";
import { OURS, startBenchServer, upArgs, type Subject } from "../engine";
import { pluginSubject, singleFilePlugin } from "../single-file";
import { occurrences, pulumiSummary, tofuDiagnostics, tofuStateObjects, tofuSummary, type ChangeSummary } from "./tofu-parse";
import { runBackendSwitches, type SwitchRun } from "./backend-switches";
import { bridgeSubject, configureBridgeStack, stateObjectsOf } from "./restapi-bridge";
import { OPENTOFU_VERSION, RESTAPI_VERSION, resolveRestapiBridge, resolveTofuTools, TFBRIDGE_VERSION } from "./tofu-tools";
import { collect, TofuWorkspace } from "./tofu-workspace";
import { BenchWorkspace, repoRoot, upTimeLimitMs, type TimedRun } from "../workspace";
import type { PulumiEngine } from "../scenarios";

/**
 * The sides of scenario T. The TypeScript program runs four ways: as the Node.js host runs it by
 * default (ts-node, type-checking it and the SDK before anything registers), transpile-only
 * (`PULUMI_NODEJS_TRANSPILE_ONLY=true`), compiled to JavaScript beforehand (`tsc`, then
 * `runtime.options.typescript: false` with `main: bin/index.js`), and compiled with the program's
 * stack traces off (`runtime.options.nodeargs: --stack-trace-limit=0`: the Node.js SDK formats a
 * stack trace for every output of every resource, see docs/native-provider.md).
 */
export type TofuSide = "tofu" | "bridge" | "yaml" | "ts" | "ts-transpile" | "ts-js" | "ts-js-nostack" | "dynamic";

/** Every side, in report order. */
export const TOFU_SIDES: readonly TofuSide[] = ["tofu", "bridge", "yaml", "ts", "ts-transpile", "ts-js", "ts-js-nostack", "dynamic"];

/** The sides whose program runs our native plugin. */
export const PLUGIN_SIDES: readonly TofuSide[] = ["yaml", "ts", "ts-transpile", "ts-js", "ts-js-nostack"];

/** The password every side declares as a secret (a sensitive variable for OpenTofu). */
export const BENCH_PASSWORD = "bench-password-not-a-secret";

/** One command of a side's sequence. */
export interface StepResult {
  /** What the step is (`apply`, `plan`, `plan -refresh=false`, …). */
  step: string;
  /** The exact command line. */
  command: string;
  /** Exit code. */
  code: number;
  /** Wall time, ms. */
  ms: number;
  /** Organizations and data sources the server gained during the command. */
  creates: number;
  /** API requests the server received during the command, by `METHOD route` and status. */
  requests: Record<string, Record<string, number>>;
  /** The command's own summary of what it did or would do; undefined when it printed none. */
  summary: ChangeSummary | undefined;
  /** CPU seconds of the provider processes (restapi, or our plugin / dynamic provider). */
  providerCpuS: number;
  /** CPU seconds of every process of the command (engine, language host, program, providers). */
  allCpuS: number;
  /** CPU seconds of the engine's own process (`pulumi` or `tofu`); absent from runs recorded before it was measured. */
  engineCpuS?: number;
  /** Peak RSS of a provider process, MiB. */
  providerPeakMiB: number;
  /** Error headings the command printed (first 3). */
  errors: string[];
  /** Distinct warning headings (first 3) and how many warnings there were. */
  warnings: { count: number; first: string[] };
  /** The output's first and last lines (stdout then stderr), as the user saw them. */
  excerpt: string;
}

/** What an apply/up killed (SIGKILL, the whole process group) once half the objects existed left behind. */
export interface CrashResult {
  /** Objects the server held when the state was read after the kill. */
  created: number;
  /** Objects the state recorded. */
  inState: number;
  /** Operations the state recorded as pending (Pulumi). */
  pending: number;
}

/** One side at one N. */
/**
 * The Pulumi CLI a side ran on and its PULUMI_HOME: fresh (a new one for each side, nothing kept
 * between runs) or kept (one for every side and command of the run, the plugin installed in it as
 * a versioned plugin, so the CLI's caches under it carry over).
 */
export interface SideEngine {
  name: PulumiEngine;
  /** The CLI's version. */
  cli: string;
  home: "fresh" | "kept";
}

export interface SideRun {
  side: TofuSide;
  /** The CLI and PULUMI_HOME of a Pulumi side; absent for OpenTofu's and in runs recorded before it was (the pinned CLI, a fresh home). */
  engine?: SideEngine;
  /** DataSources (plus one Organization). */
  count: number;
  /** false when run with PULUMI_SKIP_CHECKPOINTS=true (Pulumi sides only). */
  checkpoints: boolean;
  steps: StepResult[];
  /** Bytes of the state file after the first apply/up. */
  stateBytes: number;
  /** Objects in state after destroy. */
  stateObjectsAfterDestroy: number;
  /** Objects the server still held after destroy (the API cannot delete). */
  serverObjectsAfterDestroy: number;
  /** Occurrences of the password / API key in every state file and in every command's output. */
  secrets: { passwordInState: number; passwordInOutput: number; apiKeyInState: number; apiKeyInOutput: number };
  crash: CrashResult | undefined;
}

/** Everything scenario T measured. */
export interface TofuResult {
  versions: { opentofu: string; restapi: string; tfbridge?: string };
  runs: SideRun[];
  /** The DIY backend's switches, each alone, on the YAML side's up with checkpoints on (absent when not run). */
  switches?: SwitchRun[];
}

/** Options of {@link runTofuScenario}. */
export interface TofuPlan {
  /** DataSources per run. */
  counts: number[];
  /** Sides to run (all by default). */
  sides?: readonly TofuSide[];
  /** Also run each Pulumi side with PULUMI_SKIP_CHECKPOINTS=true (default true). */
  skipCheckpointRuns?: boolean;
  /** Run each Pulumi side only with PULUMI_SKIP_CHECKPOINTS=true (`--checkpoints=skipped`; default false). */
  onlySkipCheckpointRuns?: boolean;
  /** Kill an apply/up halfway and read what state kept (default true). */
  crash?: boolean;
  /** N of the DIY backend switches' measurement (the YAML side's up once per switch, on file:// and s3://); 0 or absent: not run. */
  switches?: number;
  /** The Pulumi sides' CLI: the pinned one with a fresh PULUMI_HOME per side by default; "newest" keeps one PULUMI_HOME for the whole run. */
  engine?: PulumiEngine;
  /** Whether OpenTofu's side runs (default true; a second engine's pass leaves it to the first). */
  tofu?: boolean;
}

/** Runs scenario T: for each N, each side once on a fresh reference server; `log` gets progress lines. */
export async function runTofuScenario(toolchain: PulumiToolchain, plan: TofuPlan, log: (line: string) => void): Promise<TofuResult> {
  const sides = (plan.sides ?? TOFU_SIDES).filter((side) => side !== "tofu" || plan.tofu !== false);
  const tools = sides.includes("tofu") ? await resolveTofuTools(repoRoot, log) : { tofu: "", restapi: "" };
  const bridge = sides.includes("bridge") ? await resolveRestapiBridge(repoRoot, log) : "";
  // The plugin as the engine fetches it from a release: the single file, Node.js built in.
  const binary = sides.some((side) => PLUGIN_SIDES.includes(side)) || plan.switches ? await singleFilePlugin(log) : undefined;
  const engine = pulumiEngine(toolchain, plan.engine ?? "pinned", binary, log);
  const plugin = binary ? (engine.keptHome ? installedPluginSubject(engine.keptHome, binary) : pluginSubject(binary)) : OURS;
  if (engine.keptHome && binary && sides.includes("yaml")) await warmKeptHome(toolchain, { ours: plugin, bridge, engine }, log);
  const runs: SideRun[] = [];
  for (const count of plan.counts) {
    for (const side of sides) {
      const modes = side === "tofu" || plan.skipCheckpointRuns === false ? [true] : plan.onlySkipCheckpointRuns ? [false] : [true, false];
      for (const checkpoints of modes) {
        const run = side === "tofu" ? await runTofuSide(tools, count, plan.crash ?? true, log) : await runPulumiSide(toolchain, side, { ours: plugin, bridge, engine }, count, checkpoints, plan.crash ?? true, log);
        runs.push(run);
      }
    }
  }
  const result: TofuResult = { versions: { opentofu: OPENTOFU_VERSION, restapi: RESTAPI_VERSION, tfbridge: TFBRIDGE_VERSION }, runs };
  if (plan.switches) {
    log(`T switches N=${plan.switches}: native plugin, YAML, checkpoints on, file:// and s3://`);
    // The switches are the backend's: their workspaces keep their own PULUMI_HOME, the plugin found by its path.
    const ours = engine.keptHome && binary ? pluginSubject(binary) : plugin;
    result.switches = await runBackendSwitches(toolchain, subjectOf("yaml", plan.switches, { ours, bridge, engine }), plan.switches, BENCH_PASSWORD, log);
  }
  return result;
}

/** Organizations plus data sources the server holds. */
const objectsOn = (server: ReferenceServer): number => server.inspect.organizations().length + server.inspect.dataSources().length;

/** Requests by route and status received since `before` (a summary's byRoute). */
function requestsSince(server: ReferenceServer, before: Record<string, Record<string, number>>): Record<string, Record<string, number>> {
  const after = server.inspect.requests().byRoute;
  const diff: Record<string, Record<string, number>> = {};
  for (const [route, statuses] of Object.entries(after)) {
    for (const [status, n] of Object.entries(statuses)) {
      const delta = n - (before[route]?.[status] ?? 0);
      if (delta > 0) (diff[route] ??= {})[status] = delta;
    }
  }
  return diff;
}

/** Runs one command, recording what the server saw and what the command said. */
async function step(
  server: ReferenceServer,
  name: string,
  command: string,
  run: () => Promise<TimedRun>,
  summarize: (output: string) => ChangeSummary | undefined,
  outputs: string[],
  log: (line: string) => void,
): Promise<StepResult> {
  const objects = objectsOn(server);
  const routes = server.inspect.requests().byRoute;
  const result = await run();
  const output = `${result.stdout}\n${result.stderr}`;
  outputs.push(output);
  const diagnostics = tofuDiagnostics(output);
  const pulumiWarnings = [...output.matchAll(/^\s*warning: (.+)$/gm)].map((m) => m[1]!.trim());
  const pulumiErrors = [...output.matchAll(/^\s*error: (.+)$/gm)].map((m) => m[1]!.trim());
  const warnings = [...diagnostics.warnings, ...pulumiWarnings];
  const recorded: StepResult = {
    step: name,
    command,
    code: result.code,
    ms: result.ms,
    creates: objectsOn(server) - objects,
    requests: requestsSince(server, routes),
    summary: summarize(output),
    providerCpuS: result.providerCpuS,
    allCpuS: result.allCpuS,
    engineCpuS: result.engineCpuS,
    providerPeakMiB: result.providerPeakMiB,
    errors: [...new Set([...diagnostics.errors, ...pulumiErrors])].slice(0, 3),
    warnings: { count: warnings.length, first: [...new Set(warnings)].slice(0, 3) },
    excerpt: excerptOf(output),
  };
  log(`  ${name}: exit ${recorded.code}, ${(recorded.ms / 1000).toFixed(2)} s, ${recorded.creates} creates, provider CPU ${recorded.providerCpuS.toFixed(2)} s of ${recorded.allCpuS.toFixed(2)} s${recorded.errors[0] ? `, error: ${recorded.errors[0].slice(0, 120)}` : ""}`);
  return recorded;
}

/** The first 25 and last 25 non-empty lines of an output. */
function excerptOf(output: string): string {
  const lines = output.split("\n").filter((line) => line.trim() !== "");
  return lines.length <= 50 ? lines.join("\n") : [...lines.slice(0, 25), `… ${lines.length - 50} lines …`, ...lines.slice(-25)].join("\n");
}

/**
 * The OpenTofu side: init, apply, plan (default and -refresh=false), apply -refresh=false, a second
 * (default) apply, destroy (default, and -refresh=false on the same state), and a killed apply.
 */
async function runTofuSide(tools: { tofu: string; restapi: string }, count: number, crash: boolean, log: (line: string) => void): Promise<SideRun> {
  const { server, env } = await startBenchServer();
  const apiKey = env.ANALYTICS_API_KEY ?? "";
  const ws = TofuWorkspace.create(tools.tofu, tools.restapi, { base_url: server.url, api_key: apiKey, password: BENCH_PASSWORD, data_source_count: String(count) });
  const outputs: string[] = [];
  log(`T N=${count} tofu ${OPENTOFU_VERSION} + restapi ${RESTAPI_VERSION}`);
  try {
    const init = await ws.run(["init", "-input=false"]);
    if (init.code !== 0) throw new Error(`tofu init exited ${init.code}:\n${init.stdout}\n${init.stderr}`);
    const tofuStep = (name: string, args: string[]): Promise<StepResult> =>
      step(server, name, `tofu ${args.join(" ")} -no-color`, () => ws.run(args, upTimeLimitMs(count)), tofuSummary, outputs, log);
    const steps: StepResult[] = [];
    steps.push(await tofuStep("apply", ["apply", "-auto-approve", "-input=false"]));
    const stateBytes = fs.existsSync(ws.stateFile) ? fs.statSync(ws.stateFile).size : 0;
    steps.push(await tofuStep("plan", ["plan", "-input=false", "-detailed-exitcode"]));
    steps.push(await tofuStep("plan -refresh=false", ["plan", "-input=false", "-detailed-exitcode", "-refresh=false"]));
    steps.push(await tofuStep("apply -refresh=false", ["apply", "-auto-approve", "-input=false", "-refresh=false"]));
    steps.push(await tofuStep("second apply", ["apply", "-auto-approve", "-input=false"]));
    // `destroy` runs on the state the second apply left; `destroy -refresh=false` on a copy of that same state.
    const beforeDestroy = fs.readFileSync(ws.stateFile);
    steps.push(await tofuStep("destroy", ["destroy", "-auto-approve", "-input=false"]));
    const stateObjectsAfterDestroy = fs.existsSync(ws.stateFile) ? tofuStateObjects(fs.readFileSync(ws.stateFile, "utf8")) : 0;
    const serverObjectsAfterDestroy = objectsOn(server);
    const stateText = ws.stateTexts();
    fs.writeFileSync(ws.stateFile, beforeDestroy);
    steps.push(await tofuStep("destroy -refresh=false", ["destroy", "-auto-approve", "-input=false", "-refresh=false"]));
    let crashed: CrashResult | undefined;
    if (crash) {
      for (const name of fs.readdirSync(ws.programDir)) if (name.includes(".tfstate")) fs.rmSync(path.join(ws.programDir, name));
      crashed = await killHalfway(server, count, () => ws.start(["apply", "-auto-approve", "-input=false"]), () =>
        fs.existsSync(ws.stateFile) ? { objects: tofuStateObjects(fs.readFileSync(ws.stateFile, "utf8")), pending: 0 } : { objects: 0, pending: 0 },
      );
      log(`  apply killed halfway: ${crashed.created} on the server, ${crashed.inState} in state`);
    }
    return { side: "tofu", count, checkpoints: true, steps, stateBytes, stateObjectsAfterDestroy, serverObjectsAfterDestroy, secrets: secretsIn(stateText, outputs.join("\n"), apiKey), crash: crashed };
  } finally {
    ws.dispose();
    await server.close();
  }
}

/** Occurrences of the password and API key in state and output. */
function secretsIn(stateText: string, output: string, apiKey: string): SideRun["secrets"] {
  return {
    passwordInState: occurrences(stateText, BENCH_PASSWORD),
    passwordInOutput: occurrences(output, BENCH_PASSWORD),
    apiKeyInState: occurrences(stateText, apiKey),
    apiKeyInOutput: occurrences(output, apiKey),
  };
}

/**
 * Starts an apply/up, kills it and every process it started (SIGKILL, as a lost machine would) once the
 * server holds half the objects, and reads what the state kept.
 */
async function killHalfway(server: ReferenceServer, count: number, start: () => ChildProcess, readState: () => { objects: number; pending: number }): Promise<CrashResult> {
  const before = objectsOn(server);
  const child = start();
  const done = collect(child, upTimeLimitMs(count));
  const target = before + Math.ceil((count + 1) / 2);
  let exited = false;
  void done.then(() => (exited = true));
  while (!exited && objectsOn(server) < target) await new Promise((r) => setTimeout(r, 5));
  // The whole tree: the engine starts plugins and language hosts in process groups of their own.
  if (!exited && child.pid) signalProcessTree(child.pid, "SIGKILL");
  await done;
  // The provider may outlive the engine for a moment; give in-flight creates time to land.
  await new Promise((r) => setTimeout(r, 1000));
  const state = readState();
  return { created: objectsOn(server) - before, inState: state.objects, pending: state.pending };
}

/** The TypeScript program on the generated SDK (bench/fixtures/native-ts), with the SDK linked in as ./sdk. */
function typeScriptSubject(plugin: Subject): Subject {
  return {
    fixture: path.join(repoRoot, "bench", "fixtures", "native-ts"),
    providerMarker: plugin.providerMarker!,
    prepare(ws) {
      plugin.prepare!(ws);
      fs.symlinkSync(path.join(repoRoot, "sdk", "nodejs"), path.join(ws.programDir, "sdk"), "dir");
    },
  };
}

/**
 * The same program compiled to JavaScript before any `pulumi` command (as a `build` script would):
 * `tsc` writes index.js beside index.ts (and the SDK's, in a copy of it), and Pulumi.yaml runs
 * index.js with the host's TypeScript support off, and with `nodeargs` when given. (A user's
 * project would write bin/ and say `main: bin/index.js`; here the output stays in the program's
 * folder, where the bench finds the plugin's processes by their working directory.)
 */
function compiledSubject(plugin: Subject, nodeargs?: string): Subject {
  return {
    ...typeScriptSubject(plugin),
    prepare(ws) {
      plugin.prepare!(ws);
      fs.cpSync(path.join(repoRoot, "sdk", "nodejs"), path.join(ws.programDir, "sdk"), { recursive: true });
      const tsc = path.join(repoRoot, "node_modules", "typescript", "bin", "tsc");
      const options = ["--module", "commonjs", "--target", "es2020", "--strict", "--skipLibCheck", "--types", "node"];
      execFileSync(process.execPath, [tsc, ...options, "index.ts"], { cwd: ws.programDir, stdio: "pipe" });
      const project = path.join(ws.programDir, "Pulumi.yaml");
      const args = nodeargs ? `    nodeargs: ${nodeargs}\n` : "";
      const text = fs.readFileSync(project, "utf8").replace(/^runtime: nodejs\nmain: index\.ts\n/m, `runtime:\n  name: nodejs\n  options:\n    typescript: false\n${args}main: index.js\n`);
      if (!text.includes("main: index.js")) throw new Error("bench/fixtures/native-ts/Pulumi.yaml no longer reads `runtime: nodejs` then `main: index.ts`");
      fs.writeFileSync(project, text);
    },
  };
}

/** Environment a side adds to every command. */
export function sideEnv(side: TofuSide): NodeJS.ProcessEnv {
  return side === "ts-transpile" ? { PULUMI_NODEJS_TRANSPILE_ONLY: "true" } : {};
}

/** The provider plugins of the Pulumi sides: ours (put where a program's Pulumi.yaml looks for it), and the bridged restapi's binary. */
interface SidePlugins {
  ours: Subject;
  bridge: string;
  engine: EngineSetting;
}

/** The Pulumi sides' CLI and PULUMI_HOME: `keptHome`, when set, is the PULUMI_HOME of every side and command. */
interface EngineSetting {
  side: SideEngine;
  keptHome?: string;
}

/** The plugin's version (package.json's), as a versioned plugin is installed and found. */
const pluginVersion = (): string => (JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }).version;

/**
 * The engine setting of `name` on `toolchain`: "pinned", a fresh PULUMI_HOME per side (each
 * workspace's own); "newest", one PULUMI_HOME under bench/tmp/ made empty now and kept for the
 * whole run, with the single file `binary` installed in it as the versioned plugin
 * (`pulumi plugin install --file`), since the CLI caches schemas of versioned plugins only.
 */
function pulumiEngine(toolchain: PulumiToolchain, name: PulumiEngine, binary: string | undefined, log: (line: string) => void): EngineSetting {
  if (name === "pinned") return { side: { name, cli: toolchain.version, home: "fresh" } };
  const keptHome = path.join(repoRoot, "bench", "tmp", `pulumi-home-${name}`);
  fs.rmSync(keptHome, { recursive: true, force: true });
  fs.mkdirSync(keptHome, { recursive: true });
  if (binary) {
    const args = ["plugin", "install", "resource", "analytics", pluginVersion(), "--file", binary];
    execFileSync(toolchain.pulumi, args, { env: pulumiEnvironment(toolchain, { ...process.env, PULUMI_HOME: keptHome }), stdio: "pipe" });
    log(`installed ${path.relative(repoRoot, binary)} as analytics v${pluginVersion()} in the kept PULUMI_HOME ${path.relative(repoRoot, keptHome)}`);
  }
  return { side: { name, cli: toolchain.version, home: "kept" }, keptHome };
}

/**
 * The plugin installed in `keptHome` as a versioned plugin: the program's Pulumi.yaml loses its
 * `plugins:` block (which points the engine at a path, whose schema the CLI does not cache), so the
 * engine finds the installed plugin by the package's name and version.
 */
function installedPluginSubject(keptHome: string, binary: string): Subject {
  return {
    fixture: pluginSubject(binary).fixture,
    providerMarker: path.join(keptHome, "plugins", `resource-analytics-v${pluginVersion()}`, "pulumi-resource-analytics"),
    prepare(ws) {
      const project = path.join(ws.programDir, "Pulumi.yaml");
      const text = fs.readFileSync(project, "utf8").replace(/^plugins:\n(?:[ \t]+.*\n)*/m, "");
      if (/^plugins:/m.test(text)) throw new Error(`${project}: its plugins: block could not be removed`);
      fs.writeFileSync(project, text);
    },
  };
}

/**
 * One unmeasured preview of the YAML program in the kept PULUMI_HOME, so that the YAML host's
 * schema cache (`plugins/schema-analytics-<version>-.json`) holds the plugin's schema before any
 * side is measured, as on a runner that kept ~/.pulumi from an earlier run. Without it the first
 * YAML up measured (checkpoints on) would start the plugin once more to read the schema, and the
 * sides after it would not.
 */
async function warmKeptHome(toolchain: PulumiToolchain, plugins: SidePlugins, log: (line: string) => void): Promise<void> {
  const keptHome = plugins.engine.keptHome!;
  const { server, env } = await startBenchServer();
  const subject = subjectOf("yaml", 1, plugins);
  const ws = BenchWorkspace.create(toolchain, subject.fixture, { ...env, PULUMI_HOME: keptHome }, subject.providerMarker);
  try {
    subject.prepare?.(ws);
    await ws.initStack("warm", 1);
    await configureStack(ws, "yaml", "warm", server.url, env.ANALYTICS_API_KEY ?? "");
    const run = await ws.attempt(["preview", "--stack", "warm"]);
    const cache = path.join(keptHome, "plugins", `schema-analytics-${pluginVersion()}-.json`);
    if (run.code !== 0 || !fs.existsSync(cache)) throw new Error(`warming the kept PULUMI_HOME: the YAML preview exited ${run.code} and ${fs.existsSync(cache) ? "wrote" : "did not write"} ${cache}\n${run.stdout}${run.stderr}`);
    log(`warmed the kept PULUMI_HOME: the YAML host's schema cache holds analytics v${pluginVersion()}`);
  } finally {
    ws.dispose();
    await server.close();
  }
}

/** The Pulumi program of each Pulumi side, with its plugin. */
function subjectOf(side: Exclude<TofuSide, "tofu">, count: number, plugins: SidePlugins): Subject {
  const plugin = plugins.ours;
  if (side === "dynamic") return OURS;
  if (side === "bridge") return bridgeSubject(plugins.bridge, count);
  if (side === "ts" || side === "ts-transpile") return typeScriptSubject(plugin);
  if (side === "ts-js") return compiledSubject(plugin);
  if (side === "ts-js-nostack") return compiledSubject(plugin, "--stack-trace-limit=0");
  return {
    fixture: path.join(repoRoot, "bench", "fixtures", "native-yaml"),
    providerMarker: plugin.providerMarker!,
    prepare(ws) {
      plugin.prepare!(ws);
      fs.appendFileSync(path.join(ws.programDir, "Pulumi.yaml"), yamlDataSources(count));
    },
  };
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

/** A Pulumi side: up, preview (without and with --refresh), a second up, destroy, and a killed up. */
async function runPulumiSide(
  toolchain: PulumiToolchain,
  side: Exclude<TofuSide, "tofu">,
  plugins: SidePlugins,
  count: number,
  checkpoints: boolean,
  crash: boolean,
  log: (line: string) => void,
): Promise<SideRun> {
  const { server, env } = await startBenchServer();
  const apiKey = env.ANALYTICS_API_KEY ?? "";
  const subject = subjectOf(side, count, plugins);
  const home = plugins.engine.keptHome ? { PULUMI_HOME: plugins.engine.keptHome } : {};
  const ws = BenchWorkspace.create(toolchain, subject.fixture, { ...env, ...sideEnv(side), ...home }, subject.providerMarker);
  subject.prepare?.(ws);
  const extra: NodeJS.ProcessEnv = checkpoints ? {} : { PULUMI_SKIP_CHECKPOINTS: "true" };
  const outputs: string[] = [];
  log(`T N=${count} ${side}${checkpoints ? "" : " PULUMI_SKIP_CHECKPOINTS=true"} (Pulumi ${plugins.engine.side.cli}, ${plugins.engine.side.home} PULUMI_HOME)`);
  try {
    const stack = "bench";
    await ws.initStack(stack, count);
    await configureStack(ws, side, stack, server.url, apiKey);
    const envText = checkpoints ? "" : "PULUMI_SKIP_CHECKPOINTS=true ";
    const pulumiStep = (name: string, args: string[]): Promise<StepResult> =>
      step(server, name, `${envText}pulumi ${args.join(" ")}`, () => ws.attempt(args, extra, upTimeLimitMs(count)), pulumiSummary, outputs, log);
    const stateFile = path.join(ws.root, "backend", ".pulumi", "stacks", projectName(ws.programDir), `${stack}.json`);
    const steps: StepResult[] = [];
    steps.push(await pulumiStep("up", upArgs(stack)));
    const stateBytes = fs.existsSync(stateFile) ? fs.statSync(stateFile).size : 0;
    steps.push(await pulumiStep("preview", ["preview", "--expect-no-changes", "--stack", stack]));
    steps.push(await pulumiStep("preview --refresh", ["preview", "--refresh", "--expect-no-changes", "--stack", stack]));
    steps.push(await pulumiStep("second up", upArgs(stack)));
    steps.push(await pulumiStep("destroy", ["destroy", "--yes", "--skip-preview", "--stack", stack]));
    const stateObjectsAfterDestroy = fs.existsSync(stateFile) ? stateObjectsOf(fs.readFileSync(stateFile, "utf8")) : 0;
    const serverObjectsAfterDestroy = objectsOn(server);
    const stateText = readTree(path.join(ws.root, "backend"));
    let crashed: CrashResult | undefined;
    if (crash) {
      await ws.initStack("crash", count);
      await configureStack(ws, side, "crash", server.url, apiKey);
      const crashFile = path.join(path.dirname(stateFile), "crash.json");
      crashed = await killHalfway(server, count, () => ws.start(upArgs("crash"), extra), () => pulumiCheckpoint(crashFile));
      log(`  up killed halfway: ${crashed.created} on the server, ${crashed.inState} in state, ${crashed.pending} pending`);
    }
    return { side, engine: plugins.engine.side, count, checkpoints, steps, stateBytes, stateObjectsAfterDestroy, serverObjectsAfterDestroy, secrets: secretsIn(stateText, outputs.join("\n"), apiKey), crash: crashed };
  } finally {
    ws.dispose();
    await server.close();
  }
}

/** A stack's secrets: the password for every program but the dynamic classes' (which read it from the environment), and the bridged restapi's provider settings (it reads no environment). */
async function configureStack(ws: BenchWorkspace, side: Exclude<TofuSide, "tofu">, stack: string, baseUrl: string, apiKey: string): Promise<void> {
  if (side === "dynamic") return;
  await ws.pulumi(["config", "set", "--secret", "password", "--stack", stack, "--", BENCH_PASSWORD]);
  if (side === "bridge") await configureBridgeStack(ws, stack, baseUrl, apiKey);
}

/** The project name in a program's Pulumi.yaml. */
function projectName(programDir: string): string {
  return /^name:\s*(\S+)/m.exec(fs.readFileSync(path.join(programDir, "Pulumi.yaml"), "utf8"))?.[1] ?? "";
}

/** Our objects and pending operations in a `file://` checkpoint (none when there is no file). */
function pulumiCheckpoint(file: string): { objects: number; pending: number } {
  if (!fs.existsSync(file)) return { objects: 0, pending: 0 };
  const text = fs.readFileSync(file, "utf8");
  const pending = (JSON.parse(text) as { checkpoint?: { latest?: { pending_operations?: unknown[] } } }).checkpoint?.latest?.pending_operations?.length ?? 0;
  return { objects: stateObjectsOf(text), pending };
}

/** Every file below `dir`, as one text. */
function readTree(dir: string): string {
  let text = "";
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) text += `${fs.readFileSync(path.join(entry.parentPath, entry.name), "utf8")}\n`;
  }
  return text;
}

/**
 * The bench's scenarios and its command line. A scenario is one file, bench/scenarios/<file>.ts,
 * exporting `run` (what it measures) and `figures` (its rows of the results page, each beside its
 * target), plus its row in {@link SCENARIOS}.
 */
import type { BenchArgs, PlanArg, ScenarioModule } from "./figure";
import * as container from "../scenarios/container";
import * as scale from "../scenarios/scale";
import * as server from "../scenarios/server";
import * as singleFile from "../scenarios/single-file";
import * as tofu from "../scenarios/tofu";

/** One scenario: its name on the command line, its file, what it measures, and how it runs. */
export interface Scenario {
  readonly name: string;
  readonly file: string;
  readonly module: ScenarioModule<unknown>;
  readonly measures: string;
  /** In `npm run bench` with no names. */
  readonly inFullRun: boolean;
  /** Options it reads, beside `--quick`. */
  readonly options: readonly string[];
}

/** Every scenario, in the order the full run measures them and the results page shows them. */
export const SCENARIOS: readonly Scenario[] = [
  {
    name: "server",
    file: "server",
    module: server,
    measures: "the reference server against Prism and a bare node:http server: create throughput, latency, start-up",
    inFullRun: true,
    options: [],
  },
  {
    name: "F",
    file: "single-file",
    module: singleFile,
    measures: "the plugin's single file against Node.js's http2 floor and the script plugin; arm64 from its snapshot",
    inFullRun: true,
    options: [],
  },
  {
    name: "T",
    file: "tofu",
    module: tofu,
    measures: "OpenTofu + restapi and restapi bridged into Pulumi, beside the native plugin and the dynamic classes",
    inFullRun: true,
    options: ["--plans=<N>x1,..."],
  },
  {
    name: "L",
    file: "scale",
    module: scale,
    measures: "scale on one shared backend (file:// and S3, then stacks at once), against the floor",
    inFullRun: false,
    options: ["--plans=<N>x<reps>,..."],
  },
  {
    name: "container",
    file: "container",
    module: container,
    measures: "the reference server's image started by podman and Docker against each engine's floor image, its single file and node; the image's size",
    inFullRun: false,
    options: [],
  },
];

/** The scenario named `name`, or a clear error listing them. */
export function scenarioNamed(name: string): Scenario {
  const scenario = SCENARIOS.find((s) => s.name === name);
  if (!scenario)
    throw new Error(
      `unknown scenario ${JSON.stringify(name)}: the scenarios are ${SCENARIOS.map((s) => s.name).join(", ")} (npm run bench -- --help lists them)`,
    );
  return scenario;
}

const FLAGS = ["--help", "--quick", "--render", "--plans=..."];

/** `--plans=100x3,500x1`: N x repetitions, each whole and at least 1. */
function parsePlans(value: string): PlanArg[] {
  return value.split(",").map((item) => {
    const [count, reps, ...rest] = item.split("x").map(Number);
    if (rest.length > 0 || !Number.isInteger(count) || !Number.isInteger(reps) || count! < 1 || reps! < 1)
      throw new Error(`--plans: ${JSON.stringify(item)} is not <N>x<repetitions>`);
    return { count: count!, reps: reps! };
  });
}

/** Parses the bench's arguments (process.argv.slice(2)); throws a clear error on an unknown name or option and on a malformed value. */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const names: string[] = [];
  let plans: PlanArg[] | undefined;
  for (const arg of argv) {
    if (arg.startsWith("--plans=")) plans = parsePlans(arg.slice("--plans=".length));
    else if (arg.startsWith("-") && !FLAGS.includes(arg)) throw new Error(`unknown option ${JSON.stringify(arg)}: the options are ${FLAGS.join(", ")}`);
    else if (!arg.startsWith("-") && !names.includes(scenarioNamed(arg).name)) names.push(arg);
  }
  const render = argv.includes("--render");
  if (render && names.length > 0) throw new Error("--render redraws the results page and docs/benchmarks.md from results.json; it takes no scenario name");
  return { names, help: argv.includes("--help"), quick: argv.includes("--quick"), render, plans };
}

/** `--help`: how to choose scenarios, and the table of them. */
export function scenarioHelp(): string {
  const width = Math.max(...SCENARIOS.map((s) => s.name.length)) + 2;
  const rows = SCENARIOS.map(
    (s) =>
      `${s.name.padEnd(width)}${(s.inFullRun ? "yes" : "no").padEnd(10)}${s.measures}${s.options.length ? `\n${" ".repeat(width + 10)}${s.options.join(" ")}` : ""}`,
  );
  return [
    "npm run bench                     the full run: every scenario with yes below, into bench/results/results.json",
    "npm run bench -- <name>...        the named scenarios, one after another, each replacing its entry of results.json",
    "  --quick                         small sizes, one repetition, written to bench/tmp/results/ instead",
    "  --render                        redraw results.md and docs/benchmarks.md from results.json, measuring nothing",
    "",
    `${"name".padEnd(width)}${"full run".padEnd(10)}measures`,
    ...rows,
    "",
  ].join("\n");
}

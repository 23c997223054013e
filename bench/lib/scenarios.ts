/**
 * The bench's scenarios and its command line: which scenarios `npm run bench -- <names>` runs, and
 * with which options. Pure (no measuring, no files), so the parsing is tested on its own.
 */

/** One scenario: its name on the command line, what it measures, and how it runs. */
export interface Scenario {
  readonly name: string;
  readonly measures: string;
  /** In `npm run bench` with no names: always, never, or only with `--quick` or `--with-L`. */
  readonly inFullRun: "yes" | "no" | "--quick or --with-L";
  /** Whether naming it runs it alone; the others are measured only in the full run. */
  readonly alone: boolean;
  /** Options it reads, beside `--quick`. */
  readonly options: readonly string[];
  /** What it writes when run alone at full size (`--quick`: the same into bench/tmp/results/). */
  readonly writes: string;
}

/** Every scenario, in the order `--help` lists them. */
export const SCENARIOS = [
  { name: "A", measures: "pulumi up of N data sources against the no-op dynamic floor", inFullRun: "yes", alone: false, options: [], writes: "latest.md (full run)" },
  { name: "B", measures: "no-change preview against the floor (alone: interleaved pairs at N=100, CPU split)", inFullRun: "yes", alone: true, options: ["--plans=<N>x<pairs>"], writes: "preview.md, preview.json" },
  { name: "C", measures: "state footprint", inFullRun: "yes", alone: false, options: [], writes: "latest.md (full run)" },
  { name: "D", measures: "reference server's create throughput against Prism and a bare node:http server", inFullRun: "yes", alone: false, options: [], writes: "latest.md (full run)" },
  { name: "E", measures: "the client against raw undici", inFullRun: "yes", alone: true, options: [], writes: "nothing (prints its figures)" },
  { name: "S", measures: "start-up time of the reference server and its peers", inFullRun: "yes", alone: false, options: [], writes: "latest.md (full run)" },
  { name: "memory", measures: "the reference server's memory under many objects", inFullRun: "yes", alone: false, options: [], writes: "latest.md (full run)" },
  { name: "P", measures: "the reference server with --state against in memory", inFullRun: "yes", alone: true, options: [], writes: "its part of latest.json and latest.md" },
  { name: "N", measures: "the native provider plugin against the dynamic floor (checkpoints on)", inFullRun: "yes", alone: true, options: ["--plans=<N>x<reps>,..."], writes: "native.md, native.json" },
  { name: "L", measures: "scale on one shared backend (file:// and S3, then stacks at once)", inFullRun: "--quick or --with-L", alone: true, options: ["--plans=<N>x<reps>,...", "--stacks=<stacks>x<per stack>"], writes: "scale.md, scale.json" },
  {
    name: "T",
    measures: "OpenTofu + restapi, the bridged provider, the native plugin and the dynamic classes; the DIY backend's switches",
    inFullRun: "yes",
    alone: true,
    options: ["--plans=<N>x1,...", "--sides=<side>,...", "--checkpoints=skipped", "--switches=<N>", "--engine=pinned|newest|both", "--merge", "--render"],
    writes: "tofu.md, tofu.json (and the speed table of docs/compared-with-rest-provider.md)",
  },
  { name: "F", measures: "the single-file plugin against the script plugin", inFullRun: "yes", alone: true, options: [], writes: "single-file.md, single-file.json" },
  { name: "R", measures: "the single-file plugin made of the pinned Node.js against one made of another", inFullRun: "no", alone: true, options: ["--against=<node>"], writes: "plugin-runtime.md, plugin-runtime.json" },
  { name: "container", measures: "the reference server's image started by podman against its single file and node; the image's size", inFullRun: "no", alone: true, options: [], writes: "container.md, container.json" },
] as const satisfies readonly Scenario[];

/** A scenario that naming runs alone. */
export type AloneScenario = Extract<(typeof SCENARIOS)[number], { alone: true }>["name"];

/**
 * The Pulumi CLIs scenario T's Pulumi sides run on (`--engine=`): the pinned CLI with a fresh
 * PULUMI_HOME for each side, as a clean CI runner; the newest CLI with one PULUMI_HOME kept across
 * every side and command, as a runner that keeps ~/.pulumi.
 */
export const PULUMI_ENGINES = ["pinned", "newest"] as const;

/** One of {@link PULUMI_ENGINES}. */
export type PulumiEngine = (typeof PULUMI_ENGINES)[number];

/** Sizes given by `--plans=`: N x repetitions (or pairs, for B). */
export interface PlanArg {
  count: number;
  reps: number;
}

/** What the command line asks for. */
export interface BenchArgs {
  /** The scenarios named, each once, in the order given; empty: the full run. */
  names: AloneScenario[];
  help: boolean;
  quick: boolean;
  render: boolean;
  /** `--with-L`: the full run measures scenario L too. */
  withScale: boolean;
  merge: boolean;
  /** `--checkpoints=skipped`: scenario T's Pulumi sides only with checkpoints skipped. */
  skipCheckpointsOnly: boolean;
  plans?: PlanArg[] | undefined;
  sides?: string[] | undefined;
  /** `--switches=N`: N of the DIY backend's switches (300, or 10 with `--quick`; 0 leaves them out). */
  switches: number;
  stacks?: { stacks: number; perStack: number } | undefined;
  against?: string | undefined;
  /** `--engine=`: the CLIs scenario T runs on, in order (both by default, the pinned one first). */
  engines: PulumiEngine[];
}

const FLAGS = ["--help", "--quick", "--render", "--with-L", "--merge"];
const VALUED = ["--plans=", "--sides=", "--switches=", "--checkpoints=", "--stacks=", "--against=", "--engine="];

/** `<a>x<b>` with whole a, b ≥ 1, or undefined. */
function pair(text: string): [number, number] | undefined {
  const [a, b, ...rest] = text.split("x").map(Number);
  return rest.length === 0 && Number.isInteger(a) && Number.isInteger(b) && a! >= 1 && b! >= 1 ? [a!, b!] : undefined;
}

function parsePlans(value: string): PlanArg[] {
  return value.split(",").map((item) => {
    const sizes = pair(item);
    if (!sizes) throw new Error(`--plans: ${JSON.stringify(item)} is not <N>x<repetitions>`);
    return { count: sizes[0], reps: sizes[1] };
  });
}

function parseStacks(value: string): { stacks: number; perStack: number } {
  const sizes = pair(value);
  if (!sizes) throw new Error(`--stacks: ${JSON.stringify(`--stacks=${value}`)} is not <stacks>x<DataSources per stack>`);
  return { stacks: sizes[0], perStack: sizes[1] };
}

function parseSwitches(value: string): number {
  const n = Number(value);
  if (value === "" || !Number.isInteger(n) || n < 0) throw new Error(`--switches: ${JSON.stringify(value)} is not a whole number of data sources (0 leaves the switches out)`);
  return n;
}

function parseSides(value: string, knownSides: readonly string[]): string[] {
  const sides = value.split(",");
  for (const side of sides) if (!knownSides.includes(side)) throw new Error(`--sides: ${JSON.stringify(side)} is not one of ${knownSides.join(", ")}`);
  return sides;
}

function parseEngine(value: string): PulumiEngine[] {
  if (value === "both") return [...PULUMI_ENGINES];
  const engine = PULUMI_ENGINES.find((e) => e === value);
  if (!engine) throw new Error(`--engine: ${JSON.stringify(value)} is not one of ${[...PULUMI_ENGINES, "both"].join(", ")} (scenario T's CLI: the pinned one with a fresh PULUMI_HOME, the newest with a kept one)`);
  return [engine];
}

/** The valid names, for an error message. */
const validNames = (): string => SCENARIOS.map((s) => s.name).join(", ");

/** A name on the command line as a scenario to run alone, or a clear error. */
function scenarioNamed(name: string): AloneScenario {
  const scenario = SCENARIOS.find((s) => s.name === name);
  if (!scenario) throw new Error(`unknown scenario ${JSON.stringify(name)}: the scenarios are ${validNames()} (npm run bench -- --help lists them)`);
  if (!scenario.alone) throw new Error(`scenario ${name} is measured only in the full run (npm run bench, no names); the scenarios that run alone are ${SCENARIOS.filter((s) => s.alone).map((s) => s.name).join(", ")}`);
  return scenario.name as AloneScenario;
}

/**
 * Parses the bench's arguments (process.argv.slice(2)); `knownSides` are scenario T's sides.
 * Throws a clear error on an unknown name or option and on a malformed value.
 */
export function parseBenchArgs(argv: readonly string[], knownSides: readonly string[]): BenchArgs {
  const values = new Map<string, string>();
  const names: AloneScenario[] = [];
  for (const arg of argv) {
    if (arg.startsWith("-")) {
      const valued = VALUED.find((prefix) => arg.startsWith(prefix));
      if (valued) values.set(valued, arg.slice(valued.length));
      else if (!FLAGS.includes(arg)) throw new Error(`unknown option ${JSON.stringify(arg)}: the options are ${[...FLAGS, ...VALUED.map((v) => `${v}...`)].join(", ")}`);
      continue;
    }
    const name = scenarioNamed(arg);
    if (!names.includes(name)) names.push(name);
  }
  const quick = argv.includes("--quick");
  const render = argv.includes("--render");
  if (render && names.some((name) => name !== "T")) throw new Error(`--render redraws latest.md (no names) or tofu.md (T) from their JSON; it takes no other scenario`);
  const checkpoints = values.get("--checkpoints=");
  if (checkpoints !== undefined && checkpoints !== "skipped") throw new Error(`--checkpoints: ${JSON.stringify(checkpoints)} is not "skipped" (the only setting; without it both are measured)`);
  const get = <T>(prefix: string, parse: (value: string) => T): T | undefined => (values.has(prefix) ? parse(values.get(prefix)!) : undefined);
  return {
    names,
    help: argv.includes("--help"),
    quick,
    render,
    withScale: argv.includes("--with-L"),
    merge: argv.includes("--merge"),
    skipCheckpointsOnly: checkpoints === "skipped",
    plans: get("--plans=", parsePlans),
    sides: get("--sides=", (value) => parseSides(value, knownSides)),
    switches: get("--switches=", parseSwitches) ?? (quick ? 10 : 300),
    stacks: get("--stacks=", parseStacks),
    against: values.get("--against="),
    engines: get("--engine=", parseEngine) ?? [...PULUMI_ENGINES],
  };
}

/** `--help`: how to choose scenarios, and the table of them. */
export function scenarioHelp(): string {
  const width = Math.max(...SCENARIOS.map((s) => s.name.length)) + 2;
  const inFull = Math.max(...SCENARIOS.map((s) => s.inFullRun.length)) + 2;
  const rows = SCENARIOS.flatMap((s) => [
    `${s.name.padEnd(width)}${s.inFullRun.padEnd(inFull)}${s.measures}`,
    `${" ".repeat(width + inFull)}${s.alone ? `alone: ${s.writes}${s.options.length ? `; ${s.options.join(" ")}` : ""}` : "only in the full run"}`,
  ]);
  return [
    "npm run bench                     the full run: every scenario with yes below, into bench/results/latest.md, latest.json, tofu.md, single-file.md",
    "npm run bench -- <name>...        the named scenarios alone, one after another, each into bench/results/ as below",
    "  --quick                         small sizes, one repetition, written to bench/tmp/results/ instead",
    "  --render                        redraw latest.md (no names) or tofu.md (T) from their JSON, measuring nothing",
    "  --with-L                        the full run measures L too (hours at full size)",
    "",
    `${"name".padEnd(width)}${"full run".padEnd(inFull)}measures`,
    ...rows,
    "",
  ].join("\n");
}

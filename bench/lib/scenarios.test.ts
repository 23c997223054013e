import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { parseBenchArgs, scenarioHelp, SCENARIOS } from "./scenarios";

const parse = (...argv: string[]) => parseBenchArgs(argv);

describe("the bench's command line", () => {
  it.each([
    ["no names: the full run, the sizes unset", [], { names: [], quick: false, render: false, plans: undefined }],
    ["the names given, in order, each once", ["T", "F", "T"], { names: ["T", "F"] }],
    ["a named scenario that is not a letter", ["container", "--quick"], { names: ["container"], quick: true }],
    ["--render alone", ["--render"], { names: [], render: true }],
    ["--help", ["--help"], { help: true }],
    [
      "--plans=100x3,500x1",
      ["T", "--plans=100x3,500x1"],
      {
        names: ["T"],
        plans: [
          { count: 100, reps: 3 },
          { count: 500, reps: 1 },
        ],
      },
    ],
  ])("reads %s", (_label, argv, expected) => {
    expect(parse(...argv)).toMatchObject(expected);
  });

  it.each([
    [["X"], /unknown scenario "X": the scenarios are server, F, T, L, container/],
    [["t"], /unknown scenario "t"/],
    [["A"], /unknown scenario "A"/],
    [["--with-L"], /unknown option "--with-L": the options are --help, --quick, --render/],
    [["L", "--plans=100"], /--plans: "100" is not <N>x<repetitions>/],
    [["L", "--plans=0x1"], /--plans: "0x1"/],
    [["L", "--stacks=8x250"], /unknown option "--stacks=8x250"/],
    [["T", "--sides=tofu"], /unknown option "--sides=tofu"/],
    [["T", "--render"], /--render redraws the results page .* it takes no scenario name/],
  ])("refuses %j with a clear error", (argv, message) => {
    expect(() => parse(...argv)).toThrow(message);
  });

  it("lists every scenario, whether the full run has it and its options in --help", () => {
    const help = scenarioHelp();
    for (const scenario of SCENARIOS)
      expect(help).toMatch(new RegExp(`^${scenario.name} +${scenario.inFullRun ? "yes" : "no"} +${scenario.measures.replace(/[()+.]/g, "\\$&")}$`, "m"));
    expect(help).toMatch(/^T +yes +OpenTofu .*\n +--plans=<N>x1,\.\.\.$/m);
  });
});

describe("the table of scenarios", () => {
  const dir = path.join(__dirname, "..", "scenarios");

  it("has one row per file of bench/scenarios/, each name once", () => {
    const files = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith(".ts"))
      .map((f) => f.replace(/\.ts$/, ""));
    expect(SCENARIOS.map((s) => s.file).sort()).toEqual(files.sort());
    expect(new Set(SCENARIOS.map((s) => s.name)).size).toBe(SCENARIOS.length);
  });

  it("gives each row the module of its own file, which makes its report rows", async () => {
    for (const scenario of SCENARIOS) {
      const module = (await import(path.join(dir, `${scenario.file}.ts`))) as object;
      expect(scenario.module, scenario.file).toBe(module);
      expect(typeof scenario.module.run, scenario.file).toBe("function");
      expect(typeof scenario.module.figures, scenario.file).toBe("function");
    }
  });
});

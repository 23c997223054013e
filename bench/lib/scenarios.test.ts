import { describe, expect, it } from "vitest";
import { parseBenchArgs, scenarioHelp, SCENARIOS } from "./scenarios";

const SIDES = ["tofu", "bridge", "yaml"];
const parse = (...argv: string[]) => parseBenchArgs(argv, SIDES);

describe("the bench's command line", () => {
  it.each([
    ["no names: the full run", [], { names: [], quick: false, render: false, withScale: false }],
    ["the names given, in order, each once", ["T", "F", "T"], { names: ["T", "F"] }],
    ["a named scenario that is not a letter", ["container", "--quick"], { names: ["container"], quick: true }],
    ["--with-L for the full run", ["--with-L"], { names: [], withScale: true }],
    ["--render alone", ["--render"], { names: [], render: true }],
    ["T --render", ["T", "--render"], { names: ["T"], render: true }],
    ["--help", ["--help"], { help: true }],
  ])("reads %s", (_label, argv, expected) => {
    expect(parse(...argv)).toMatchObject(expected);
  });

  it.each([
    ["--plans=100x3,500x1", { plans: [{ count: 100, reps: 3 }, { count: 500, reps: 1 }] }],
    ["--stacks=8x250", { stacks: { stacks: 8, perStack: 250 } }],
    ["--sides=tofu,yaml", { sides: ["tofu", "yaml"] }],
    ["--switches=0", { switches: 0 }],
    ["--checkpoints=skipped", { skipCheckpointsOnly: true }],
    ["--against=/usr/bin/node", { against: "/usr/bin/node" }],
    ["--merge", { merge: true }],
    ["--engine=newest", { engines: ["newest"] }],
    ["--engine=both", { engines: ["pinned", "newest"] }],
    ["--engine=pinned", { engines: ["pinned"] }],
  ])("reads %s", (arg, expected) => {
    expect(parse("T", arg)).toMatchObject(expected);
  });

  it("defaults the switches' N to 300, or 10 with --quick, and leaves the sizes unset", () => {
    expect(parse("T")).toMatchObject({ switches: 300, plans: undefined, stacks: undefined, sides: undefined, skipCheckpointsOnly: false, merge: false, engines: ["pinned", "newest"] });
    expect(parse().engines).toEqual(["pinned", "newest"]);
    expect(parse("T", "--quick").switches).toBe(10);
  });

  it.each([
    [["X"], /unknown scenario "X": the scenarios are A, B, C, D, E, S, memory, P, N, L, T, F, R, container/],
    [["t"], /unknown scenario "t"/],
    [["A"], /scenario A is measured only in the full run .*run alone are B, E, P, N, L, T, F, R, container/],
    [["--with-l"], /unknown option "--with-l": the options are --help, --quick/],
    [["N", "--plans=100"], /--plans: "100" is not <N>x<repetitions>/],
    [["N", "--plans=0x1"], /--plans: "0x1"/],
    [["L", "--stacks=8"], /--stacks: "--stacks=8" is not <stacks>x<DataSources per stack>/],
    [["T", "--sides=tofu,ts"], /--sides: "ts" is not one of tofu, bridge, yaml/],
    [["T", "--switches=-1"], /--switches: "-1" is not a whole number/],
    [["T", "--switches="], /--switches: "" is not a whole number/],
    [["T", "--checkpoints=on"], /--checkpoints: "on" is not "skipped"/],
    [["T", "--engine=latest"], /--engine: "latest" is not one of pinned, newest, both/],
    [["N", "--render"], /--render redraws latest.md \(no names\) or tofu.md \(T\)/],
  ])("refuses %j with a clear error", (argv, message) => {
    expect(() => parse(...argv)).toThrow(message);
  });

  it("lists every scenario, whether the full run has it and its options in --help", () => {
    const help = scenarioHelp();
    for (const scenario of SCENARIOS) expect(help).toMatch(new RegExp(`^${scenario.name} +${scenario.inFullRun} +${scenario.measures.replace(/[()+.]/g, "\\$&")}$`, "m"));
    expect(help).toMatch(/^T +yes +OpenTofu .*\n +alone: tofu\.md, tofu\.json .*; --plans=<N>x1,\.\.\. --sides=<side>,\.\.\. --checkpoints=skipped --switches=<N> --engine=pinned\|newest\|both --merge --render$/m);
    expect(help).toMatch(/^A +yes +pulumi up .*\n +only in the full run$/m);
  });
});

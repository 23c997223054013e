import { describe, expect, it } from "vitest";
import { cpuMicrosOfStat, programOfCmdline } from "../proc";
import { occurrences, pulumiStateObjects, pulumiSummary, tofuDiagnostics } from "./tofu-parse";

describe("tofuDiagnostics", () => {
  it("lists each error and warning heading once, boxed or not", () => {
    const output =
      "╷\n│ Error: unexpected response code '405': {}\n│ \n│   with restapi_object.org,\n╵\n╷\n│ Error: unexpected response code '405': {}\n╵\nWarning: Resource targeting is in effect\n";
    expect(tofuDiagnostics(output)).toEqual({ errors: ["unexpected response code '405': {}"], warnings: ["Resource targeting is in effect"] });
  });
});

describe("pulumiSummary", () => {
  it("reads the Resources block of up, preview and destroy", () => {
    expect(pulumiSummary('Outputs:\n    orgId: "org_1"\n\nResources:\n    + 102 created\n\nDuration: 12s\n')).toEqual({
      add: 102,
      change: 0,
      destroy: 0,
      replace: 0,
    });
    expect(pulumiSummary("Resources:\n    + 3 to create\n    ~ 1 to update\n    +-2 to replace\n    6 unchanged\n")).toEqual({
      add: 3,
      change: 1,
      destroy: 0,
      replace: 2,
    });
    expect(pulumiSummary("Resources:\n    - 102 deleted\n\nDuration: 3s\n")).toEqual({ add: 0, change: 0, destroy: 102, replace: 0 });
  });

  it("gives zeros for an unchanged stack and undefined without a Resources block", () => {
    expect(pulumiSummary("Resources:\n    102 unchanged\n")).toEqual({ add: 0, change: 0, destroy: 0, replace: 0 });
    expect(pulumiSummary("error: the stack is currently locked\n")).toBeUndefined();
  });
});

describe("state objects", () => {
  it("counts resources by type prefix in a file backend checkpoint and in a stack export", () => {
    const resources = [
      { type: "pulumi:pulumi:Stack" },
      { type: "pulumi:providers:analytics" },
      { type: "analytics:index:Organization" },
      { type: "analytics:index:DataSource" },
    ];
    expect(pulumiStateObjects(JSON.stringify({ version: 3, checkpoint: { latest: { resources } } }), "analytics:")).toBe(2);
    expect(pulumiStateObjects(JSON.stringify({ version: 3, deployment: { resources } }), "analytics:")).toBe(2);
    expect(pulumiStateObjects(JSON.stringify({ version: 3, checkpoint: { latest: null } }), "analytics:")).toBe(0);
  });
});

describe("occurrences", () => {
  it("counts non-overlapping occurrences, none for an empty secret", () => {
    expect(occurrences("pw=abc; again abc; abcabc", "abc")).toBe(4);
    expect(occurrences("nothing here", "abc")).toBe(0);
    expect(occurrences("anything", "")).toBe(0);
  });
});

describe("cpuMicrosOfStat", () => {
  it("sums utime and stime after a command name holding spaces and parentheses", () => {
    const stat = "4242 (node (plugin) x) S 1 4242 4242 0 -1 4194560 2375 0 0 0 123 45 0 0 20 0 11 0 9876 1187840000 18000 18446744073709551615";
    expect(cpuMicrosOfStat(stat)).toBe((123 + 45) * 10_000);
  });

  it("refuses a line that is not a stat line", () => {
    expect(() => cpuMicrosOfStat("not a stat line")).toThrow(/not a \/proc\/<pid>\/stat line/);
  });
});

describe("programOfCmdline", () => {
  it("names the program of a command line (its first field, without the directory), which tells the engine's process from the others", () => {
    expect(programOfCmdline("/root/.cache/pulumi-analytics/pulumi-v3.200.0-linux-x64-abc/bin/pulumi\0--non-interactive\0up\0")).toBe("pulumi");
    expect(programOfCmdline("/cache/bin/pulumi-language-yaml\0-root=/x\0")).toBe("pulumi-language-yaml");
    expect(programOfCmdline("tofu\0apply\0")).toBe("tofu");
    expect(programOfCmdline("")).toBe("");
  });
});

import { describe, expect, it } from "vitest";
import { readStackHistory, type PulumiRunner } from "./history";

const DS = "pulumi-nodejs:dynamic/analytics:DataSource";
const deployment = (time: string, ...ids: string[]) => ({
  deployment: { manifest: { time }, resources: ids.map((id) => ({ urn: `urn:pulumi:s::p::${DS}::${id}`, type: DS, id, outputs: { displayName: id } })) },
});

/** A runner answering from a table of `args joined by spaces` → stdout (or an Error to reject with). */
function fakeRunner(answers: Record<string, unknown>): { run: PulumiRunner; calls: string[] } {
  const calls: string[] = [];
  const run: PulumiRunner = async (args) => {
    const key = args.join(" ");
    calls.push(key);
    const answer = answers[key];
    if (answer instanceof Error) throw answer;
    if (answer === undefined) throw new Error(`unexpected pulumi ${key}`);
    return typeof answer === "string" ? answer : JSON.stringify(answer);
  };
  return { run, calls };
}

describe("readStackHistory", () => {
  it("exports every numbered version where the backend keeps them, then the current state", async () => {
    const { run, calls } = fakeRunner({
      "stack export": deployment("2026-01-01T00:03:00Z"),
      "whoami --verbose --json": { url: "https://api.pulumi.com" },
      "stack history --json --page-size 100 --page 1": [
        { version: 2, endTime: "2026-01-01T00:02:00Z" },
        { version: 1, endTime: "2026-01-01T00:01:00Z" },
      ],
      "stack export --version 2": deployment("2026-01-01T00:02:00Z", "ds_2"),
      "stack export --version 1": deployment("2026-01-01T00:01:00Z", "ds_1"),
    });
    const snapshots = await readStackHistory(run, undefined, "/nowhere");
    expect(snapshots.map((s) => [s.time, s.resources.map((r) => r.id)])).toEqual([
      ["2026-01-01T00:02:00Z", ["ds_2"]],
      ["2026-01-01T00:01:00Z", ["ds_1"]],
      ["2026-01-01T00:03:00Z", []],
    ]);
    expect(calls).toContain("stack export --version 1");
  });

  it.each([
    ["numbers no versions (self-managed)", { "stack history --json --page-size 100 --page 1": [{ version: 0 }] }],
    [
      "cannot export them",
      {
        "stack history --json --page-size 100 --page 1": [{ version: 1 }],
        "stack export --version 1": new Error("error: the current backend (s3) does not provide the ability to export previous deployments"),
      },
    ],
  ])("refuses, in words, a backend that %s instead of listing nothing", async (_what, extra) => {
    const { run } = fakeRunner({ "stack export": deployment("2026-01-01T00:03:00Z"), "whoami --verbose --json": { url: "s3://bucket" }, ...extra });
    await expect(readStackHistory(run, undefined, "/nowhere")).rejects.toThrow(
      "The backend s3://bucket keeps no earlier versions of the stack's state that the pulumi CLI can export",
    );
  });
});

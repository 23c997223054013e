import { execFileSync } from "node:child_process";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

/** A child Node process that churns short-lived objects and prints its young generation's size in MiB. */
function newSpaceAfterChurn(limit: boolean): number {
  // The build's module (npm test builds first), loaded by a plain Node process.
  const memory = path.join(__dirname, "..", "..", "dist", "native", "memory.js");
  const script = `
    ${limit ? `require(${JSON.stringify(memory)}).limitPluginMemory();` : ""}
    let kept = [];
    for (let i = 0; i < 300000; i++) { kept.push({ i, text: "x" + i }); if (kept.length > 2000) kept = []; }
    const space = require("node:v8").getHeapSpaceStatistics().find((s) => s.space_name === "new_space");
    process.stdout.write(String(space.space_size / 1048576));`;
  const output = execFileSync(process.execPath, ["-e", script], { encoding: "utf8" });
  return Number(output);
}

describe("limitPluginMemory", () => {
  it("keeps the young generation at its first semi-spaces, where it would otherwise grow", () => {
    expect(newSpaceAfterChurn(false)).toBeGreaterThan(2);
    expect(newSpaceAfterChurn(true)).toBeLessThanOrEqual(2);
  });
});

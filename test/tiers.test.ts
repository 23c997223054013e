/** test/tiers.js: every test file in exactly one tier, and the unit tier off the engine. */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { ALL, TIERS, excludedBy } from "./tiers.js";
import { repoRoot } from "./support/pulumi-workspace";

const glob = (patterns: readonly string[]): string[] => patterns.flatMap((p) => fs.globSync(p, { cwd: repoRoot, exclude: (f) => f.includes("node_modules") }));
const everyFile = [...new Set(glob(ALL))].sort();

/** The files a tier runs, as vitest selects them: its globs, less what it excludes. */
function filesOf(tier: (typeof TIERS)[number]): string[] {
  const excluded = new Set(glob(excludedBy(tier)));
  return [...new Set(glob(tier.include))].filter((f) => !excluded.has(f)).sort();
}

describe("the test tiers", () => {
  it("run every test file exactly once", () => {
    const placed = TIERS.flatMap(filesOf);
    expect(placed.slice().sort()).toEqual(everyFile);
    expect(new Set(placed).size).toBe(placed.length);
  });

  it("take each tier but unit from its folder of test/, named after it", () => {
    for (const tier of TIERS.filter((t) => t.name !== "unit")) expect(tier.include[0]).toBe(`test/${tier.name}/**/*.test.ts`);
    expect(
      fs
        .readdirSync(path.join(repoRoot, "test"))
        .filter((f) => f.endsWith(".test.ts") && TIERS.some((t) => t.name !== "unit" && filesOf(t).includes(`test/${f}`))),
    ).toEqual([]);
  });

  it("give no file a glob that matches nothing", () => {
    for (const tier of TIERS) for (const pattern of tier.include) expect(glob([pattern]), `${tier.name}: ${pattern}`).not.toEqual([]);
  });

  it("keep the Pulumi CLI, the Go builds and the shared release artifacts out of the unit tier", () => {
    const unit = TIERS.find((t) => t.name === "unit");
    expect(unit?.engine).toBe(false);
    const engineBound = /inject\("(newest)?[pP]ulumiToolchain"\)|resolvePinnedGoTool|resolvePythonEnv|sharedReleaseFolder|buildPluginBinary|startTestPostgres/;
    const offenders = filesOf(unit!).filter((f) => f !== "test/tiers.test.ts" && engineBound.test(fs.readFileSync(path.join(repoRoot, f), "utf8")));
    expect(offenders).toEqual([]);
  });

  it("resolve the newest CLI only where a test runs it (the compatibility tier, the checksum install of the YAML rehearsal)", () => {
    const users = everyFile.filter(
      (f) => f !== "test/tiers.test.ts" && fs.readFileSync(path.join(repoRoot, f), "utf8").includes('inject("newestPulumiToolchain")'),
    );
    expect(users.length).toBeGreaterThan(0);
    const tiersOfUsers = TIERS.filter((t) => filesOf(t).some((f) => users.includes(f)));
    expect(tiersOfUsers.every((t) => t.newestEngine)).toBe(true);
    expect(TIERS.filter((t) => t.newestEngine).map((t) => t.name)).toEqual(tiersOfUsers.map((t) => t.name));
  });
});

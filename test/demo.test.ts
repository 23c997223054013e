/** `npm run demo`, the README's main job, run as a user would (after the build `npm test` does first). */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { trackProcessTree } from "../toolchain/src/process-group";
import { pulumiEnvironment } from "../toolchain/src/pulumi-cli";
import { repoRoot } from "./support/pulumi-workspace";

const toolchain = inject("pulumiToolchain");

function runDemo(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const env = pulumiEnvironment(toolchain);
    for (const key of Object.keys(env)) if (key.startsWith("ANALYTICS_")) delete env[key];
    // Its own group, tracked: should the test time out, the worker's exit takes the demo's pulumi runs down with it.
    const child = trackProcessTree(spawn(process.execPath, [path.join(repoRoot, "demo/dist/run.js")], { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"], detached: true }));
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("npm run demo", () => {
  it("deploys to the reference server, shows the synced schema, previews no changes and cleans up", async () => {
    const stackFilesBefore = fs.readdirSync(repoRoot).filter((f) => /^Pulumi\..+\.yaml$/.test(f));
    const { code, output } = await runDemo();
    expect(code, output).toBe(0);
    expect(output).toMatch(/\+ 3 created/);
    expect(output).toMatch(/organizationSlug\s+demo-analytics/);
    expect(output).toMatch(/sync SUCCEEDED, health HEALTHY/);
    expect(output).toMatch(/public\.customers: id integer, email character varying\(254\)/);
    expect(output).toMatch(/pulumi preview --expect-no-changes[\s\S]*3 unchanged/);
    expect(output).toMatch(/warning: Organization "Demo Analytics" \(id org_\w+\) was left in the analytics service/);
    expect(output).toMatch(/Demo finished in/);
    expect(output).not.toMatch(/[a-z]+_key_[A-Za-z0-9]{32}/);
    expect(fs.readdirSync(repoRoot).filter((f) => /^Pulumi\..+\.yaml$/.test(f))).toEqual(stackFilesBefore);
  }, 300_000);
});

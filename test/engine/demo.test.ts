/** `npm run demo`, the README's main job, run as a user would (after the build `npm test` does first). */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, inject, it } from "vitest";
import type { ConsoleState } from "../../src/reference-server";
import { trackProcessTree } from "../../toolchain/src/process-group";
import { pulumiEnvironment } from "../../toolchain/src/pulumi-cli";
import { repoRoot } from "../support/pulumi-workspace";

const toolchain = inject("pulumiToolchain");

/** A demo run: everything it printed so far, and its exit. */
interface DemoRun {
  child: ChildProcessWithoutNullStreams;
  output(): string;
  exited: Promise<number | null>;
}

function startDemo(args: string[] = []): DemoRun {
  const env = pulumiEnvironment(toolchain);
  for (const key of Object.keys(env)) if (key.startsWith("ANALYTICS_")) delete env[key];
  // Its own group, tracked: should the test time out, the worker's exit takes the demo's pulumi runs down with it.
  const child = trackProcessTree(
    spawn(process.execPath, [path.join(repoRoot, "demo/dist/run.js"), ...args], { cwd: repoRoot, env, stdio: ["pipe", "pipe", "pipe"], detached: true }),
  );
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Resolves once the run printed something `pattern` matches (rejects if it exits first). */
async function printed(run: DemoRun, pattern: RegExp): Promise<RegExpMatchArray> {
  let exited = false;
  void run.exited.then(() => (exited = true));
  for (;;) {
    const match = run.output().match(pattern);
    if (match) return match;
    if (exited) throw new Error(`the demo exited without printing ${pattern}:\n${run.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const stackFiles = (): string[] => fs.readdirSync(repoRoot).filter((f) => /^Pulumi\..+\.yaml$/.test(f));
const CONSOLE_LINE = /Console: (http:\/\/127\.0\.0\.1:\d+\/_reference\/console)/;

describe("npm run demo", () => {
  it("deploys to the reference server, shows the synced schema, previews no changes and cleans up", async () => {
    const stackFilesBefore = stackFiles();
    const run = startDemo();
    const code = await run.exited;
    const output = run.output();
    expect(code, output).toBe(0);
    // The console's address is printed before the stack exists, so a person can watch it arrive.
    expect(output).toMatch(new RegExp(`${CONSOLE_LINE.source}[\\s\\S]*pulumi up: an organization`));
    expect(output).toMatch(/\+ 3 created/);
    expect(output).toMatch(/organizationSlug\s+demo-analytics/);
    expect(output).toMatch(/sync SUCCEEDED, health HEALTHY/);
    expect(output).toMatch(/public\.customers: id integer, email character varying\(254\)/);
    expect(output).toMatch(/pulumi preview --expect-no-changes[\s\S]*3 unchanged/);
    expect(output).toMatch(/warning: Organization "Demo Analytics" \(id org_\w+\) was left in the analytics service/);
    expect(output).toMatch(/Demo finished in[\s\S]*npm run demo -- --keep/);
    expect(output).not.toMatch(/[a-z]+_key_[A-Za-z0-9]{32}/);
    expect(stackFiles()).toEqual(stackFilesBefore);
  }, 300_000);

  it("with --keep, leaves the server and its console running at the end until Ctrl-C, then stops and cleans up", async () => {
    const stackFilesBefore = stackFiles();
    const run = startDemo(["--keep"]);
    try {
      await printed(run, /Press Ctrl-C to stop it and clean up/);
      const consoleUrl = run.output().match(CONSOLE_LINE)![1]!;
      const work = run.output().match(/on a local file backend \((\S+)\)/)![1]!;
      expect(fs.existsSync(work)).toBe(false);

      const page = await fetch(consoleUrl);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("<main>");
      const state = ((await (await fetch(`${consoleUrl}/state`)).json()) as { data: ConsoleState }).data;
      expect(state.organizations.map((org) => org.name)).toEqual(["Demo Analytics"]);
      expect(state.organizations[0]!.dataSources[0]).toMatchObject({
        displayName: "Demo warehouse",
        lastSyncStatus: "SUCCEEDED",
        providedSecretFields: ["password"],
      });
      expect(state.requests.recent.map((r) => `${r.method} ${r.status}`)).toEqual(["POST 201", "POST 201"]);

      // Ctrl-C reaches the terminal's whole foreground group.
      process.kill(-run.child.pid!, "SIGINT");
      expect(await run.exited, run.output()).toBe(0);
      expect(run.output()).toMatch(/SIGINT received: stopping the reference server and the demo warehouse/);
      await expect(fetch(consoleUrl)).rejects.toThrow();
      expect(stackFiles()).toEqual(stackFilesBefore);
    } finally {
      run.child.kill("SIGKILL");
    }
  }, 300_000);

  it("refuses an option it does not know, naming the one it has", async () => {
    const run = startDemo(["--kep"]);
    expect(await run.exited).toBe(2);
    expect(run.output()).toMatch(/Unknown option '--kep'[\s\S]*Usage: npm run demo \[-- --keep\]/);
  }, 60_000);
});

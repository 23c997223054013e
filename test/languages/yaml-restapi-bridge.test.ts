/**
 * What a Pulumi user without this provider would run, Mastercard's terraform-provider-restapi
 * bridged into Pulumi by Pulumi's Terraform bridge (tools/pinned/restapi-bridge, built into the project
 * cache as the bench builds it), beside the native plugin: the same CLI, a `file://` backend and a
 * fresh reference server each, both YAML programs of 1 + N objects (bench/fixtures/restapi-yaml and
 * bench/fixtures/native-yaml). Each command's requests by route, creates, summary, warnings and
 * first error are recorded, and so are the password and the API key in the state, the CLI's
 * output and a `-v=9` log; docs/compared-with-rest-provider.md's comparison table must say exactly
 * what was recorded (test/support/lifecycle-cells.ts renders each cell). Needs `npm run build`
 * and Go (the bridge's first build takes ten minutes or more on two cores).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { resolvePinnedGoTool } from "@pulumi-analytics/toolchain";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { prepareBridgeProgram } from "../../bench/lib/tofu/restapi-bridge";
import { yamlDataSources } from "../../bench/lib/tofu/tofu";
import { occurrences, pulumiStateObjects, pulumiSummary } from "../../bench/lib/tofu/tofu-parse";
import { BRIDGE_SCHEMA, resolveRestapiBridge, restapiTfgenTool } from "../../bench/lib/tofu/tofu-tools";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server";
import { LIFECYCLE_ROWS, lifecycleCells, tableColumn, type LifecycleObservation, type LifecycleRow, type StepObservation } from "../support/lifecycle-cells";
import { PulumiWorkspace, repoRoot } from "../support/pulumi-workspace";

const toolchain = inject("pulumiToolchain");
/** Data sources: distinct from the small counts the cells say as numbers (see countText). */
const N = 4;
const PASSWORD = "bridge-lifecycle-password-4b7d1f";
const BRIDGE_COLUMN = "restapi through Pulumi";
const OURS_COLUMN = "This package";
const DOC = path.join(repoRoot, "docs", "compared-with-rest-provider.md");
const log = (line: string): void => void process.stderr.write(`${line}\n`);

type Side = "ours" | "bridge";

/** A `pulumi` CLI run the lifecycle records: its output, and whether it is the `-v=9` one. */
interface Recorded {
  stdout: string;
  stderr: string;
  verbose: boolean;
}

/** The service's objects the reference server holds. */
const objectsOn = (server: ReferenceServer): number => server.inspect.organizations().length + server.inspect.dataSources().length;

/** Requests by route received since `before`. */
function requestsSince(server: ReferenceServer, before: Record<string, Record<string, number>>): Record<string, Record<string, number>> {
  const diff: Record<string, Record<string, number>> = {};
  for (const [route, statuses] of Object.entries(server.inspect.requests().byRoute)) {
    for (const [status, n] of Object.entries(statuses)) {
      const delta = n - (before[route]?.[status] ?? 0);
      if (delta > 0) (diff[route] ??= {})[status] = delta;
    }
  }
  return diff;
}

/**
 * The first sentence of the first `error:` line that says more than that the command failed (the
 * CLI prints a bare `preview failed` too, before or after the reason, as its streams interleave),
 * with what differs between runs (URLs, ids, URNs) replaced.
 */
function firstError(output: string): string {
  const lines = [...output.matchAll(/^\s*error: (.+)$/gm)].map((m) => m[1]!.trim());
  const line = lines.find((l) => !/^(preview|update|refresh|destroy) failed$/i.test(l)) ?? lines[0] ?? "";
  return line
    .split(/(?<=\.) /)[0]!
    .replace(/\.$/, "")
    .replace(/https?:\/\/127\.0\.0\.1:\d+/g, "<url>")
    .replace(/\b(org|ds)_\w+/g, "<id>")
    .replace(/urn:pulumi:\S+/g, "<urn>")
    .replace(/\|/g, "/")
    .trim()
    .slice(0, 200);
}

/** One side's program in a fresh workspace against `server`, its plugin in place and its stack configured. */
async function workspaceFor(side: Side, server: ReferenceServer, bridgeBinary: string): Promise<PulumiWorkspace> {
  const fixture = path.join(repoRoot, "bench", "fixtures", side === "ours" ? "native-yaml" : "restapi-yaml");
  const ws = await PulumiWorkspace.create(toolchain, { programDir: fixture, withoutNodeModules: true });
  const apiKey = server.apiKeys.alice!;
  if (side === "ours") {
    const dir = path.join(ws.programDir, "plugin-bin");
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, "pulumi-resource-analytics"),
      `#!/bin/sh\nexec "${process.execPath}" "${path.join(repoRoot, "dist", "native", "bin.js")}" "$@"\n`,
      { mode: 0o755 },
    );
    fs.appendFileSync(path.join(ws.programDir, "Pulumi.yaml"), yamlDataSources(N));
    await ws.setConfig({ "analytics:baseUrl": server.url }, { "analytics:apiKey": apiKey, password: PASSWORD });
  } else {
    prepareBridgeProgram(ws.programDir, bridgeBinary, N);
    await ws.setConfig({ baseUrl: server.url }, { apiKey, password: PASSWORD });
  }
  return ws;
}

/** Runs one side's whole lifecycle on a fresh server and records it. */
async function lifecycle(side: Side, bridgeBinary: string): Promise<LifecycleObservation> {
  const server = await startReferenceServer({ port: 0, bootstrapUsers: ["alice"], inspection: true });
  const ws = await workspaceFor(side, server, bridgeBinary);
  const recorded: Recorded[] = [];
  const type = side === "ours" ? "analytics:" : "restapi:index/object:Object";
  const inState = async (): Promise<number> => pulumiStateObjects((await ws.pulumi(["stack", "export"])).stdout, type);
  const step = async (args: string[], verbose = false): Promise<StepObservation> => {
    const [routes, objects] = [server.inspect.requests().byRoute, objectsOn(server)];
    const result = await ws.pulumi(args, { allowFailure: true });
    recorded.push({ stdout: result.stdout, stderr: result.stderr, verbose });
    const output = `${result.stdout}\n${result.stderr}`;
    return {
      code: result.code,
      requests: requestsSince(server, routes),
      creates: objectsOn(server) - objects,
      said: pulumiSummary(result.stdout),
      warnings: (output.match(/^\s*warning: /gm) ?? []).length,
      error: firstError(output),
    };
  };
  try {
    const freshPreview = await step(["preview"]);
    const up = await step(["up", "--yes", "-v=9", "--logtostderr", "--logflow"], true);
    const preview = await step(["preview"]);
    const secondUp = await step(["up", "--yes"]);
    const program = path.join(ws.programDir, "Pulumi.yaml");
    fs.writeFileSync(program, fs.readFileSync(program, "utf8").replace(/^  ds-0:$/m, "  ds-renamed:"));
    const rename = await step(["up", "--yes"]);
    const refresh = { ...(await step(["refresh", "--yes"])), stateObjects: await inState() };
    const upAfterRefresh = await step(["up", "--yes"]);
    const orgId = server.inspect.organizations()[0]!.id;
    const importArgs =
      side === "ours"
        ? ["import", "analytics:index:Organization", "imported", orgId, "--yes"]
        : ["import", type, "imported", `/api/public/organizations/${orgId}`, "--yes", "--provider", `restapi=${await providerUrn(ws)}`];
    const importing = { ...(await step(importArgs)), stateObjects: await importedCount(ws) };
    const beforeDestroy = objectsOn(server);
    const destroy = { ...(await step(["destroy", "--yes"])), stateObjects: await inState(), serverRemoved: beforeDestroy - objectsOn(server) };
    const state = [...ws.backendFiles().values()].join("\n");
    const output = recorded.map((r) => (r.verbose ? r.stdout : `${r.stdout}\n${r.stderr}`)).join("\n");
    const logs = recorded
      .filter((r) => r.verbose)
      .map((r) => r.stderr)
      .join("\n");
    const apiKey = server.apiKeys.alice!;
    const secrets = {
      passwordInState: occurrences(state, PASSWORD),
      passwordInOutput: occurrences(output, PASSWORD),
      passwordInLogs: occurrences(logs, PASSWORD),
      apiKeyInState: occurrences(state, apiKey),
      apiKeyInOutput: occurrences(output, apiKey),
      apiKeyInLogs: occurrences(logs, apiKey),
    };
    expect(logs.length, "the -v=9 up wrote a log to stderr").toBeGreaterThan(10_000);
    return { n: N, freshPreview, up, preview, secondUp, rename, refresh, upAfterRefresh, destroy, importing, secrets };
  } finally {
    ws.dispose();
    await server.close();
  }
}

/** The URN of the bridged program's explicit provider `restapi`. */
async function providerUrn(ws: PulumiWorkspace): Promise<string> {
  const resources = (await ws.exportStack()).deployment.resources ?? [];
  const provider = resources.find((r) => r.type === "pulumi:providers:restapi");
  if (!provider) throw new Error("the bridged program's state holds no pulumi:providers:restapi");
  return provider.urn;
}

/** Resources named `imported` in the stack's state. */
async function importedCount(ws: PulumiWorkspace): Promise<number> {
  return ((await ws.exportStack()).deployment.resources ?? []).filter((r) => r.urn.endsWith("::imported")).length;
}

describe("restapi bridged into Pulumi beside the native plugin: same CLI, file:// backend and API", () => {
  let bridgeBinary = "";
  const observed: Partial<Record<Side, LifecycleObservation>> = {};

  beforeAll(async () => {
    bridgeBinary = await resolveRestapiBridge(repoRoot, log);
  }, 3_600_000);

  it("embeds the schema pulumi-tfgen-restapi writes for the same ProviderInfo", async () => {
    const tfgen = await resolvePinnedGoTool(restapiTfgenTool(repoRoot), { log });
    const out = fs.mkdtempSync(path.join(os.tmpdir(), "restapi-tfgen-"));
    try {
      execFileSync(tfgen, ["schema", "--out", out], { stdio: "pipe" });
      expect(fs.readFileSync(path.join(out, "schema.json"), "utf8")).toBe(fs.readFileSync(path.join(repoRoot, BRIDGE_SCHEMA), "utf8"));
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
    const schema = JSON.parse(execFileSync(bridgeBinary, ["-get-provider-info"], { encoding: "utf8" })) as {
      name: string;
      resources: Record<string, { tok: string }>;
    };
    expect(schema.name).toBe("restapi");
    expect(schema.resources.restapi_object?.tok).toBe("restapi:index/object:Object");
  }, 3_600_000);

  it("the native plugin's YAML program: 1 + N creates, then no request until destroy, which leaves every object and says so", async () => {
    const o = (observed.ours = await lifecycle("ours", bridgeBinary));
    expect(o.up.creates).toBe(N + 1);
    expect(o.secondUp.requests).toEqual({});
    expect(o.refresh.stateObjects).toBe(N + 1);
    expect(o.destroy.warnings).toBeGreaterThanOrEqual(N + 1);
    expect(
      Object.values(o.secrets).every((n) => n === 0),
      JSON.stringify(o.secrets),
    ).toBe(true);
  }, 900_000);

  it("the bridged restapi's YAML program: 1 + N creates, and what each later command sends to a create-only API", async () => {
    const o = (observed.bridge = await lifecycle("bridge", bridgeBinary));
    expect(o.up.code).toBe(0);
    expect(o.up.creates).toBe(N + 1);
    expect(o.destroy.code).toBe(0);
  }, 900_000);

  it("docs/compared-with-rest-provider.md's table says what each program did, cell by cell", () => {
    const page = fs.readFileSync(DOC, "utf8");
    const bridgeCells = lifecycleCells(observed.bridge!);
    const oursCells = lifecycleCells(observed.ours!);
    const rows = Object.keys(LIFECYCLE_ROWS) as LifecycleRow[];
    // What the run observed, as table rows (label | restapi through Pulumi | This package), for the failure message.
    const rendered = rows.map((row) => `| ${LIFECYCLE_ROWS[row]} | ${bridgeCells[row]} | ${oursCells[row]} |`).join("\n");
    const bridgeColumn = tableColumn(page, BRIDGE_COLUMN);
    const oursColumn = tableColumn(page, OURS_COLUMN);
    for (const row of rows) expect(bridgeColumn.get(LIFECYCLE_ROWS[row]), `${BRIDGE_COLUMN}, ${row}; observed:\n${rendered}`).toBe(bridgeCells[row]);
    // The rows only this test measures hold its observation of the native plugin too.
    for (const row of ["refresh", "rename", "importing"] as const)
      expect(oursColumn.get(LIFECYCLE_ROWS[row]), `${OURS_COLUMN}, ${row}; observed:\n${rendered}`).toBe(oursCells[row]);
    // A row this test does not measure says nothing in the column.
    for (const [label, cell] of bridgeColumn) if (!Object.values(LIFECYCLE_ROWS).includes(label as never)) expect(cell, label).toBe("–");
  });
});

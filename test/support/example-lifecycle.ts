/**
 * The steps every language's example goes through with the real CLI and the native plugin
 * (examples/go, examples/python, examples/java and the YAML program): each step's assertions live
 * here once, and each test file says which steps its language takes. The examples declare one
 * Organization `acme` ("Acme") and one DataSource `warehouse` whose display name comes from the
 * stack's `displayName` config (default "Warehouse").
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { expect } from "vitest";
import type { ReferenceServer } from "../../src/reference-server";
import { SETUP_UP, resourcesOfType, type CommandResult, type PulumiWorkspace } from "./pulumi-workspace";

/** The native provider's type tokens. */
export const ORG_TYPE = "analytics:index:Organization";
export const DS_TYPE = "analytics:index:DataSource";

/** A Node.js or Python stack trace, which a user-facing error must never show. */
export const STACK_TRACE = /\n\s+at .*:\d+:\d+\)?|unhandled exception|Traceback \(most recent call last\)/;

/** A command's stdout and stderr together. */
export const output = (result: CommandResult): string => `${result.stdout}\n${result.stderr}`;

/** `pulumi preview` of the fresh stack plans both creates and asks the API nothing. */
export async function expectPreviewWithoutRequests(ws: PulumiWorkspace, server: ReferenceServer): Promise<void> {
  const preview = await ws.pulumi(["preview"]);
  expect(preview.stdout).toMatch(/\+\s+analytics:index:Organization\s+acme\s+create/);
  expect(preview.stdout).toMatch(/\+\s+analytics:index:DataSource\s+warehouse\s+create/);
  expect(server.inspect.requestCount()).toBe(0);
}

/**
 * The first `pulumi up` (extra arguments in `upArgs`) creates exactly the two objects the state
 * records, with the stack's outputs, and a no-change preview after it asks the API nothing.
 */
export async function expectFirstUp(ws: PulumiWorkspace, server: ReferenceServer, upArgs: string[] = []): Promise<void> {
  await ws.pulumi(["up", "--yes", ...upArgs]);
  const state = await ws.exportStack();
  const [org] = resourcesOfType(state, ORG_TYPE);
  const [ds] = resourcesOfType(state, DS_TYPE);
  expect(server.inspect.organizations().map((o) => o.id)).toEqual([org?.id]);
  expect(server.inspect.dataSources().map((d) => [d.id, d.displayName])).toEqual([[ds?.id, "Warehouse"]]);
  expect(JSON.parse((await ws.pulumi(["stack", "output", "--json"])).stdout)).toMatchObject({
    orgId: org?.id,
    dataSourceId: ds?.id,
    lastSyncStatus: "PENDING",
  });
  const requests = server.inspect.requestCount();
  await ws.pulumi(["preview", "--expect-no-changes"]);
  expect(server.inspect.requestCount()).toBe(requests);
}

/** Refresh asks the API nothing (it has no read endpoint) and keeps every resource's id; a preview after it has nothing to change. */
export async function expectRefreshKeeps(ws: PulumiWorkspace, server: ReferenceServer): Promise<void> {
  const ids = async () => ((await ws.exportStack()).deployment.resources ?? []).map((r) => `${r.urn} ${r.id}`);
  const before = await ids();
  const requests = server.inspect.requestCount();
  await ws.pulumi(["refresh", "--yes"]);
  await ws.pulumi(["preview", "--expect-no-changes"]);
  expect(await ids()).toEqual(before);
  expect(server.inspect.requestCount()).toBe(requests);
}

/** How {@link expectRenameReplaces} renames the data source and what it expects. */
export interface RenameOptions {
  /** The data source's display name before (default "Warehouse"). */
  oldName?: string;
  /** Up without a preview, which says why it replaces as a preview would: for languages whose every run is slow. */
  skipPreview?: boolean;
  /** Renames it in the program (default: the stack's `displayName` config, which the examples of Go, Python and Java read). */
  rename?: (renamed: string) => void | Promise<void>;
}

/**
 * Renaming the data source to `renamed` replaces it, saying why (in the preview, or with
 * `skipPreview` in the up itself), the up warns that the old one stays in the service, both exist
 * there afterwards, and (with the preview) a second preview finds nothing to change.
 */
export async function expectRenameReplaces(ws: PulumiWorkspace, server: ReferenceServer, renamed: string, options: RenameOptions = {}): Promise<void> {
  const oldName = options.oldName ?? "Warehouse";
  if (options.rename) await options.rename(renamed);
  else await ws.pulumi(["config", "set", "displayName", renamed]);
  const said = options.skipPreview ? undefined : await ws.pulumi(["preview"]);
  // The preview just run is the one the up would run first: the up skips it either way.
  const up = await ws.pulumi(SETUP_UP);
  const planned = said ?? up;
  const step = said
    ? /\+-\s+analytics:index:DataSource\s+warehouse\s+replace\s+\[diff: ~displayName\]/
    : /\+-\s+analytics:index:DataSource\s+warehouse\s+replaced\s+\([\d.]+s\)\s+\[diff: ~displayName\]/;
  expect(planned.stdout).toMatch(step);
  expect(output(planned)).toMatch(new RegExp(`DataSource "${oldName}" \\(id ds_\\w+\\) will be replaced because displayName changed`));
  expect(output(up)).toMatch(new RegExp(`warning: DataSource "${oldName}" \\(id ds_\\w+\\) was left in the analytics service`));
  expect(server.inspect.dataSources().map((d) => d.displayName)).toEqual([oldName, renamed]);
  if (said) await ws.pulumi(["preview", "--expect-no-changes"]);
}

/**
 * An up with a key the API rejects fails with the key's advice, never prints the key or a stack
 * trace and creates nothing; with `goodKey` and `displayName` set back, nothing is left to change.
 */
export async function expectRejectedKey(ws: PulumiWorkspace, server: ReferenceServer, goodKey: string, displayName: string): Promise<void> {
  const wrongKey = `analytics_key_${"W".repeat(32)}`;
  const before = server.inspect.dataSources().length;
  await ws.setConfig({ displayName: "Never created" }, { "analytics:apiKey": wrongKey });
  const up = await ws.pulumi(["up", "--yes"], { allowFailure: true });
  expect(up.code).not.toBe(0);
  expect(output(up)).toMatch(/The API key was not accepted\. Set it with `pulumi config set --secret analytics:apiKey <key>`/);
  expect(output(up)).not.toContain(wrongKey);
  expect(output(up)).not.toMatch(STACK_TRACE);
  expect(server.inspect.dataSources()).toHaveLength(before);
  await ws.setConfig({ displayName }, { "analytics:apiKey": goodKey });
  await ws.pulumi(["preview", "--expect-no-changes"]);
}

/** `pulumi import` is refused with a clear message, no stack trace and no API request. */
export async function expectImportRefused(ws: PulumiWorkspace, server: ReferenceServer): Promise<void> {
  const before = server.inspect.requestCount();
  const result = await ws.pulumi(["import", ORG_TYPE, "x", "org_1", "--yes"], { allowFailure: true });
  expect(result.code).not.toBe(0);
  expect(output(result)).toContain('Organization "x" cannot be imported: the analytics API has no read endpoint');
  expect(output(result)).not.toMatch(STACK_TRACE);
  expect(server.inspect.requestCount()).toBe(before);
}

/** `pulumi destroy` leaves the objects in the service, says so, and empties the state. */
export async function expectDestroyLeaves(ws: PulumiWorkspace): Promise<void> {
  const destroy = await ws.pulumi(["destroy", "--yes"]);
  expect(output(destroy)).toMatch(/warning: Organization "Acme" \(id org_\w+\) was left in the analytics service/);
  expect(resourcesOfType(await ws.exportStack(), ORG_TYPE)).toEqual([]);
}

/** No credential appears in plain text in the stack export, its history, any backend file (the history included) or any command's output. */
export async function expectNoCredentialLeak(ws: PulumiWorkspace, credentials: readonly string[]): Promise<void> {
  const haystacks = [{ where: "stack export", text: output(await ws.pulumi(["stack", "export", "--show-secrets=false"])) }];
  haystacks.push({ where: "stack history", text: output(await ws.pulumi(["stack", "history", "--show-secrets=false", "--json"])) });
  for (const [file, text] of ws.backendFiles()) haystacks.push({ where: `backend/${file}`, text });
  ws.transcript.forEach((result, i) => haystacks.push({ where: `command #${i}`, text: output(result) }));
  for (const credential of credentials) {
    for (const { where, text } of haystacks) expect(text.includes(credential), `${credential.slice(0, 6)}… found in ${where}`).toBe(false);
  }
}

/**
 * What an Automation API fixture (test/fixtures/go-automation, python-automation) reports: it
 * prints `step <name> <json>` after up, a second up and destroy. Holds that the first up created
 * the organization "Inline Org" and its data source, the second changed nothing, destroy emptied
 * the stack and warned of what it left, and the API key is in neither the output nor the backend.
 */
export function expectAutomationSteps(server: ReferenceServer, run: { stdout: string; stderr: string; backend: string; apiKey: string }): void {
  const steps = Object.fromEntries(
    run.stdout
      .split("\n")
      .filter((line) => line.startsWith("step "))
      .map((line) => {
        const [, name, ...json] = line.split(" ");
        return [name!, JSON.parse(json.join(" ")) as Record<string, unknown>];
      }),
  );
  const [org] = server.inspect.organizations();
  expect(org?.name).toBe("Inline Org");
  expect(steps.up).toEqual({ orgId: org?.id, changes: { create: 2 } });
  expect(steps["up-again"]).toEqual({ changes: { same: 2 } });
  expect(String(steps.destroyed?.state)).not.toContain(ORG_TYPE);
  expect(run.stderr).toMatch(/was left in the analytics service/);
  const stateFiles = fs
    .readdirSync(run.backend, { recursive: true })
    .map(String)
    .filter((f) => fs.statSync(path.join(run.backend, f)).isFile());
  expect(stateFiles.length).toBeGreaterThan(0);
  for (const text of [run.stdout, run.stderr, ...stateFiles.map((f) => fs.readFileSync(path.join(run.backend, f), "utf8"))])
    expect(text).not.toContain(run.apiKey);
}

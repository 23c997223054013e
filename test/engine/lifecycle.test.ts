/**
 * The whole user story with the real `pulumi` CLI against the embedded reference server, each
 * test on its own file backend.
 */
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server";
import { PulumiWorkspace, SETUP_UP, repoRoot, resourcesOfType, type CommandResult } from "../support/pulumi-workspace";

const toolchain = inject("pulumiToolchain");
const ORG_TYPE = "pulumi-nodejs:dynamic/analytics:Organization";
const DS_TYPE = "pulumi-nodejs:dynamic/analytics:DataSource";
const PASSWORD = "lifecycle-password-0d1f6e";
const ROTATED_PASSWORD = "rotated-password-9a8b7c";

interface Harness {
  ws: PulumiWorkspace;
  server: ReferenceServer;
  apiKey: string;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function harness(config: Record<string, string> = {}, options: { apiKey?: string | null } = {}): Promise<Harness> {
  const server = await startReferenceServer({ port: 0, bootstrapUsers: ["alice", "bob"], inspection: true });
  cleanups.push(() => server.close());
  const ws = await PulumiWorkspace.create(toolchain, { programDir: path.join(repoRoot, "test/fixtures/lifecycle"), linkPackage: true });
  cleanups.push(() => ws.dispose());
  const apiKey = server.apiKeys.alice ?? "";
  const key = options.apiKey === undefined ? apiKey : options.apiKey;
  const plain = Object.fromEntries(Object.entries(config).map(([name, value]) => [`fixture:${name}`, value]));
  await ws.setConfig({ "analytics:baseUrl": server.url, ...plain }, { ...(key !== null ? { "analytics:apiKey": key } : {}), "fixture:password": PASSWORD });
  return { ws, server, apiKey };
}

function output(result: CommandResult): string {
  return `${result.stdout}\n${result.stderr}`;
}

/** Outputs with each encrypted secret reduced to a marker, so re-encryption does not count as a change. */
function maskCiphertext(outputs: Record<string, unknown> | undefined): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(outputs ?? {}).map(([key, value]) => [key, value && typeof value === "object" && "ciphertext" in value ? "[secret]" : value]),
  );
}

/** Every plaintext secret of a harness must be absent from the backend dir and every CLI output. */
function expectNoPlaintextSecrets(h: Harness, secrets: string[]): void {
  const haystacks = [...h.ws.backendFiles().entries()].map(([file, text]) => ({ where: `backend/${file}`, text }));
  h.ws.transcript.forEach((result, i) => haystacks.push({ where: `command #${i}`, text: output(result) }));
  for (const secret of secrets) {
    for (const { where, text } of haystacks) expect(text.includes(secret), `${secret.slice(0, 6)}… found in ${where}`).toBe(false);
  }
}

describe("lifecycle with the real engine", () => {
  it("previews a new stack as creates and sends zero requests to the API", async () => {
    const h = await harness();
    const preview = await h.ws.pulumi(["preview"]);
    expect(preview.stdout).toMatch(/\+\s+pulumi-nodejs:dynamic\/analytics:Organization\s+org\s+create/);
    expect(preview.stdout).toMatch(/\+\s+pulumi-nodejs:dynamic\/analytics:DataSource\s+warehouse\s+create/);
    expect(h.server.inspect.requestCount()).toBe(0);
    expect(resourcesOfType(await h.ws.exportStack(), DS_TYPE)).toHaveLength(0);
  }, 300_000);

  it("creates exactly one object per resource, then previews and refreshes with no changes", async () => {
    const h = await harness();
    await h.ws.pulumi(["up", "--yes"]);
    const state = await h.ws.exportStack();
    const [org] = resourcesOfType(state, ORG_TYPE);
    const [ds] = resourcesOfType(state, DS_TYPE);
    expect(h.server.inspect.organizations().map((o) => o.id)).toEqual([org?.id]);
    expect(h.server.inspect.dataSources().map((d) => d.id)).toEqual([ds?.id]);
    expect(ds?.outputs).toMatchObject({
      orgId: org?.id,
      lastSyncStatus: "PENDING",
      lastHealthStatus: "HEALTHY",
      hasCompletedFirstSync: false,
      sslEnabled: false,
    });
    for (const field of ["lastSyncAttemptAt", "lastSuccessfulSyncAt", "syncErrorMessage", "lastHealthyAt", "lastHealthCheckAttemptAt"]) {
      expect(ds?.outputs).toHaveProperty(field);
    }
    expect(org?.outputs).toMatchObject({ name: "Lifecycle Org", slug: "lifecycle-org", onboardingStatus: "STARTED" });

    const requestsAfterUp = h.server.inspect.requestCount();
    expect(requestsAfterUp).toBe(2);
    await h.ws.pulumi(["preview", "--expect-no-changes"]);
    await h.ws.pulumi(["refresh", "--yes"]);
    await h.ws.pulumi(["preview", "--expect-no-changes"]);
    expect(h.server.inspect.requestCount()).toBe(requestsAfterUp);
    // Refresh re-encrypts secrets with fresh nonces; everything else must be as it was.
    const comparable = (resources: typeof state.deployment.resources) =>
      (resources ?? []).map((r) => ({ urn: r.urn, id: r.id, outputs: maskCiphertext(r.outputs) }));
    expect(comparable((await h.ws.exportStack()).deployment.resources)).toEqual(comparable(state.deployment.resources));
  }, 300_000);

  it("writes serialized providers that load the package by name, holding no path of the program's directory or the machine", async () => {
    const h = await harness();
    await h.ws.pulumi(SETUP_UP);
    const providers: string[] = [];
    const collect = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(collect);
      else if (value && typeof value === "object") {
        for (const [key, inner] of Object.entries(value)) key === "__provider" && typeof inner === "string" ? providers.push(inner) : collect(inner);
      }
    };
    const stateFiles = [...h.ws.backendFiles().entries()].filter(([file]) => /^\.pulumi\/stacks\/.*\.json$/.test(file));
    expect(stateFiles.length).toBeGreaterThan(0);
    for (const [, text] of stateFiles) collect(JSON.parse(text));
    // Inputs and outputs of the organization and the data source, in the current state at least.
    expect(providers.length).toBeGreaterThanOrEqual(4);
    for (const text of providers) {
      expect(text).toContain('require("pulumi-analytics/dynamic-provider")');
      for (const path of ["../", h.ws.root, h.ws.programDir, repoRoot, os.tmpdir(), "provider-impl"]) expect(text, path).not.toContain(path);
    }
  }, 300_000);

  it("replaces on a changed displayName and on a rotated password, masking the secret, and reports what was left behind", async () => {
    const h = await harness();
    await h.ws.pulumi(SETUP_UP);
    const [before] = resourcesOfType(await h.ws.exportStack(), DS_TYPE);

    await h.ws.pulumi(["config", "set", "fixture:displayName", "Renamed warehouse"]);
    const renamed = await h.ws.pulumi(["preview"]);
    expect(renamed.stdout).toMatch(/\+-\s+pulumi-nodejs:dynamic\/analytics:DataSource\s+warehouse\s+replace\s+\[diff: ~displayName\]/);
    const renamedDetail = await h.ws.pulumi(["preview", "--diff"]);
    expect(renamedDetail.stdout).toMatch(/~ displayName\s*: "Lifecycle warehouse" => "Renamed warehouse"/);
    await h.ws.pulumi(["config", "rm", "fixture:displayName"]);

    await h.ws.pulumi(["config", "set", "--secret", "fixture:password", ROTATED_PASSWORD]);
    const rotated = await h.ws.pulumi(["preview"]);
    expect(rotated.stdout).toMatch(/\+-\s+pulumi-nodejs:dynamic\/analytics:DataSource\s+warehouse\s+replace/);
    expect(output(rotated)).toMatch(/info: DataSource "Lifecycle warehouse" \(id ds_\w+\) will be replaced because password changed/);
    const rotatedPlan = JSON.parse((await h.ws.pulumi(["preview", "--json"])).stdout) as { steps: Array<{ op: string; replaceReasons?: string[] }> };
    expect(rotatedPlan.steps.find((step) => step.op === "replace")?.replaceReasons).toEqual(["password"]);
    const rotatedDetail = await h.ws.pulumi(["preview", "--diff"]);
    expect(rotatedDetail.stdout).toMatch(/password\s*: \[secret\]/);
    expect(h.server.inspect.dataSources()).toHaveLength(1);

    // The previews above are the one the up would run first.
    const up = await h.ws.pulumi(SETUP_UP);
    const [after] = resourcesOfType(await h.ws.exportStack(), DS_TYPE);
    expect(after?.id).not.toBe(before?.id);
    expect(h.server.inspect.dataSources().map((d) => d.id)).toEqual([before?.id, after?.id]);
    expect(output(up)).toContain(`DataSource "Lifecycle warehouse" (id ${before?.id}) was left in the analytics service`);
    expectNoPlaintextSecrets(h, [PASSWORD, ROTATED_PASSWORD, h.apiKey]);
  }, 300_000);

  it.each([
    ["displayName", "", /displayName.*at least 1 character long, got an empty string/],
    ["port", "70000", /port.*integer from 0 to 65535, got 70000/],
    ["dialect", "MYSQL", /dialect.*must be "POSTGRES".*got "MYSQL"/],
  ])(
    "fails the preview on %s=%j naming the field, and the server receives nothing",
    async (field, value, message) => {
      const h = await harness({ [field]: value });
      const preview = await h.ws.pulumi(["preview"], { allowFailure: true });
      expect(preview.code).not.toBe(0);
      expect(output(preview)).toMatch(message);
      const up = await h.ws.pulumi(["up", "--yes"], { allowFailure: true });
      expect(up.code).not.toBe(0);
      expect(h.server.inspect.dataSources()).toHaveLength(0);
      expect(Object.keys(h.server.inspect.requests().byRoute)).not.toContain("POST /api/public/organizations/{orgId}/data-sources");
      expect(Object.keys(h.server.inspect.requests().byRoute).every((route) => route === "POST /api/public/organizations")).toBe(true);
    },
    300_000,
  );

  it.each([
    ["a wrong", "analytics_key_0123456789abcdefghijklmnopqrstuv"],
    ["a missing", null],
  ])(
    "fails clearly with %s API key and creates nothing",
    async (_what, key) => {
      const h = await harness({}, { apiKey: key });
      const up = await h.ws.pulumi(["up", "--yes"], { allowFailure: true });
      expect(up.code).not.toBe(0);
      if (key) expect(output(up)).toMatch(/Unauthorized: .*\(HTTP 401\).*analytics:apiKey.*ANALYTICS_API_KEY/);
      else expect(output(up)).toMatch(/No analytics API key is set.*analytics:apiKey.*ANALYTICS_API_KEY/);
      expect(h.server.inspect.organizations()).toHaveLength(0);
      expect(resourcesOfType(await h.ws.exportStack(), ORG_TYPE)).toHaveLength(0);
      if (key) expectNoPlaintextSecrets(h, [key]);
    },
    300_000,
  );

  it("destroys to an empty state and reports every object left in the service; no secret is ever in plaintext", async () => {
    const h = await harness();
    await h.ws.pulumi(SETUP_UP);
    const state = await h.ws.exportStack();
    for (const resource of [...resourcesOfType(state, ORG_TYPE), ...resourcesOfType(state, DS_TYPE)]) {
      expect(String(resource.outputs?.__provider)).not.toContain(h.apiKey);
    }
    const [ds] = resourcesOfType(state, DS_TYPE);
    expect(ds?.outputs?.password).toMatchObject({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" });

    const destroy = await h.ws.pulumi(["destroy", "--yes"]);
    expect((await h.ws.exportStack()).deployment.resources ?? []).toHaveLength(0);
    for (const org of h.server.inspect.organizations())
      expect(output(destroy)).toContain(`Organization "Lifecycle Org" (id ${org.id}) was left in the analytics service`);
    for (const d of h.server.inspect.dataSources())
      expect(output(destroy)).toContain(`DataSource "Lifecycle warehouse" (id ${d.id}) was left in the analytics service`);
    expect(h.server.inspect.dataSources()).toHaveLength(1);
    expectNoPlaintextSecrets(h, [PASSWORD, h.apiKey]);
  }, 300_000);

  it("gives pipelines machine-readable steps with preview --json", async () => {
    const h = await harness();
    const preview = await h.ws.pulumi(["preview", "--json"]);
    const plan = JSON.parse(preview.stdout) as { steps: Array<{ op: string; urn: string; newState?: { type: string } }> };
    const ops = plan.steps.map((s) => `${s.op} ${s.newState?.type ?? ""}`);
    expect(ops).toEqual(expect.arrayContaining([`create ${ORG_TYPE}`, `create ${DS_TYPE}`]));
    expect(h.server.inspect.requestCount()).toBe(0);
    expect(preview.stdout).not.toContain(PASSWORD);
  }, 300_000);
});

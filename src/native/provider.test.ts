import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { nativeTypeToken, organizationSpec, dataSourceSpec } from "../kinds";
import { startReferenceServer, type ReferenceServer } from "../reference-server";
import { SECRET_SIG, SIG_KEY, UNKNOWN } from "./property-values";
import { NativeProvider, checkConfig, isDefaultProvider, kindOfUrn, pluginVersion, settingsOf, urnName } from "./provider";
import { captureStderr } from "../../test/support/capture-stderr";
import { startFlakyServer } from "../../test/support/flaky-server";

const secret = (value: unknown) => ({ [SIG_KEY]: SECRET_SIG, value });
const urn = (type: string, name: string) => `urn:pulumi:test::native::${type}::${name}`;
const ORG = urn(nativeTypeToken(organizationSpec), "org");
const DS = urn(nativeTypeToken(dataSourceSpec), "wh");
const KEY = "analytics_key_never-print-me-0123456789abcdef";

const dsInputs = { orgId: "org_1", type: "direct", dialect: "POSTGRES", displayName: "WH", host: "db", port: 5432, password: "pw-plain" };

describe("settings of a Configure request", () => {
  const env = { PULUMI_CONFIG: JSON.stringify({ baseUrl: "http://from-config", apiKey: "config-key" }) };

  it.each([
    [
      "explicit args (a secret key unwrapped)",
      { name: "second", args: { baseUrl: "http://args", apiKey: secret("args-key") } },
      { baseUrl: "http://args", apiKey: "args-key" },
    ],
    [
      "the variables map",
      { name: "default_0_1_0", variables: { "analytics:config:baseUrl": "http://vars", "analytics:config:apiKey": "vars-key" } },
      { baseUrl: "http://vars", apiKey: "vars-key" },
    ],
    ["PULUMI_CONFIG for the default provider", { name: "default" }, { baseUrl: "http://from-config", apiKey: "config-key" }],
    ["args before PULUMI_CONFIG", { name: "default", args: { apiKey: "args-key" } }, { baseUrl: "http://from-config", apiKey: "args-key" }],
    ["no PULUMI_CONFIG for an explicit provider", { name: "second", args: { baseUrl: "http://args" } }, { baseUrl: "http://args" }],
    ["unknowns and empty strings as unset", { name: "second", args: { baseUrl: UNKNOWN, apiKey: "" } }, {}],
  ])("reads %s", (_name, request, settings) => {
    expect(settingsOf(request, env)).toEqual(settings);
  });

  it.each(["{not json secret-in-config-1234", '["secret-in-config-1234"]', '"secret-in-config-1234"'])(
    "fails the default provider's PULUMI_CONFIG %s, which is not a JSON object, naming it and never quoting it",
    (text) => {
      const failure = (() => {
        try {
          settingsOf({ name: "default" }, { PULUMI_CONFIG: text });
        } catch (error) {
          return error as Error;
        }
        return undefined;
      })();
      expect(failure?.message).toMatch(/^The stack config in the PULUMI_CONFIG environment variable is not a JSON object/);
      expect(failure?.message).not.toContain("secret-in-config");
      expect(settingsOf({ name: "second", args: { apiKey: "k" } }, { PULUMI_CONFIG: text })).toEqual({ apiKey: "k" });
    },
  );

  it("tells default providers by name", () => {
    expect(["default", "default_0_1_0", undefined].map(isDefaultProvider)).toEqual([true, true, true]);
    expect(["second", "defaultish"].map(isDefaultProvider)).toEqual([false, false]);
  });
});

describe("CheckConfig", () => {
  it("returns the key as a secret, even when given in plain text", () => {
    expect(checkConfig({ baseUrl: "http://x", apiKey: KEY, version: "0.1.0" })).toEqual({
      inputs: { baseUrl: "http://x", apiKey: secret(KEY), version: "0.1.0" },
      failures: [],
    });
    expect(checkConfig({ apiKey: secret(KEY) }).inputs).toEqual({ apiKey: secret(KEY) });
    expect(checkConfig({})).toEqual({ inputs: {}, failures: [] });
  });

  it("fails a key or base URL that is not a string with the stack-config words, never quoting the value", () => {
    const { failures } = checkConfig({ apiKey: 42, baseUrl: "" });
    expect(failures.map((f) => f.property)).toEqual(["apiKey", "baseUrl"]);
    expect(failures[0]!.reason).toMatch(/pulumi config set --secret analytics:apiKey.*ANALYTICS_API_KEY/);
    expect(failures[1]!.reason).toMatch(/analytics:baseUrl.*ANALYTICS_BASE_URL/);
    expect(JSON.stringify(failures)).not.toContain("42");
  });
});

describe("the native provider's resource methods", () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer({ port: 0, bootstrapUsers: ["alice"], inspection: true });
  });
  afterAll(() => server.close());

  it("maps URNs of its native types to kinds, and refuses others", () => {
    expect(kindOfUrn(ORG).kind).toBe("organization");
    expect(kindOfUrn(`urn:pulumi:s::p::my:index:Parent$${nativeTypeToken(dataSourceSpec)}::wh`).kind).toBe("dataSource");
    expect(() => kindOfUrn(urn("pulumi-nodejs:dynamic/analytics:Organization", "x"))).toThrow(
      /no resource type "pulumi-nodejs:dynamic\/analytics:Organization"/,
    );
    expect(urnName(DS)).toBe("wh");
  });

  it("checks every field at once, sending nothing", async () => {
    const before = server.inspect.requestCount();
    const result = await new NativeProvider().check(DS, { orgId: "", type: "jdbc", dialect: "POSTGRES", displayName: "", port: 70000 });
    expect(result.failures.map((f) => f.property).sort()).toEqual(["displayName", "orgId", "port", "type"]);
    for (const failure of result.failures) expect(failure.reason.length).toBeGreaterThan(10);
    expect(server.inspect.requestCount()).toBe(before);
  });

  it("applies defaults and returns credentials as secrets though given in plain text, keeping unknowns", async () => {
    const result = await new NativeProvider().check(DS, { ...dsInputs, orgId: UNKNOWN });
    expect(result.failures).toEqual([]);
    expect(result.inputs).toMatchObject({ orgId: UNKNOWN, password: secret("pw-plain"), sslEnabled: true, sshEnabled: false, databaseName: null });
    expect((await new NativeProvider().check(DS, { ...dsInputs, password: secret("pw") })).inputs.password).toEqual(secret("pw"));
  });

  it("diffs: any change is a replace naming the fields, secrets included, with the dynamic provider's notice", async () => {
    const provider = new NativeProvider();
    const olds = { ...dsInputs, id: "ds_1", sslEnabled: true, password: secret("old-pw") };
    const lines = captureStderr();
    let result;
    try {
      expect(await provider.diff(DS, "ds_1", olds, { ...dsInputs, password: secret("old-pw") })).toEqual({
        changes: false,
        replaces: [],
        deleteBeforeReplace: false,
      });
      result = await provider.diff(DS, "ds_1", olds, { ...dsInputs, displayName: "WH2", password: secret("new-pw") });
    } finally {
      lines.restore();
    }
    expect(result).toEqual({ changes: true, replaces: ["displayName", "password"], deleteBeforeReplace: false });
    expect(lines.text()).toBe(
      'info: DataSource "WH" (id ds_1) will be replaced because displayName, password changed: the analytics API cannot update objects.\n',
    );
    expect(lines.text()).not.toContain("pw");
  });

  it("previews a create without a request: outputs unknown, credentials secret", async () => {
    const provider = new NativeProvider();
    const before = server.inspect.requestCount();
    const { id, properties } = await provider.create(DS, { ...dsInputs, orgId: UNKNOWN }, true);
    expect(id).toBe("");
    expect(properties).toMatchObject({
      id: UNKNOWN,
      lastSyncStatus: UNKNOWN,
      statusObservedAt: UNKNOWN,
      displayName: "WH",
      orgId: UNKNOWN,
      password: secret("pw-plain"),
    });
    expect(server.inspect.requestCount()).toBe(before);
  });

  it("keeps a field the kind does not have out of a create's outputs, previewed or not", async () => {
    const provider = new NativeProvider();
    provider.configure({ name: "second", args: { baseUrl: server.url, apiKey: secret(server.apiKeys.alice!) } });
    const hostile = { name: "Stray", id: secret(false), stray: "x" };
    const preview = await provider.create(ORG, hostile, true);
    expect(preview.properties.id).toBe(UNKNOWN);
    expect(preview.properties).not.toHaveProperty("stray");
    const created = await provider.create(ORG, { ...hostile, id: "org_forged" }, false);
    expect(created.properties).toMatchObject({ id: created.id, name: "Stray" });
    expect(created.id).not.toBe("org_forged");
    expect(created.properties).not.toHaveProperty("stray");
  });

  it("fails an unknown field whose value is not known yet, even one named like an Object method", async () => {
    const { failures } = await new NativeProvider().check(ORG, { name: "Acme", toString: UNKNOWN });
    expect(failures).toEqual([{ property: "toString", reason: "is not an input of Organization; its inputs are name" }]);
  });

  it("creates over HTTP like the dynamic provider: answer, declared inputs and statusObservedAt, credentials secret", async () => {
    const provider = new NativeProvider();
    provider.configure({ name: "second", args: { baseUrl: server.url, apiKey: secret(server.apiKeys.alice!) } });
    const org = await provider.create(ORG, { name: "Acme" }, false);
    expect(org.id).toMatch(/^org_/);
    expect(org.properties).toMatchObject({ id: org.id, name: "Acme", slug: "acme", onboardingStatus: "STARTED", statusObservedAt: expect.any(String) });
    const checked = (await provider.check(DS, { ...dsInputs, orgId: org.id })).inputs;
    const ds = await provider.create(DS, checked, false);
    expect(ds.properties).toMatchObject({ id: ds.id, orgId: org.id, displayName: "WH", password: secret("pw-plain"), lastSyncStatus: "PENDING" });
    expect(server.inspect.dataSources().map((d) => d.id)).toContain(ds.id);
  });

  it("logs each of two concurrent creates' retries under its own resource's URN, naming its own object", async () => {
    const flaky = await startFlakyServer(2);
    const logged: Array<{ level: string; message: string; urn: string | undefined }> = [];
    const provider = new NativeProvider((level, message, urn) => void logged.push({ level, message, urn }));
    provider.configure({ name: "second", args: { baseUrl: flaky.url, apiKey: KEY } });
    const [alpha, beta] = [urn(nativeTypeToken(organizationSpec), "alpha"), urn(nativeTypeToken(organizationSpec), "beta")];
    try {
      const created = await Promise.all([provider.create(alpha, { name: "Alpha" }, false), provider.create(beta, { name: "Beta" }, false)]);
      expect(created.map((c) => c.id)).toEqual(["org_Alpha", "org_Beta"]);
    } finally {
      await flaky.close();
    }
    const retries = logged.filter((entry) => entry.message.startsWith("Retrying"));
    expect(retries.sort((a, b) => a.message.localeCompare(b.message))).toEqual([
      { level: "info", message: 'Retrying the create of organization "Alpha" in 0 s (attempt 1 failed: HTTP 503).', urn: alpha },
      { level: "info", message: 'Retrying the create of organization "Beta" in 0 s (attempt 1 failed: HTTP 503).', urn: beta },
    ]);
  });

  it("fails a create without a key with the stack-config words", async () => {
    const provider = new NativeProvider();
    provider.configure({ name: "second", args: { baseUrl: server.url } }, {});
    const saved = process.env.ANALYTICS_API_KEY;
    delete process.env.ANALYTICS_API_KEY;
    try {
      await expect(provider.create(ORG, { name: "Acme" }, false)).rejects.toThrow(
        /No analytics API key is set\. Set it with `pulumi config set --secret analytics:apiKey <key>`/,
      );
    } finally {
      if (saved !== undefined) process.env.ANALYTICS_API_KEY = saved;
    }
  });

  it("rewords a rejected key in Pulumi terms, never quoting it", async () => {
    const provider = new NativeProvider();
    provider.configure({ name: "second", args: { baseUrl: server.url, apiKey: KEY } });
    const error = (await provider.create(ORG, { name: "Acme" }, false).catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({ code: "ANALYTICS_UNAUTHORIZED" });
    expect(error.message).toContain("pulumi config set --secret analytics:apiKey");
    expect(error.message).not.toContain(KEY);
  });

  it("refuses creates after Cancel", async () => {
    const provider = new NativeProvider();
    provider.configure({ name: "second", args: { baseUrl: server.url, apiKey: server.apiKeys.alice! } });
    provider.cancel();
    await expect(provider.create(ORG, { name: "Acme" }, false)).rejects.toThrow(/cancelled/);
  });

  it("sends no create whose call is already over (cancelled, or past its deadline)", async () => {
    const provider = new NativeProvider();
    provider.configure({ name: "second", args: { baseUrl: server.url, apiKey: server.apiKeys.alice! } });
    const before = server.inspect.requestCount();
    const over = AbortSignal.abort(new Error("The caller cancelled the call before its answer."));
    await expect(provider.create(ORG, { name: "Never" }, false, over)).rejects.toThrow(
      'The create of Organization "org" was not sent: the engine stopped waiting for it (The caller cancelled the call before its answer.).',
    );
    expect(server.inspect.requestCount()).toBe(before);
  });

  it("tells the engine's log and stderr the id of an object created for a call that ended meanwhile, and nothing for one answered", async () => {
    const logged: Array<{ level: string; message: string; urn: string | undefined }> = [];
    const provider = new NativeProvider((level, message, urn) => void logged.push({ level, message, urn }));
    provider.configure({ name: "second", args: { baseUrl: server.url, apiKey: server.apiKeys.alice! } });
    const answered = new AbortController();
    await provider.create(ORG, { name: "Answered" }, false, answered.signal);
    const ended = new AbortController();
    const stderr = captureStderr();
    try {
      await provider.create(ORG, { name: "Unrecorded" }, false, ended.signal);
      ended.abort(new Error("The call's stream was gone when its answer was ready."));
    } finally {
      stderr.restore();
    }
    const id = server.inspect.organizations().find((org) => org.name === "Unrecorded")!.id;
    const message =
      `Organization "Unrecorded" (id ${id}) was created in the analytics service, but the engine stopped waiting for the answer (its call was cancelled or its deadline passed), ` +
      "so the stack's state does not record it and `analytics-orphans` cannot list it. Remove it in the service, or keep it and expect the next `pulumi up` to create another.";
    expect(logged).toEqual([{ level: "warning", message, urn: ORG }]);
    expect(stderr.text()).toBe(`warning: ${message}\n`);
  });

  it("tells the engine's log and stderr the error of a create that failed after its call ended: an ambiguous create names its object", async () => {
    const slow = await startReferenceServer({
      port: 0,
      bootstrapUsers: ["alice"],
      inspection: true,
      faults: { routes: { createOrganization: { latencyMs: 300, failNext: 1, errorStatus: 500 } } },
    });
    const logged: Array<{ level: string; message: string; urn: string | undefined }> = [];
    const provider = new NativeProvider((level, message, urn) => void logged.push({ level, message, urn }));
    provider.configure({ name: "second", args: { baseUrl: slow.url, apiKey: slow.apiKeys.alice! } });
    const ended = new AbortController();
    const stderr = captureStderr();
    try {
      const created = provider.create(ORG, { name: "Ambiguous" }, false, ended.signal);
      await vi.waitFor(() => expect(slow.inspect.requestCount()).toBe(1), { timeout: 30_000, interval: 5 });
      ended.abort(new Error("The caller cancelled the call before its answer."));
      await expect(created).rejects.toMatchObject({ code: "ANALYTICS_AMBIGUOUS_CREATE" });
    } finally {
      stderr.restore();
      await slow.close();
    }
    expect(logged).toEqual([{ level: "warning", urn: ORG, message: expect.stringMatching(/organization "Ambiguous" may or may not have been created/) }]);
    expect(stderr.text()).toBe(`warning: ${logged[0]!.message}\n`);
  });

  it("refreshes as is, and refuses an import with the import option's words", () => {
    const provider = new NativeProvider();
    const state = { id: "org_1", name: "Acme" };
    expect(provider.read(ORG, "org_1", state, { name: "Acme" })).toEqual({ id: "org_1", properties: state, inputs: { name: "Acme" } });
    let error: unknown;
    try {
      provider.read(urn(nativeTypeToken(organizationSpec), "x"), "org_1", {}, {});
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: "ANALYTICS_IMPORT_UNSUPPORTED" });
    expect((error as Error).message).toMatch(/^Organization "x" cannot be imported: the analytics API has no read endpoint/);
  });

  it("answers an update, asked only after a partial create, with the recorded outputs as they are", () => {
    const olds = { id: "org_1", name: "Acme", slug: null, apiKeyEcho: secret("kept-secret") };
    expect(new NativeProvider().update(ORG, olds)).toEqual({ properties: olds });
    expect(() => new NativeProvider().update("urn:pulumi:s::p::analytics:index:Widget::w", olds)).toThrow(/no resource type "analytics:index:Widget"/);
  });

  it("leaves the object on delete with the dynamic provider's warning", async () => {
    const lines = captureStderr();
    try {
      await new NativeProvider().delete(DS, "ds_9", { ...dsInputs, password: secret("never-print-me") });
    } finally {
      lines.restore();
    }
    expect(lines.text()).toMatch(/^warning: DataSource "WH" \(id ds_9\) was left in the analytics service: its API has no delete endpoint/);
    expect(lines.text()).not.toContain("never-print-me");
  });

  it("knows its version and its schema", async () => {
    expect(pluginVersion()).toBe((require("../../package.json") as { version: string }).version);
    expect(JSON.parse(await new NativeProvider().schema())).toMatchObject({ name: "analytics" });
  });
});

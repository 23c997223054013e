import { describe, expect, it, vi } from "vitest";
import { ConfigurationError } from "../client/errors";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { startReferenceServer } from "../reference-server";
import { clientFor, dispatch, requestTimeoutFromEnv, resolveSettings, settingsFromConfig, type ProviderState } from "./provider-impl";
import { captureStderr } from "../../test/support/capture-stderr";


const config = (values: Record<string, string>) => ({ get: (key: string) => values[key] });

describe("provider settings", () => {
  it("reads analytics:apiKey and analytics:baseUrl from provider config", () => {
    expect(settingsFromConfig(config({ "analytics:apiKey": "k", "analytics:baseUrl": "http://x" }))).toEqual({ apiKey: "k", baseUrl: "http://x" });
    expect(settingsFromConfig(config({}))).toEqual({});
  });

  it("prefers stack config, falls back to the environment", () => {
    const env = { ANALYTICS_API_KEY: "env-key", ANALYTICS_BASE_URL: "http://env" };
    expect(resolveSettings({ apiKey: "cfg-key" }, env)).toEqual({ apiKey: "cfg-key", baseUrl: "http://env" });
    expect(resolveSettings({}, env)).toEqual({ apiKey: "env-key", baseUrl: "http://env" });
  });

  it("names both ways to set a missing key or base URL", () => {
    expect(() => resolveSettings({}, { ANALYTICS_BASE_URL: "http://x" })).toThrow(ConfigurationError);
    expect(() => resolveSettings({}, { ANALYTICS_BASE_URL: "http://x" })).toThrow(/pulumi config set --secret analytics:apiKey.*ANALYTICS_API_KEY/);
    expect(() => resolveSettings({}, { ANALYTICS_API_KEY: "k" })).toThrow(/analytics:baseUrl.*ANALYTICS_BASE_URL/);
  });
});

describe("request timeout from ANALYTICS_REQUEST_TIMEOUT_MS", () => {
  it("is unset by default and reads a positive whole number of ms", () => {
    expect(requestTimeoutFromEnv({})).toBeUndefined();
    expect(requestTimeoutFromEnv({ ANALYTICS_REQUEST_TIMEOUT_MS: " " })).toBeUndefined();
    expect(requestTimeoutFromEnv({ ANALYTICS_REQUEST_TIMEOUT_MS: "1500" })).toBe(1500);
  });

  it.each(["0", "-5", "1.5", "2s", "1e3"])("refuses %j with a configuration error naming the variable", (value) => {
    expect(() => requestTimeoutFromEnv({ ANALYTICS_REQUEST_TIMEOUT_MS: value })).toThrow(ConfigurationError);
    expect(() => requestTimeoutFromEnv({ ANALYTICS_REQUEST_TIMEOUT_MS: value })).toThrow(/ANALYTICS_REQUEST_TIMEOUT_MS must be a positive whole number/);
  });

  it("bounds a create against a server that never answers", async () => {
    const server = http.createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const state: ProviderState = { settings: { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: "analytics_key_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345" } };
    const saved = process.env.ANALYTICS_REQUEST_TIMEOUT_MS;
    process.env.ANALYTICS_REQUEST_TIMEOUT_MS = "300";
    try {
      await expect(dispatch("organization", "create", state, [{ name: "Acme" }])).rejects.toThrow(
        /no complete answer within 300 ms.*organization "Acme" may or may not have been created/,
      );
    } finally {
      if (saved === undefined) delete process.env.ANALYTICS_REQUEST_TIMEOUT_MS;
      else process.env.ANALYTICS_REQUEST_TIMEOUT_MS = saved;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("clientFor", () => {
  it("reuses one client (and its keep-alive pool) per key, base URL and timeout", () => {
    const env = {};
    const a = clientFor({ apiKey: "key-a", baseUrl: "http://127.0.0.1:1" }, env);
    expect(clientFor({ apiKey: "key-a", baseUrl: "http://127.0.0.1:1" }, env)).toBe(a);
    expect(clientFor({ apiKey: "key-b", baseUrl: "http://127.0.0.1:1" }, env)).not.toBe(a);
    expect(clientFor({ apiKey: "key-a", baseUrl: "http://127.0.0.1:2" }, env)).not.toBe(a);
    expect(clientFor({ apiKey: "key-a", baseUrl: "http://127.0.0.1:1" }, { ANALYTICS_REQUEST_TIMEOUT_MS: "500" })).not.toBe(a);
  });
});

describe("dispatch", () => {
  it("configure fills the shared settings that create later uses", async () => {
    const state: ProviderState = { settings: {} };
    await dispatch("organization", "configure", state, [{ config: config({ "analytics:apiKey": "k" }) }]);
    expect(state.settings).toEqual({ apiKey: "k" });
  });

  it("check and diff answer without any network access", async () => {
    const state: ProviderState = { settings: {} };
    await expect(dispatch("organization", "check", state, [{}, { name: "" }])).resolves.toMatchObject({ failures: [{ property: "name" }] });
    const lines = captureStderr();
    try {
      await expect(dispatch("organization", "diff", state, ["org_1", { name: "a" }, { name: "b" }])).resolves.toEqual({
        changes: true,
        replaces: ["name"],
        deleteBeforeReplace: false,
      });
    } finally {
      lines.restore();
    }
    expect(lines.text()).toBe('info: Organization "a" (id org_1) will be replaced because name changed: the analytics API cannot update objects.\n');
  });

  it("create without a key fails before sending, naming both ways to set it", async () => {
    const state: ProviderState = { settings: { baseUrl: "http://127.0.0.1:9" } };
    const saved = process.env.ANALYTICS_API_KEY;
    delete process.env.ANALYTICS_API_KEY;
    try {
      await expect(dispatch("organization", "create", state, [{ name: "Acme" }])).rejects.toThrow(/analytics:apiKey.*ANALYTICS_API_KEY/);
    } finally {
      if (saved !== undefined) process.env.ANALYTICS_API_KEY = saved;
    }
  });

  it("delete succeeds and names the object left behind, without its secrets", async () => {
    const lines = captureStderr();
    try {
      await dispatch("dataSource", "delete", { settings: {} }, ["ds_1", { displayName: "WH", password: "never-print-me" }]);
    } finally {
      lines.restore();
    }
    expect(lines.text()).toMatch(/^warning: DataSource "WH" \(id ds_1\) was left in the analytics service: its API has no delete endpoint/);
    expect(lines.text()).not.toContain("never-print-me");
  });

  it("dates the status outputs of a create by the response's receipt, and never diffs on that output", async () => {
    const server = await startReferenceServer({ bootstrapUsers: ["alice"] });
    try {
      const state: ProviderState = { settings: { baseUrl: server.url, apiKey: server.apiKeys.alice! } };
      const before = new Date().toISOString();
      const created = (await dispatch("organization", "create", state, [{ name: "Acme" }])) as { outs: Record<string, unknown> };
      const after = new Date().toISOString();
      expect(created.outs).toMatchObject({ onboardingStatus: "STARTED", statusObservedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
      expect(created.outs.statusObservedAt! >= before && created.outs.statusObservedAt! <= after).toBe(true);
      // A stack created before this output existed: its state lacks it, and nothing changes.
      const { statusObservedAt: _dropped, ...olderOuts } = created.outs;
      for (const olds of [created.outs, olderOuts]) {
        await expect(dispatch("organization", "diff", state, ["org_1", olds, { name: "Acme" }])).resolves.toMatchObject({ changes: false });
      }
    } finally {
      await server.close();
    }
  });

  it("points to analytics-orphans once per provider process, on its first delete only", async () => {
    vi.resetModules();
    const fresh = await import("./provider-impl");
    const lines = captureStderr();
    try {
      for (const id of ["ds_1", "ds_2", "ds_3"]) await fresh.dispatch("dataSource", "delete", { settings: {} }, [id, { displayName: "WH" }]);
    } finally {
      lines.restore();
    }
    expect(lines.text().split("\n").filter((line) => line.startsWith("warning:"))).toHaveLength(3);
    expect(lines.text().split(fresh.ORPHANS_HINT)).toHaveLength(2);
    expect(lines.text().indexOf(fresh.ORPHANS_HINT)).toBeLessThan(lines.text().indexOf("ds_2"));
  });

  it("rejects a method it does not have", async () => {
    await expect(dispatch("organization", "read", { settings: {} }, [])).rejects.toThrow(/no method read/);
  });
});

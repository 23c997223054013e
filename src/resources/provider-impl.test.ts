import { describe, expect, it, vi } from "vitest";
import { ORPHANS_HINT } from "../provider-core/notices";
import { startReferenceServer } from "../reference-server";
import { dispatch, type ProviderState } from "./provider-impl";
import { captureStderr } from "../../test/support/capture-stderr";
import { startFlakyServer } from "../../test/support/flaky-server";

const config = (values: Record<string, string>) => ({ get: (key: string) => values[key] });

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
    expect(
      lines
        .text()
        .split("\n")
        .filter((line) => line.startsWith("warning:")),
    ).toHaveLength(3);
    expect(lines.text().split(ORPHANS_HINT)).toHaveLength(2);
    expect(lines.text().indexOf(ORPHANS_HINT)).toBeLessThan(lines.text().indexOf("ds_2"));
  });

  it("prints a create's retries on stderr, naming the object", async () => {
    const server = await startFlakyServer(1);
    const lines = captureStderr();
    try {
      const state: ProviderState = { settings: { baseUrl: server.url, apiKey: "analytics_key_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345" } };
      await expect(dispatch("organization", "create", state, [{ name: "Acme" }])).resolves.toMatchObject({ id: "org_Acme" });
    } finally {
      lines.restore();
      await server.close();
    }
    expect(lines.text()).toBe('info: Retrying the create of organization "Acme" in 0 s (attempt 1 failed: HTTP 503).\n');
  });

  it("rejects a partial create with the id and outputs Pulumi's host packs as ErrorResourceInitFailed, the serialized provider among them; its update sends nothing", async () => {
    const server = await startReferenceServer({ bootstrapUsers: ["alice"], faults: { unrecordableAnswerNext: 1 } });
    try {
      const state: ProviderState = { settings: { baseUrl: server.url, apiKey: server.apiKeys.alice! } };
      const inputs = { name: "Deep", __provider: "serialized-provider-text" };
      const failure = (await dispatch("organization", "create", state, [inputs]).catch((error: unknown) => error)) as Record<string, unknown>;
      const [org] = server.inspect.organizations();
      expect(failure).toMatchObject({
        code: "ANALYTICS_PARTIAL_CREATE",
        id: org!.id,
        message: expect.stringMatching(/^Organization "Deep" \(id org_\w+\) was created/),
      });
      expect(failure.properties).toMatchObject({ id: org!.id, name: "Deep", slug: "deep", __provider: "serialized-provider-text" });
      expect(failure.properties).not.toHaveProperty("nested");
      expect(failure.reasons).toEqual([failure.message]);
      expect(failure.message).toMatch(/could be recorded \(the answer's field nested is nested more than 1000 levels deep/);

      const updated = await dispatch("organization", "update", state, [org!.id, failure.properties, { name: "Deep", __provider: "newer-text" }]);
      const { __provider: _provider, ...recorded } = failure.properties as Record<string, unknown>;
      expect(updated).toEqual({ outs: recorded });
      expect(server.inspect.organizations()).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("rejects a method it does not have", async () => {
    await expect(dispatch("organization", "read", { settings: {} }, [])).rejects.toThrow(/no method read/);
  });
});

/**
 * docs/architecture.md says a new kind needs a spec file, one line in `KINDS` and a thin class;
 * everything else reads the specs. This file holds it to that: it registers a throwaway third kind
 * (here only) before loading the layers, and checks that each one picks the kind up.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { dynamicTypeToken, nativeTypeToken, type KINDS as Kinds } from "../src/kinds";
import { widgetSpec } from "./support/widget-kind";

// Registered before any layer loads, as the one line in src/kinds/index.ts would do it. The unit
// tier's files share their worker's loaded modules (test/tiers.js), so the layers are loaded
// afresh for this file, and again for the next file once the kind is gone.
let kinds: typeof Kinds;
beforeAll(async () => {
  vi.resetModules();
  ({ KINDS: kinds } = await import("../src/kinds"));
  Object.assign(kinds, { widget: widgetSpec });
});
afterAll(() => {
  delete (kinds as Record<string, unknown>).widget;
  vi.resetModules();
});
const WIDGET = "widget" as never;
const TOKEN = "w1dget-t0ken-S3CRET";

describe("a third kind registered in src/kinds alone", () => {
  it("gets a contract: its create body is validated, a credential described and never quoted", async () => {
    const { requestSchema, validate } = await import("../src/contract");
    const result = validate(requestSchema(widgetSpec), { title: "Sales", token: "short-S3CR", colour: "red" });
    expect(result).toEqual({
      ok: false,
      errors: [
        { field: "token", reason: "must be at least 12 characters long, got a 10-character string" },
        { field: "colour", reason: "is not a field of this request" },
      ],
    });
    expect(validate(requestSchema(widgetSpec), { title: "Sales" })).toEqual({ ok: true, value: { title: "Sales", pinned: false } });
  });

  it("gets the native provider's type token, check with its secret wrapped, and preview create", async () => {
    const { NativeProvider } = await import("../src/native/provider");
    const { SECRET_SIG, SIG_KEY, UNKNOWN } = await import("../src/native/property-values");
    const urn = `urn:pulumi:s::p::${nativeTypeToken(widgetSpec)}::w`;
    expect(nativeTypeToken(widgetSpec)).toBe("analytics:index:Widget");
    const provider = new NativeProvider();
    const checked = await provider.check(urn, { orgId: "org_1", title: "Sales", token: TOKEN });
    expect(checked).toEqual({ inputs: { orgId: "org_1", title: "Sales", token: { [SIG_KEY]: SECRET_SIG, value: TOKEN }, pinned: false }, failures: [] });
    expect((await provider.create(urn, checked.inputs, true)).properties).toMatchObject({ id: UNKNOWN, title: "Sales", statusObservedAt: UNKNOWN });
  });

  it("gets the providers' check and diff, its secrets and a replace on any change", async () => {
    const { dispatch } = await import("../src/resources/provider-impl");
    const state = { settings: {} };
    const checked = (await dispatch(WIDGET, "check", state, [{}, { orgId: "org_1", title: "Sales", token: TOKEN }])) as { inputs: object; failures: unknown[] };
    expect(checked).toEqual({ inputs: { orgId: "org_1", title: "Sales", token: TOKEN, pinned: false }, failures: [] });
    const missing = (await dispatch(WIDGET, "check", state, [{}, { title: "Sales" }])) as { failures: Array<{ property: string }> };
    expect(missing.failures.map((f) => f.property)).toEqual(["orgId"]);
    const { secretInputs, diffInputs } = await import("../src/provider-core/inputs");
    expect(secretInputs(WIDGET)).toEqual(["token"]);
    expect(diffInputs(WIDGET, { ...checked.inputs }, { ...checked.inputs, token: "another-token-value" })).toEqual({
      changes: true,
      replaces: ["token"],
      deleteBeforeReplace: false,
    });
  });

  it("gets a resource class from the shared base: outputs declared, credentials secret, its own type token", async () => {
    const { registeredOptions, registeredProperties } = await import("../src/resources/kind-resource");
    const { providerFor } = await import("../src/resources/serialized-provider");
    const props = registeredProperties(widgetSpec, { orgId: "org_1", title: "Sales", token: TOKEN });
    expect(Object.keys(props).sort()).toEqual(["orgId", "pinned", "statusObservedAt", "title", "token"]);
    expect(props.token).not.toBe(TOKEN); // wrapped as a secret Output
    expect(registeredOptions(widgetSpec, undefined)).toEqual({ additionalSecretOutputs: ["token"] });
    expect(Object.keys(providerFor(WIDGET))).toEqual(["configure", "check", "diff", "create", "delete"]);
    expect(dynamicTypeToken(widgetSpec)).toBe("pulumi-nodejs:dynamic/analytics:Widget");
  });

  describe("the client", () => {
    let server: http.Server;
    let url = "";
    const seen: Array<{ path: string | undefined; body: string }> = [];
    beforeAll(async () => {
      server = http.createServer((req, res) => {
        let body = "";
        req.on("data", (chunk: Buffer) => (body += chunk.toString()));
        req.on("end", () => {
          seen.push({ path: req.url, body });
          // A careless server that echoes the credential back in its error.
          res.writeHead(400, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { title: "ValidationError", detail: `token ${TOKEN} was refused` } }));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it("posts on the kind's endpoint and redacts its credential from the error", async () => {
      const { AnalyticsClient } = await import("../src/client");
      const client = new AnalyticsClient({ baseUrl: url, apiKey: "analytics_key_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345" });
      const error = await client.createObject(widgetSpec, { title: "Sales", token: TOKEN }, { orgId: "org_1" }).then(
        () => undefined,
        (e: Error) => e,
      );
      await client.close();
      expect(seen.map((s) => s.path)).toEqual(["/api/public/organizations/org_1/widgets"]);
      expect(JSON.parse(seen[0]!.body)).toEqual({ title: "Sales", token: TOKEN });
      expect(error?.message).toBe("ValidationError: token [redacted] was refused (HTTP 400)");
      expect(error?.message).not.toContain(TOKEN);
    });
  });

  it("gets a reference server route (answered 501 until the server emulates it) and fault settings", async () => {
    const { startReferenceServer, FAULT_ROUTES } = await import("../src/reference-server");
    expect(FAULT_ROUTES).toEqual(["createOrganization", "createDataSource", "createWidget"]);
    const server = await startReferenceServer({ bootstrapUsers: ["alice"], logger: () => undefined });
    try {
      server.faults.set({ routes: { createWidget: { latencyMs: 1 } } } as never);
      const post = (path: string) =>
        fetch(`${server.url}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${server.apiKeys.alice}`, "content-type": "application/json" },
          body: JSON.stringify({ title: "Sales" }),
        }).then(async (res) => ({ status: res.status, body: (await res.json()) as { error: { title: string; detail: string } } }));
      const widget = await post("/api/public/organizations/org_1/widgets");
      expect(widget).toEqual({ status: 501, body: { error: { title: "NotImplemented", detail: "The reference server does not emulate createWidget yet." } } });
      expect((await post("/api/public/organizations/org_1/gadgets")).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it("gets the credential policy: its secrets are looked for in its plain-text inputs", async () => {
    const { noPlaintextCredentials } = await import("../src/policy/policies");
    const violations: string[] = [];
    const validate = noPlaintextCredentials.validateResource as (args: object, report: (message: string) => void) => void;
    validate({ type: dynamicTypeToken(widgetSpec), name: "w", props: { title: `copy of ${TOKEN}`, token: TOKEN } }, (m) => violations.push(m));
    expect(violations).toEqual(['Widget "w": credential value repeated in plain text: token (in title). Keep credentials only in their secret fields.']);
  });

  it("gets listed by analytics-orphans once the stack lets it go", async () => {
    const { findOrphans } = await import("../src/orphans/orphans");
    const widget = { urn: "urn:pulumi:dev::p::pulumi-nodejs:dynamic/analytics:Widget::sales", type: dynamicTypeToken(widgetSpec), id: "w_1", outputs: { title: "Sales" } };
    const orphans = findOrphans([
      { time: "2026-01-01T00:00:00Z", resources: [widget] },
      { time: "2026-01-02T00:00:00Z", resources: [] },
    ]);
    expect(orphans).toEqual([{ type: "Widget", id: "w_1", name: "Sales", resourceName: "sales", leftAt: "2026-01-02T00:00:00Z" }]);
  });
});

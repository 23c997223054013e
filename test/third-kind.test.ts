/**
 * CONTRIBUTING's walkthrough "Add a kind", taken step by step in-process with the widget kind of
 * test/support/ (widget-kind.ts, widget-resource.ts): each step's code in the walkthrough is the
 * code this file runs, or, for a file it cannot change here (src/kinds/index.ts, src/index.ts), the
 * form that file already takes with the new kind's names in it. The kind is registered before any
 * layer loads and removed when the file ends, and each layer the walkthrough says reads `KINDS` is
 * checked to pick it up. A step that stops working, or a walkthrough that no longer shows what this
 * file does, fails here.
 */
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { dynamicTypeToken, nativeTypeToken, type KINDS as Kinds } from "../src/kinds";
import { kindSourceFiles } from "../tools/generate-schema.js";
import { fencedBlocks, section } from "./support/markdown";
import { repoRoot } from "./support/pulumi-workspace";
import { widgetSpec } from "./support/widget-kind";

const read = (file: string): string => fs.readFileSync(path.join(repoRoot, file), "utf8");
const walkthrough = section(read("CONTRIBUTING.md"), "Add a kind") ?? "";
/** The walkthrough's code, in its order: the spec, the line in `KINDS`, the class, the root's exports. */
const [specStep, kindsStep, classStep, exportStep] = fencedBlocks(walkthrough)
  .filter((block) => block.language === "ts")
  .map((block) => block.body);

/** Lines without their indentation, so an excerpt may sit at any depth. */
const lines = (text: string): string[] =>
  text
    .trimEnd()
    .split("\n")
    .map((line) => line.trim());
/**
 * Whether `excerpt`'s lines stand one after another in `source`'s, leaving out the source's
 * `@ts-expect-error` lines: a test's copy of a file that src/ does not hold needs one where the
 * kind is not registered in src/kinds/index.ts.
 */
function isExcerpt(excerpt: string | undefined, source: string): boolean {
  if (!excerpt) return false;
  const want = lines(excerpt);
  const have = lines(source).filter((line) => !line.startsWith("// @ts-expect-error"));
  return have.some((_, start) => want.every((line, k) => have[start + k] === line));
}

/** The entries of a `KINDS` declaration, `key: spec` each, in order. */
const kindsEntries = (line: string): Array<[string, string]> => [...(/\{([^}]*)\}/.exec(line)?.[1] ?? "").matchAll(/(\w+): (\w+)/g)].map((m) => [m[1]!, m[2]!]);
const kindsLine = (text: string): string => text.split("\n").find((line) => line.startsWith("export const KINDS = ")) ?? "";
/** The walkthrough's `KINDS` entry for the new kind: the one the repository's line lacks. */
const [newKind, newSpec] = kindsEntries(kindsLine(kindsStep ?? "")).find(
  ([key]) => !kindsEntries(kindsLine(read("src/kinds/index.ts"))).some(([have]) => have === key),
) ?? ["", ""];

// Registered before any layer loads, as the walkthrough's line in src/kinds/index.ts would do it.
// The unit tier's files share their worker's loaded modules (test/tiers.js), so the layers are
// loaded afresh for this file, and again for the next file once the kind is gone.
let kinds: typeof Kinds;
beforeAll(async () => {
  vi.resetModules();
  ({ KINDS: kinds } = await import("../src/kinds"));
  Object.assign(kinds, { [newKind]: widgetSpec });
});
afterAll(() => {
  delete (kinds as Record<string, unknown>)[newKind];
  vi.resetModules();
});
const WIDGET = "widget" as never;
const TOKEN = "w1dget-t0ken-S3CRET";

describe("the walkthrough's steps", () => {
  it("has a step for the spec, the line in KINDS, the class and the package root's exports", () => {
    expect(walkthrough).toContain("## Add a kind");
    for (const step of [specStep, kindsStep, classStep, exportStep]) expect(step).toBeTruthy();
  });

  it("1. declares the spec that test/support/widget-kind.ts holds, in the file the schema generator reads its doc comments from", () => {
    expect(isExcerpt(specStep, read("test/support/widget-kind.ts")), "the walkthrough's spec is test/support/widget-kind.ts's").toBe(true);
    const files = kindSourceFiles(widgetSpec);
    expect(files).toEqual({ spec: "src/kinds/widget.ts", declaration: "widgetSpec", resource: "src/resources/widget.ts" });
    for (const named of [files.spec, files.resource, `import type { KindSpec } from "./spec"`]) expect(walkthrough).toContain(named);
    expect(specStep).toContain(`export const ${files.declaration} = {`);
    expect(read("src/kinds/spec.ts")).toMatch(/^export (?:interface|type) KindSpec\b/m);
  });

  it("2. adds one entry to KINDS's line as src/kinds/index.ts has it: the kind string, the spec", () => {
    const repository = kindsLine(read("src/kinds/index.ts"));
    expect(repository).not.toBe("");
    expect([newKind, newSpec]).toEqual([widgetSpec.kind, "widgetSpec"]);
    expect(kindsLine(kindsStep ?? "").replace(`, ${newKind}: ${newSpec}`, "")).toBe(repository);
  });

  it("3. declares the class that test/support/widget-resource.ts holds, in src/resources/", () => {
    expect(isExcerpt(classStep, read("test/support/widget-resource.ts")), "the walkthrough's class is test/support/widget-resource.ts's").toBe(true);
  });

  it("4. exports the class as src/index.ts exports the data source's, and names it where test/hover-docs.test.ts lists the classes", () => {
    const asDataSource = (exportStep ?? "")
      .replace(/Widget/g, "DataSource")
      .replace(/\/widget"/g, '/data-source"')
      .trim();
    expect(asDataSource.split("\n")).toHaveLength(2);
    expect(read("src/index.ts")).toContain(asDataSource);
    expect(read("test/hover-docs.test.ts")).toContain('["OrganizationArgs", "DataSourceArgs", "Organization", "DataSource"]');
  });

  it("5. leaves the reference server's emulation to the files it names, and 6. regenerates with the one command", () => {
    expect(read("src/reference-server/public-routes.ts")).toMatch(/\bCREATES\b/);
    for (const file of ["src/reference-server/state/store.ts", "src/reference-server/state/views.ts"])
      expect(fs.existsSync(path.join(repoRoot, file)), file).toBe(true);
    expect(walkthrough).toContain("npm run regenerate");
    expect(JSON.parse(read("package.json")).scripts.regenerate).toBeTruthy();
  });
});

describe("a third kind registered in KINDS alone", () => {
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

  it("gets a resource class from the shared base: registered with its type token, outputs declared, credentials secret", async () => {
    const pulumi = await import("@pulumi/pulumi");
    const registered = new Map<string, { type: string; inputs: Record<string, unknown> }>();
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => {
          registered.set(args.name, { type: args.type, inputs: args.inputs });
          return { id: `${args.name}-id`, state: { ...args.inputs, title: "Sales", pinned: false } };
        },
        call: () => ({}),
      },
      "project",
      "stack",
      false,
    );
    const { Widget } = await import("./support/widget-resource");
    const widget = new Widget("sales", { orgId: "org_1", title: "Sales", token: TOKEN });
    const value = <T>(output: import("@pulumi/pulumi").Output<T>): Promise<T> => new Promise((resolve) => output.apply(resolve));
    expect(await value(widget.title)).toBe("Sales");
    expect(await (widget.token as unknown as { isSecret: Promise<boolean> }).isSecret).toBe(true);
    expect(Widget.isInstance(widget)).toBe(true);
    expect(registered.get("sales")?.type).toBe("pulumi-nodejs:dynamic/analytics:Widget");
    expect(Object.keys(registered.get("sales")?.inputs ?? {}).sort()).toEqual(["__provider", "orgId", "title", "token"]);
    // Every output declared, the answer's and the status time the providers add.
    expect(await value(widget.pinned)).toBe(false);
    expect(pulumi.Output.isInstance(widget.statusObservedAt)).toBe(true);
    const { registeredOptions } = await import("../src/resources/kind-resource");
    const { providerFor } = await import("../src/resources/serialized-provider");
    expect(registeredOptions(widgetSpec, undefined)).toEqual({ additionalSecretOutputs: ["token"] });
    expect(Object.keys(providerFor(WIDGET))).toEqual(["configure", "check", "diff", "create", "update", "delete"]);
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
    const widget = {
      urn: "urn:pulumi:dev::p::pulumi-nodejs:dynamic/analytics:Widget::sales",
      type: dynamicTypeToken(widgetSpec),
      id: "w_1",
      outputs: { title: "Sales" },
    };
    const orphans = findOrphans([
      { time: "2026-01-01T00:00:00Z", resources: [widget] },
      { time: "2026-01-02T00:00:00Z", resources: [] },
    ]);
    expect(orphans).toEqual([{ type: "Widget", id: "w_1", name: "Sales", resourceName: "sales", leftAt: "2026-01-02T00:00:00Z" }]);
  });
});

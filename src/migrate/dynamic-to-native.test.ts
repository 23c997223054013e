import { describe, expect, it } from "vitest";
import { AnalyticsError } from "../errors";
import { MigrationRefusedError, formatSummary, migrateDynamicToNative, type ResourceJson, type StackExportJson } from "./dynamic-to-native";

const P = "urn:pulumi:dev::app";
const D_ORG = "pulumi-nodejs:dynamic/analytics:Organization";
const D_DS = "pulumi-nodejs:dynamic/analytics:DataSource";
const N_ORG = "analytics:index:Organization";
const N_DS = "analytics:index:DataSource";
const STACK = `${P}::pulumi:pulumi:Stack::app-dev`;
const DYN_PROVIDER = `${P}::pulumi:providers:pulumi-nodejs::default`;
const DYN_REF = `${DYN_PROVIDER}::0b0b0b0b-1111-2222-3333-444444444444`;
const ID = "7721a568-90d2-4546-a999-c4b22cb9baf1";
const SECRET = "4dabf18193072939515e22adb298388d";
const KEY_CIPHER = { [SECRET]: "1b47061264138c4ac30d75fd1eb44270", ciphertext: "v1:KEY:ciphertext==" };
const PW_CIPHER = { [SECRET]: "1b47061264138c4ac30d75fd1eb44270", ciphertext: "v1:PW:ciphertext==" };
const SERIALIZED = "exports.handler = __f0;\nvar __state = {}";

const stack: ResourceJson = { urn: STACK, custom: false, type: "pulumi:pulumi:Stack", outputs: { orgId: "org_1" } };
const dynProvider: ResourceJson = {
  urn: DYN_PROVIDER,
  custom: true,
  id: DYN_REF.split("::").pop()!,
  type: "pulumi:providers:pulumi-nodejs",
  inputs: { "analytics:apiKey": KEY_CIPHER, "analytics:baseUrl": "http://127.0.0.1:1", "fixture:password": PW_CIPHER },
  outputs: { "analytics:apiKey": KEY_CIPHER, "analytics:baseUrl": "http://127.0.0.1:1", "fixture:password": PW_CIPHER },
  created: "2026-01-01T00:00:00Z",
  modified: "2026-01-01T00:00:00Z",
};
const org: ResourceJson = {
  urn: `${P}::${D_ORG}::org`,
  custom: true,
  id: "org_1",
  type: D_ORG,
  inputs: { __provider: SERIALIZED, name: "Acme" },
  outputs: { __provider: SERIALIZED, id: "org_1", name: "Acme", slug: "acme" },
  parent: STACK,
  provider: DYN_REF,
  propertyDependencies: { __provider: [], name: [] },
};
const ds: ResourceJson = {
  urn: `${P}::${D_DS}::warehouse`,
  custom: true,
  id: "ds_1",
  type: D_DS,
  inputs: { __provider: SERIALIZED, orgId: "org_1", displayName: "WH", password: PW_CIPHER },
  outputs: { __provider: SERIALIZED, id: "ds_1", orgId: "org_1", displayName: "WH", password: PW_CIPHER },
  parent: STACK,
  dependencies: [`${P}::${D_ORG}::org`],
  provider: DYN_REF,
  propertyDependencies: { __provider: [], orgId: [`${P}::${D_ORG}::org`], displayName: [], password: [] },
  additionalSecretOutputs: ["password"],
};

const exportOf = (...resources: ResourceJson[]): StackExportJson => ({
  version: 3,
  deployment: { manifest: { version: "v3.188.0" }, secrets_providers: { type: "passphrase", state: { salt: "v1:x" } }, resources, metadata: {} },
});
const migrate = (exported: unknown, options = {}) => migrateDynamicToNative(exported, { providerId: ID, ...options });
const byUrn = (exported: StackExportJson, urn: string) => exported.deployment.resources?.find((r) => r.urn === urn);

describe("migrateDynamicToNative", () => {
  it("moves an organization and its data source to the native types, same ids, owned by a new default provider", () => {
    const input = exportOf(stack, dynProvider, org, ds);
    const frozen = JSON.stringify(input);
    const { exported, summary } = migrate(input);
    expect(JSON.stringify(input)).toBe(frozen);
    const ref = `${P}::pulumi:providers:analytics::default::${ID}`;
    expect(exported.deployment.resources?.map((r) => r.urn)).toEqual([
      STACK,
      `${P}::pulumi:providers:analytics::default`,
      `${P}::${N_ORG}::org`,
      `${P}::${N_DS}::warehouse`,
    ]);
    expect(byUrn(exported, `${P}::pulumi:providers:analytics::default`)).toEqual({
      urn: `${P}::pulumi:providers:analytics::default`,
      custom: true,
      id: ID,
      type: "pulumi:providers:analytics",
      inputs: { apiKey: KEY_CIPHER, baseUrl: "http://127.0.0.1:1" },
      outputs: { apiKey: KEY_CIPHER, baseUrl: "http://127.0.0.1:1" },
      created: "2026-01-01T00:00:00Z",
      modified: "2026-01-01T00:00:00Z",
    });
    expect(byUrn(exported, `${P}::${N_ORG}::org`)).toEqual({
      ...org,
      urn: `${P}::${N_ORG}::org`,
      type: N_ORG,
      provider: ref,
      inputs: { name: "Acme" },
      outputs: { id: "org_1", name: "Acme", slug: "acme" },
      propertyDependencies: { name: [] },
    });
    expect(byUrn(exported, `${P}::${N_DS}::warehouse`)).toEqual({
      ...ds,
      urn: `${P}::${N_DS}::warehouse`,
      type: N_DS,
      provider: ref,
      dependencies: [`${P}::${N_ORG}::org`],
      inputs: { orgId: "org_1", displayName: "WH", password: PW_CIPHER },
      outputs: { id: "ds_1", orgId: "org_1", displayName: "WH", password: PW_CIPHER },
      propertyDependencies: { orgId: [`${P}::${N_ORG}::org`], displayName: [], password: [] },
    });
    // Everything else of the export is kept.
    expect({ ...exported, deployment: { ...exported.deployment, resources: [] } }).toEqual({ ...input, deployment: { ...input.deployment, resources: [] } });
    expect(summary).toEqual({
      moved: [
        { typeName: "Organization", id: "org_1", from: org.urn, to: `${P}::${N_ORG}::org` },
        { typeName: "DataSource", id: "ds_1", from: ds.urn, to: `${P}::${N_DS}::warehouse` },
      ],
      renamedChildren: [],
      provider: { urn: `${P}::pulumi:providers:analytics::default`, id: ID, added: true, settings: ["apiKey", "baseUrl"] },
      removedProviders: [DYN_PROVIDER],
      referencesRewritten: 2,
      warnings: [],
    });
  });

  it.each([
    ["a program that pins no version", {}, "default", undefined],
    ["a pinned version", { providerVersion: "0.1.0" }, "default_0_1_0", "0.1.0"],
    ["a prerelease", { providerVersion: "1.2.0-alpha.1" }, "default_1_2_0_alpha_1", "1.2.0-alpha.1"],
  ])("names the default provider as the engine does for %s", (_, options, name, version) => {
    const { exported } = migrate(exportOf(stack, dynProvider, org), options);
    const provider = byUrn(exported, `${P}::pulumi:providers:analytics::${name}`);
    expect(provider?.inputs?.version).toBe(version);
    expect(byUrn(exported, `${P}::${N_ORG}::org`)?.provider).toBe(`${P}::pulumi:providers:analytics::${name}::${ID}`);
  });

  it("rewrites every reference to a changed URN: children's type paths, parent, deletedWith, aliases, dependencies", () => {
    const childUrn = `${P}::${D_ORG}$my:index:Extra::extra`;
    const child: ResourceJson = {
      urn: childUrn,
      custom: false,
      type: "my:index:Extra",
      parent: org.urn,
      deletedWith: org.urn,
      aliases: [`${P}::my:index:Extra::extra`, org.urn],
    };
    const other: ResourceJson = {
      urn: `${P}::my:index:Thing::t`,
      custom: false,
      type: "my:index:Thing",
      dependencies: [childUrn, ds.urn],
      propertyDependencies: { a: [ds.urn] },
    };
    const { exported, summary } = migrate(exportOf(stack, dynProvider, org, child, ds, other));
    const newChild = `${P}::${N_ORG}$my:index:Extra::extra`;
    expect(byUrn(exported, newChild)).toMatchObject({
      parent: `${P}::${N_ORG}::org`,
      deletedWith: `${P}::${N_ORG}::org`,
      aliases: [`${P}::my:index:Extra::extra`, `${P}::${N_ORG}::org`],
    });
    expect(byUrn(exported, other.urn)).toMatchObject({
      dependencies: [newChild, `${P}::${N_DS}::warehouse`],
      propertyDependencies: { a: [`${P}::${N_DS}::warehouse`] },
    });
    expect(summary.renamedChildren).toEqual([{ from: childUrn, to: newChild }]);
    expect(summary.referencesRewritten).toBe(2 + 3 + 3);
    expect(JSON.stringify(exported)).not.toMatch(/pulumi-nodejs:dynamic\/analytics/);
  });

  it("moves a pending delete of a replaced object along with its live twin", () => {
    const old = { ...org, id: "org_0", delete: true, outputs: { ...org.outputs, id: "org_0" } };
    const { exported, summary } = migrate(exportOf(stack, dynProvider, old, org));
    expect(exported.deployment.resources?.filter((r) => r.urn === `${P}::${N_ORG}::org`).map((r) => [r.id, r.delete])).toEqual([
      ["org_0", true],
      ["org_1", undefined],
    ]);
    expect(summary.moved.map((m) => m.id)).toEqual(["org_0", "org_1"]);
  });

  it("keeps the dynamic default provider while another dynamic resource uses it", () => {
    const other: ResourceJson = {
      urn: `${P}::pulumi-nodejs:dynamic:Resource::x`,
      custom: true,
      id: "x",
      type: "pulumi-nodejs:dynamic:Resource",
      provider: DYN_REF,
      inputs: { __provider: "other" },
    };
    const { exported, summary } = migrate(exportOf(stack, dynProvider, org, other));
    expect(byUrn(exported, DYN_PROVIDER)).toEqual(dynProvider);
    expect(byUrn(exported, other.urn)).toEqual(other);
    expect(summary.removedProviders).toEqual([]);
  });

  it("reuses a native default provider already in the stack, settings as they are", () => {
    const nativeProvider: ResourceJson = {
      urn: `${P}::pulumi:providers:analytics::default`,
      custom: true,
      id: "existing-id",
      type: "pulumi:providers:analytics",
      inputs: { baseUrl: "http://x" },
      outputs: { baseUrl: "http://x" },
    };
    const nativeOrg: ResourceJson = { urn: `${P}::${N_ORG}::org2`, custom: true, id: "org_2", type: N_ORG, provider: `${nativeProvider.urn}::existing-id` };
    const { exported, summary } = migrate(exportOf(stack, dynProvider, nativeProvider, nativeOrg, org));
    expect(exported.deployment.resources?.filter((r) => r.type === "pulumi:providers:analytics")).toEqual([nativeProvider]);
    expect(byUrn(exported, `${P}::${N_ORG}::org`)?.provider).toBe(`${nativeProvider.urn}::existing-id`);
    expect(summary.provider).toMatchObject({ id: "existing-id", added: false });
  });

  it.each<[string, unknown, RegExp]>([
    ["not an export", { resources: [] }, /not a stack export/],
    ["a list", [], /not a stack export/],
    ["an unknown deployment version", { version: 9, deployment: { resources: [] } }, /deployment version 9/],
    ["resources that are not a list", { version: 3, deployment: { resources: {} } }, /not a list/],
    ["a resource without a URN", exportOf({ type: D_ORG } as ResourceJson), /#0 .*no valid urn/],
    ["a malformed URN", exportOf({ urn: "org", type: D_ORG }), /#0 .*no valid urn/],
    [
      "pending operations",
      { ...exportOf(stack, dynProvider, org), deployment: { ...exportOf(stack, dynProvider, org).deployment, pending_operations: [{ type: "creating" }] } },
      /pending operation/,
    ],
    ["a stack already on the native provider", exportOf(stack, { ...org, type: N_ORG, urn: `${P}::${N_ORG}::org` }), /already on the native provider/],
    ["a stack without analytics resources", exportOf(stack), /nothing to migrate/],
    [
      "an analytics kind this release does not know",
      exportOf(stack, dynProvider, { ...org, type: "pulumi-nodejs:dynamic/analytics:Widget", urn: `${P}::pulumi-nodejs:dynamic/analytics:Widget::w` }),
      /Widget, which this release does not know/,
    ],
    ["a resource whose provider is not in the export", exportOf(stack, org), /has no provider the export holds/],
    ["a resource without a provider", exportOf(stack, dynProvider, (({ provider: _p, ...rest }) => rest)(org)), /has no provider the export holds/],
    [
      "an explicit provider",
      exportOf(
        stack,
        { ...dynProvider, urn: `${P}::pulumi:providers:pulumi-nodejs::mine` },
        { ...org, provider: `${P}::pulumi:providers:pulumi-nodejs::mine::${dynProvider.id}` },
      ),
      /not the dynamic default provider/,
    ],
    [
      "a native resource already under the new URN",
      exportOf(stack, dynProvider, org, { ...org, type: N_ORG, urn: `${P}::${N_ORG}::org` }),
      /already has a resource .*analytics:index:Organization::org/,
    ],
  ])("refuses %s", (_, input, message) => {
    expect(() => migrate(input)).toThrow(MigrationRefusedError);
    expect(() => migrate(input)).toThrow(message);
    // Like every error of the package: an AnalyticsError with a code to branch on.
    expect(() => migrate(input)).toThrow(expect.objectContaining({ name: "AnalyticsError", code: "ANALYTICS_MIGRATION_REFUSED" }));
    try {
      migrate(input);
    } catch (error) {
      expect(error).toBeInstanceOf(AnalyticsError);
    }
  });

  it("summarises with URNs, ids and setting names, never a value, even of a --show-secrets export", () => {
    const plain = { [SECRET]: "1b47061264138c4ac30d75fd1eb44270", plaintext: '"key-in-plain-text-123"' };
    const provider = { ...dynProvider, inputs: { ...dynProvider.inputs, "analytics:apiKey": plain } };
    const { summary } = migrate(exportOf(stack, provider, org, ds));
    const text = formatSummary(summary) + JSON.stringify(summary);
    for (const value of ["key-in-plain-text-123", "v1:KEY", "v1:PW", "http://127.0.0.1:1"]) expect(text).not.toContain(value);
    expect(formatSummary(summary)).toContain(
      "Organization org_1: urn:pulumi:dev::app::pulumi-nodejs:dynamic/analytics:Organization::org -> urn:pulumi:dev::app::analytics:index:Organization::org",
    );
    expect(formatSummary(summary)).toContain("settings apiKey, baseUrl copied encrypted");
    expect(summary.warnings).toEqual([expect.stringContaining("--show-secrets")]);
  });

  it("warns when a program value holds an old URN", () => {
    const withUrn = { ...stack, outputs: { orgUrn: org.urn } };
    expect(migrate(exportOf(withUrn, dynProvider, org)).summary.warnings).toEqual([expect.stringContaining(`${STACK} holds a moved resource's old URN`)]);
  });
});

import { execFileSync } from "node:child_process";
import * as path from "node:path";
import type { ResourceValidation, ResourceValidationArgs, ResourceValidationPolicy } from "@pulumi/policy";
import { describe, expect, it } from "vitest";
import { DataSource } from "../resources/data-source";
import { Organization } from "../resources/organization";
import { analyticsPolicies, namingConvention, noPlaintextCredentials, productionHosts, sslRequired } from "./policies";
import { assertPolicySdk } from "./policy-sdk";

const DATA_SOURCE = "pulumi-nodejs:dynamic/analytics:DataSource";
const ORGANIZATION = "pulumi-nodejs:dynamic/analytics:Organization";

class NotApplicable extends Error {}

/** Runs a policy the way the policy SDK's analyzer does, returning the messages it reported. */
async function run(
  policy: ResourceValidationPolicy,
  type: string,
  props: Record<string, unknown>,
  options: { stack?: string; config?: object } = {},
): Promise<string[]> {
  const messages: string[] = [];
  const args = {
    type,
    props,
    urn: `urn:pulumi:${options.stack ?? "dev"}::app::${type}::res`,
    name: "res",
    isType: (cls: { isInstance(o: unknown): boolean }) => cls.isInstance({ __pulumiType: type }),
    getConfig: () => options.config ?? {},
    notApplicable: () => {
      throw new NotApplicable();
    },
  } as unknown as ResourceValidationArgs;
  const validations = ([] as (ResourceValidation | undefined)[]).concat(policy.validateResource).filter((v): v is ResourceValidation => v !== undefined);
  for (const validate of validations) {
    try {
      await validate(args, (message) => messages.push(message));
    } catch (err) {
      if (!(err instanceof NotApplicable)) throw err;
    }
  }
  return messages;
}

describe("typed resource classes", () => {
  it("carry the type tokens the engine records, and recognize them by token", () => {
    expect(DataSource.__pulumiType).toBe(DATA_SOURCE);
    expect(Organization.__pulumiType).toBe(ORGANIZATION);
    expect(DataSource.isInstance({ __pulumiType: DATA_SOURCE })).toBe(true);
    expect(DataSource.isInstance({ __pulumiType: ORGANIZATION })).toBe(false);
    expect(Organization.isInstance({ __pulumiType: ORGANIZATION })).toBe(true);
    expect(Organization.isInstance(undefined)).toBe(false);
  });
});

describe("the analytics policies", () => {
  it("have unique names, descriptions and the documented default levels", () => {
    expect(analyticsPolicies.map((p) => [p.name, p.enforcementLevel])).toEqual([
      ["analytics-ssl-required", "mandatory"],
      ["analytics-ssh-key-auth", "advisory"],
      ["analytics-no-plaintext-credentials", "mandatory"],
      ["analytics-production-hosts", "mandatory"],
      ["analytics-naming", "disabled"],
    ]);
    for (const policy of analyticsPolicies) expect(policy.description.length).toBeGreaterThan(20);
  });

  it("apply to their resource type only, and name the resource", async () => {
    expect(await run(sslRequired, DATA_SOURCE, { sslEnabled: false })).toEqual([expect.stringMatching(/^Data source "res": sslEnabled is false/)]);
    expect(await run(sslRequired, ORGANIZATION, { sslEnabled: false })).toEqual([]);
    expect(await run(sslRequired, "aws:rds/instance:Instance", { sslEnabled: false })).toEqual([]);
  });

  it("apply to the native provider's type tokens as to the dynamic classes'", async () => {
    const native = { dataSource: "analytics:index:DataSource", organization: "analytics:index:Organization" };
    expect(await run(sslRequired, native.dataSource, { sslEnabled: false })).toEqual([expect.stringMatching(/^Data source "res": sslEnabled is false/)]);
    expect(await run(sslRequired, native.organization, { sslEnabled: false })).toEqual([]);
    expect(await run(noPlaintextCredentials, native.dataSource, { password: "hunter22", username: "hunter22" })).toHaveLength(1);
    expect(await run(namingConvention, native.organization, { name: "Acme" }, { config: { organizationPattern: "^[a-z]+$" } })).toHaveLength(1);
  });

  it("check hosts only in production stacks, as configured", async () => {
    expect(await run(productionHosts, DATA_SOURCE, { host: "10.0.0.1" }, { stack: "dev" })).toEqual([]);
    expect(await run(productionHosts, DATA_SOURCE, { host: "10.0.0.1" }, { stack: "prod" })).toHaveLength(1);
    expect(await run(productionHosts, DATA_SOURCE, { host: "10.0.0.1" }, { stack: "prod", config: { productionStacks: ["^live$"] } })).toEqual([]);
  });

  it("check organization and data-source names against their own patterns", async () => {
    const config = { organizationPattern: "^[a-z]+$", dataSourcePattern: "^DS " };
    expect(await run(namingConvention, ORGANIZATION, { name: "Acme" }, { config })).toEqual([
      expect.stringContaining('Organization "res": organization name "Acme"'),
    ]);
    expect(await run(namingConvention, ORGANIZATION, { name: "acme" }, { config })).toEqual([]);
    expect(await run(namingConvention, DATA_SOURCE, { displayName: "Warehouse" }, { config })).toEqual([expect.stringContaining('display name "Warehouse"')]);
  });
});

describe("loading pulumi-analytics/policy", () => {
  it("names the package to install when @pulumi/policy is missing", () => {
    const missing = (id: string): string => {
      throw Object.assign(new Error(`Cannot find module '${id}'`), { code: "MODULE_NOT_FOUND" });
    };
    expect(() => assertPolicySdk(missing)).toThrow(/needs the @pulumi\/policy package.*npm install --save-dev @pulumi\/policy/);
    expect(() => assertPolicySdk(() => "/found")).not.toThrow();
  });

  it("loads neither undici nor zod (uses dist/, so run `npm run build` first)", () => {
    const script =
      "require('./dist/policy'); console.log(JSON.stringify(Object.keys(require.cache).filter((f) => /node_modules[\\\\/](undici|zod)[\\\\/]/.test(f))))";
    const loaded = execFileSync(process.execPath, ["-e", script], { cwd: path.resolve(__dirname, "..", ".."), encoding: "utf8" });
    expect(JSON.parse(loaded)).toEqual([]);
  });
});

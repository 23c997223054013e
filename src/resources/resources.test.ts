import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SECRET_DATA_SOURCE_FIELDS } from "../contract";

/** Inputs the mocked engine received, by resource name. */
const registered = new Map<string, { type: string; inputs: Record<string, unknown> }>();

/** The key the file sets, given back when it ends: the unit tier's next file in this worker shares the process. */
const savedKey = process.env.ANALYTICS_API_KEY;
afterAll(() => {
  if (savedKey === undefined) delete process.env.ANALYTICS_API_KEY;
  else process.env.ANALYTICS_API_KEY = savedKey;
});

beforeAll(async () => {
  process.env.ANALYTICS_API_KEY = "analytics_key_MOCKEDMOCKEDMOCKEDMOCKEDMOCKED12";
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        registered.set(args.name, { type: args.type, inputs: args.inputs });
        return { id: `${args.name}-id`, state: { ...args.inputs, slug: "acme", lastSyncStatus: "PENDING" } };
      },
      call: () => ({}),
    },
    "project",
    "stack",
    false,
  );
});

function value<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply(resolve));
}

function isSecret<T>(output: pulumi.Output<T>): Promise<boolean> {
  return (output as unknown as { isSecret: Promise<boolean> }).isSecret;
}

describe("resource wiring", () => {
  it("registers typed resources with the dynamic provider and declares every output", async () => {
    const { Organization, DataSource } = await import("../index");
    const org = new Organization("acme", { name: "Acme" });
    const ds = new DataSource("warehouse", {
      orgId: org.id,
      type: "direct",
      dialect: "POSTGRES",
      displayName: "Warehouse",
      host: "db.internal",
      port: 5432,
      password: "plain-string-password",
      sshPrivateKey: "-----BEGIN KEY-----",
    });

    expect(await value(org.slug)).toBe("acme");
    expect(await value(ds.lastSyncStatus)).toBe("PENDING");
    expect(await value(ds.orgId)).toBe("acme-id");

    const orgRegistration = registered.get("acme");
    const dsRegistration = registered.get("warehouse");
    expect(orgRegistration?.type).toBe("pulumi-nodejs:dynamic/analytics:Organization");
    expect(dsRegistration?.type).toBe("pulumi-nodejs:dynamic/analytics:DataSource");
    expect(dsRegistration?.inputs).toMatchObject({ displayName: "Warehouse", host: "db.internal", port: 5432 });
  });

  it("makes every credential a secret even when passed as a plain string", async () => {
    const { DataSource } = await import("../index");
    const ds = new DataSource("secrets", {
      orgId: "org_1",
      type: "direct",
      dialect: "POSTGRES",
      displayName: "Secrets",
      password: "p",
      sshPassword: "p",
      sshPrivateKey: "p",
      sshPrivateKeyPassphrase: "p",
      snowflakePrivateKey: "p",
      snowflakePrivateKeyPassphrase: "p",
      bigQueryJsonKey: "p",
    });
    for (const field of SECRET_DATA_SOURCE_FIELDS) {
      expect(await isSecret(ds[field] as pulumi.Output<unknown>), field).toBe(true);
    }
    expect(await isSecret(ds.displayName)).toBe(false);
  });

  it("serializes a small provider that captures no key, client or config", async () => {
    const provider = registered.get("acme")?.inputs.__provider;
    expect(typeof provider).toBe("string");
    const text = provider as string;
    expect(text.length).toBeLessThan(2304);
    expect(text).not.toContain(process.env.ANALYTICS_API_KEY);
    expect(text).not.toMatch(/AnalyticsClient|undici|Bearer/);
    expect(text).toContain(`require("pulumi-analytics/dynamic-provider")`);
  });

  it.each(["Organization", "DataSource"] as const)("refuses the import option on %s in the program, saying why and what to do", async (type) => {
    const index = await import("../index");
    const args = { orgId: "org_1", type: "direct", dialect: "POSTGRES", displayName: "D", name: "N" } as never;
    const construct = () =>
      type === "Organization" ? new index.Organization("adopt", args, { import: "x_1" }) : new index.DataSource("adopt", args, { import: "x_1" });
    expect(construct).toThrow(index.ImportUnsupportedError);
    try {
      construct();
    } catch (error) {
      expect(error).toMatchObject({ name: "AnalyticsError", code: "ANALYTICS_IMPORT_UNSUPPORTED", __pulumiRunError: true });
      expect((error as Error).message).toMatch(
        new RegExp(`^${type} "adopt" cannot be imported: the analytics API has no read endpoint.*Remove the \`import\` option`),
      );
    }
    expect(pulumi.RunError.isInstance(new index.ImportUnsupportedError("x"))).toBe(true);
    expect(registered.has("adopt")).toBe(false);
  });

  it("uses one provider per resource type", async () => {
    const { Organization } = await import("../index");
    new Organization("second", { name: "Second" });
    await new Promise((r) => setTimeout(r, 50));
    expect(registered.get("second")?.inputs.__provider).toBe(registered.get("acme")?.inputs.__provider);
    expect(registered.get("warehouse")?.inputs.__provider).not.toBe(registered.get("acme")?.inputs.__provider);
  });
});

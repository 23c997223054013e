/**
 * bench/fixtures/floor and bench/fixtures/native take their field lists from the package's kinds:
 * each program run here against a recording stand-in for @pulumi/pulumi (no engine), with the kinds
 * of src/kinds, and once with a field added to them.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as vm from "node:vm";
import { describe, expect, it } from "vitest";
import * as kinds from "../../src/kinds";

const FIXTURES = path.join(__dirname, "..", "fixtures");

/** One resource the program registered: its type, declared properties, options and (dynamic) provider. */
interface Registered {
  type: string;
  props: Record<string, unknown>;
  opts: { additionalSecretOutputs?: string[] };
  provider?: { create(inputs: Record<string, unknown>): Promise<{ id: string; outs: Record<string, unknown> }> } | undefined;
}

/** Runs the program of `fixture` with `count` data sources and the given kinds module; returns what it registered. */
function register(fixture: string, kindsModule: typeof kinds, count = 1): Registered[] {
  const registered: Registered[] = [];
  const pulumi = {
    dynamic: {
      Resource: class {
        constructor(provider: Registered["provider"], _name: string, props: Registered["props"], opts: Registered["opts"], _module: string, type: string) {
          registered.push({ type, props, opts: opts ?? {}, provider });
        }
      },
    },
    CustomResource: class {
      id = "id";
      constructor(type: string, _name: string, props: Registered["props"], opts: Registered["opts"]) {
        registered.push({ type, props, opts: opts ?? {} });
      }
    },
    Config: class {
      require(): string {
        return String(count);
      }
    },
    getStack: () => "test",
    secret: (value: unknown) => ({ secret: value }),
  };
  const fake = (id: string): unknown => {
    if (id === "@pulumi/pulumi") return pulumi;
    if (id.endsWith(path.join("dist", "kinds"))) return kindsModule;
    if (id.startsWith("node:")) return require(id) as unknown;
    throw new Error(`the fixture requires ${id}`);
  };
  fake.resolve = (id: string): string => (id === "pulumi-analytics/package.json" ? path.join(__dirname, "..", "..", "package.json") : "");
  const source = fs.readFileSync(path.join(FIXTURES, fixture, "index.js"), "utf8");
  vm.compileFunction(source, ["require", "exports"])(fake, {});
  return registered;
}

const dataSource = (registered: Registered[]): Registered => registered.find((r) => r.type.endsWith("DataSource"))!;
const DS = kinds.KINDS.dataSource;

describe("the floor and native programs", () => {
  it("declare every output of the kinds, the credentials as secrets, property for property alike", () => {
    const [floor, native] = [register("floor", kinds), register("native", kinds)];
    for (const program of [floor, native]) {
      const ds = dataSource(program);
      expect(Object.keys(ds.props)).toEqual(expect.arrayContaining(kinds.outputNames(DS)));
      expect(ds.opts.additionalSecretOutputs).toEqual(kinds.secretFieldNames(DS));
      expect(ds.props.password).toEqual({ secret: "bench-password-not-a-secret" });
    }
    expect(native.map((r) => [r.type, Object.keys(r.props)])).toEqual([
      ["analytics:index:Organization", Object.keys(floor[0]!.props)],
      ["analytics:index:DataSource", Object.keys(dataSource(floor).props)],
    ]);
    expect(Object.keys(floor[0]!.props)).toEqual(["name", "slug", "customAiContext", "onboardingStatus"]);
  });

  it("answer a create in the floor with every output of the kinds, as the reference server shapes them", async () => {
    const { id, outs } = await dataSource(register("floor", kinds)).provider!.create({ displayName: "W", dialect: "POSTGRES", sslEnabled: false });
    expect(Object.keys(outs).sort()).toEqual(kinds.outputNames(DS).sort());
    expect(outs).toMatchObject({
      id,
      displayName: "W",
      dialect: "POSTGRES",
      sslEnabled: false,
      sshEnabled: false,
      description: null,
      port: null,
      lastSyncStatus: "PENDING",
      lastHealthStatus: "HEALTHY",
      isDemo: false,
    });
    expect(id).toMatch(/^ds_[\w-]{20}$/);
  });

  it("follow a field added to the kinds, declared by both and answered by the floor", async () => {
    const grown = {
      ...kinds,
      KINDS: { ...kinds.KINDS, dataSource: { ...DS, outputs: { ...DS.outputs, addedLater: { type: "boolean" } } } },
    } as unknown as typeof kinds;
    for (const fixture of ["floor", "native"]) expect(dataSource(register(fixture, grown)).props).toHaveProperty("addedLater");
    const { outs } = await dataSource(register("floor", grown)).provider!.create({ displayName: "W", dialect: "POSTGRES" });
    expect(outs.addedLater).toBe(false);
  });
});

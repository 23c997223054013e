/**
 * Change control of the package schema (tools/schema-compat.js): src/native/schema.json against
 * the last release's, which fails `npm test` on a breaking change unless the major version grew;
 * and a table of changes proving each rule can fail, and that what does not break passes.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import * as compat from "../tools/schema-compat.js";
import { repoRoot } from "./support/pulumi-workspace";

/** A schema of the table below, changed freely by each row; compareSchemas reads it as its Schema. */
type Schema = Record<string, any> & Pick<compat.Schema, "version">;

const read = (file: string): string => fs.readFileSync(path.join(repoRoot, file), "utf8");
const KIND = "#/types/analytics:index:Kind";

/** A small schema with one of everything the rules look at. */
function base(): Schema {
  return {
    name: "analytics",
    version: "1.2.0",
    config: { variables: { baseUrl: { type: "string" } } },
    provider: { inputProperties: { baseUrl: { type: "string" } } },
    functions: { "analytics:index:lookup": {} },
    types: { "analytics:index:Kind": { type: "string", enum: [{ value: "a" }, { value: "b" }] } },
    resources: {
      "analytics:index:Thing": {
        description: "A thing.",
        inputProperties: { name: { type: "string" }, kind: { oneOf: [{ type: "string" }, { $ref: KIND }] }, port: { type: "integer" } },
        requiredInputs: ["name"],
        properties: { name: { type: "string" }, slug: { type: "string" }, port: { type: "integer" } },
        required: ["slug"],
      },
    },
    language: { java: { basePackage: "com.example" } },
  };
}

const thing = (schema: Schema): Schema => schema.resources["analytics:index:Thing"];

const BREAKING: Array<[string, (s: Schema) => void, RegExp]> = [
  ["a resource removed", (s) => delete s.resources["analytics:index:Thing"], /resource "analytics:index:Thing" removed/],
  ["an input removed", (s) => delete thing(s).inputProperties.port, /input "port" removed/],
  ["an input's type changed", (s) => (thing(s).inputProperties.port = { type: "string" }), /input "port" no longer takes integer \(now string\)/],
  ["a string input narrowed to its enum", (s) => (thing(s).inputProperties.name = { $ref: KIND }), /input "name" no longer takes string/],
  [
    "an input's enum dropped from its union",
    (s) => (thing(s).inputProperties.kind = { type: "string" }),
    /input "kind" no longer takes string \| ref:#\/types\/analytics:index:Kind/,
  ],
  ["an optional input made required", (s) => thing(s).requiredInputs.push("port"), /input "port" is now required/],
  [
    "a new required input",
    (s) => ((thing(s).inputProperties.owner = { type: "string" }), thing(s).requiredInputs.push("owner")),
    /input "owner" is now required/,
  ],
  ["an output removed", (s) => delete thing(s).properties.slug, /output "slug" removed/],
  ["an output's type changed", (s) => (thing(s).properties.port = { type: "string" }), /output "port" changed type from integer to string/],
  ["an output widened to a union", (s) => (thing(s).properties.name = { oneOf: [{ type: "string" }, { $ref: KIND }] }), /output "name" changed type/],
  ["an output no longer always set", (s) => (thing(s).required = []), /output "slug" is no longer always set/],
  ["an enum value removed", (s) => s.types["analytics:index:Kind"].enum.pop(), /enum value "b" removed/],
  ["a type removed", (s) => delete s.types["analytics:index:Kind"], /type "analytics:index:Kind" removed/],
  ["a function removed", (s) => delete s.functions["analytics:index:lookup"], /function "analytics:index:lookup" removed/],
  ["a config variable removed", (s) => delete s.config.variables.baseUrl, /config variable "baseUrl" removed/],
  ["a provider input removed", (s) => delete s.provider.inputProperties.baseUrl, /provider: input "baseUrl" removed/],
];

const COMPATIBLE: Array<[string, (s: Schema) => void]> = [
  ["descriptions changed", (s) => (thing(s).description = "A thing, described anew.")],
  ["an optional input added", (s) => (thing(s).inputProperties.note = { type: "string" })],
  ["an output added", (s) => (thing(s).properties.createdAt = { type: "string" })],
  ["a string input widened to string or enum", (s) => (thing(s).inputProperties.name = { oneOf: [{ type: "string" }, { $ref: KIND }] })],
  ["an enum value added", (s) => s.types["analytics:index:Kind"].enum.push({ value: "c" })],
  ["a type added", (s) => (s.types["analytics:index:Other"] = { type: "string", enum: [{ value: "x" }] })],
  ["a required input made optional", (s) => (thing(s).requiredInputs = [])],
  ["an output now always set", (s) => thing(s).required.push("port")],
  ["a language section changed", (s) => (s.language.java.basePackage = "io.github.example")],
];

describe("schema change control", () => {
  it.each(BREAKING)("refuses %s in the same major version, allows it in the next", (_, change, reason) => {
    const after = base();
    change(after);
    const sameMajor = compat.compareSchemas(base(), { ...after, version: "1.3.0" });
    expect(sameMajor.breaking).toEqual([expect.stringMatching(reason)]);
    expect(sameMajor.allowed).toBe(false);
    expect(compat.compareSchemas(base(), { ...after, version: "2.0.0" })).toEqual({ breaking: sameMajor.breaking, allowed: true });
  });

  it.each(COMPATIBLE)("allows %s in any version", (_, change) => {
    const after = base();
    change(after);
    expect(compat.compareSchemas(base(), { ...after, version: "1.2.1" })).toEqual({ breaking: [], allowed: true });
  });

  it("takes the released schema of the highest version as the last release's", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-released-"));
    try {
      for (const version of ["0.9.0", "0.10.0", "0.2.5"]) fs.writeFileSync(path.join(dir, `analytics-${version}.json`), JSON.stringify({ version }));
      expect(compat.lastReleasedSchema(dir).schema.version).toBe("0.10.0");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("finds no breaking change from the last release's schema to src/native/schema.json, or the major version grew", () => {
    const { file, schema: released } = compat.lastReleasedSchema();
    const current = JSON.parse(read("src/native/schema.json")) as Schema;
    const { breaking, allowed } = compat.compareSchemas(released, current);
    expect(allowed, `${path.relative(repoRoot, file)} → src/native/schema.json:\n${breaking.join("\n")}`).toBe(true);
    // The released schema is that release's: its own version in its file name, the same package.
    expect(path.basename(file)).toBe(`${current.name}-${released.version}.json`);
    expect(released.resources).toHaveProperty(["analytics:index:DataSource"]);
  });

  it("CHANGELOG.md has a section for every released schema and for what is not released yet", () => {
    const changelog = read("CHANGELOG.md");
    const sections = [...changelog.matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
    expect(sections[0]).toMatch(/^Unreleased$|^\d+\.\d+\.\d+/);
    const versions = fs.readdirSync(compat.RELEASED_DIR).flatMap((file) => /-(\d+\.\d+\.\d+)\.json$/.exec(file)?.[1] ?? []);
    expect(versions.length).toBeGreaterThan(0);
    for (const version of versions)
      expect(
        sections.some((s) => s.startsWith(version)),
        `CHANGELOG.md: ## ${version}`,
      ).toBe(true);
  });
});

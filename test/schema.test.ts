/**
 * The native provider's package schema is generated from the kind specs (tools/generate-schema.js)
 * and committed; this holds the committed file to the specs. Uses dist/: `npm run build` first.
 */
import * as fs from "node:fs";
import { describe, expect, it } from "vitest";
import {
  KINDS,
  allowedValues,
  type KindSpec,
  enumTypeName,
  enumValueName,
  inputNames,
  inputRules,
  nativeTypeToken,
  outputNames,
  secretFieldNames,
} from "../src/kinds";
import * as generator from "../tools/generate-schema.js";

const manifest = JSON.parse(fs.readFileSync(`${__dirname}/../package.json`, "utf8")) as { repository: { url: string } };

interface PropertySchema {
  type?: string;
  oneOf?: Array<{ type?: string; $ref?: string }>;
  description: string;
  secret?: boolean;
  replaceOnChanges?: boolean;
}
interface ResourceSchema {
  description: string;
  properties: Record<string, PropertySchema>;
  inputProperties: Record<string, PropertySchema>;
  requiredInputs: string[];
}

const committed = fs.readFileSync(generator.SCHEMA_FILE, "utf8");
interface EnumSchema {
  type: string;
  description: string;
  enum: Array<{ name: string; value: string; description: string }>;
}
const schema = JSON.parse(committed) as {
  pluginDownloadURL: string;
  resources: Record<string, ResourceSchema>;
  types: Record<string, EnumSchema>;
  config: { variables: Record<string, PropertySchema> };
};

describe("src/native/schema.json", () => {
  it("is exactly what the generator makes of the kind specs (run `npm run build && node tools/generate-schema.js` after changing one)", () => {
    expect(committed).toBe(generator.schemaText());
  });

  it.each(Object.values(KINDS))("has $typeName with every input and output, each described, credentials secret and every input replacing", (spec) => {
    const resource = schema.resources[nativeTypeToken(spec)]!;
    expect(Object.keys(resource.inputProperties)).toEqual(inputNames(spec));
    for (const name of [...outputNames(spec).filter((n) => n !== "id"), ...inputNames(spec)]) expect(resource.properties[name]?.description).toMatch(/\w/);
    for (const [name, property] of Object.entries(resource.inputProperties)) {
      expect(property.description, name).toMatch(/\w/);
      expect(property.replaceOnChanges, name).toBe(true);
      expect(property.secret === true, name).toBe(secretFieldNames(spec).includes(name));
      expect(resource.properties[name]?.secret === true, name).toBe(secretFieldNames(spec).includes(name));
    }
    expect(resource.description).toMatch(/can only create/);
  });

  it.each(Object.values(KINDS))("states every input's rules of $typeName in its description, from the spec", (spec) => {
    const resource = schema.resources[nativeTypeToken(spec)]!;
    for (const name of inputNames(spec)) {
      const rules = inputRules(spec, name).join(" ");
      expect(resource.inputProperties[name]!.description, name).toMatch(new RegExp(`\\S ${rules.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`));
      // An input the answer does not echo is shown as declared, with the same words.
      if (!outputNames(spec).includes(name)) expect(resource.properties[name]!.description, name).toBe(resource.inputProperties[name]!.description);
    }
  });

  it("words the rules as the spec has them: range, length, required, allowed values, default, secret", () => {
    const inputs = schema.resources["analytics:index:DataSource"]!.inputProperties;
    expect(inputs.port!.description).toBe("Database port. An integer from 0 to 65535. Changing it replaces the data source; the old one stays in the service.");
    expect(inputs.displayName!.description).toMatch(/^Name shown in the service\. Required\. At least 1 character\. Changing it/);
    expect(inputs.dialect!.description).toMatch(/ Required\. Allowed value: `POSTGRES`\. /);
    expect(inputs.sslEnabled!.description).toMatch(/ Defaults to `true`\. /);
    expect(inputs.password!.description).toMatch(/ Always a secret: encrypted in the state, `\[secret\]` in previews\. /);
    expect(schema.resources["analytics:index:Organization"]!.inputProperties.name!.description).toMatch(
      /^Organization name\. Required\. At least 1 character\. Changing it replaces the organization/,
    );
  });

  it("has an enum type for each closed input of src/kinds, which takes its constants or a plain string; outputs stay plain", () => {
    const closed = Object.values(KINDS).flatMap((spec: KindSpec) =>
      inputNames(spec)
        .filter((name) => allowedValues(spec.inputs[name]!) !== undefined)
        .map((name) => ({ spec, name })),
    );
    expect(closed.map(({ spec, name }) => enumTypeName(spec, name))).toEqual(["DataSourceType", "DataSourceDialect"]);
    expect(Object.keys(schema.types).sort()).toEqual(closed.map(({ spec, name }) => `analytics:index:${enumTypeName(spec, name)}`).sort());
    for (const { spec, name } of closed) {
      const token = `analytics:index:${enumTypeName(spec, name)}`;
      const values = Object.entries(spec.inputs[name]!.values!);
      expect(schema.types[token]).toMatchObject({
        type: "string",
        enum: values.map(([value, description]) => ({ name: enumValueName(value), value, description })),
      });
      const resource = schema.resources[nativeTypeToken(spec)]!;
      expect(resource.inputProperties[name]!.oneOf).toEqual([{ type: "string" }, { $ref: `#/types/${token}` }]);
      expect(resource.properties[name]!.type).toBe("string");
    }
    expect(schema.types["analytics:index:DataSourceDialect"]!.enum).toEqual([{ name: "Postgres", value: "POSTGRES", description: "PostgreSQL." }]);
  });

  it("declares the provider's settings, the API key as a secret", () => {
    expect(schema.config.variables).toMatchObject({ baseUrl: { type: "string" }, apiKey: { type: "string", secret: true } });
  });

  it("downloads the plugin from the project's release of the engine's version, which every generated SDK carries", () => {
    expect(schema.pluginDownloadURL).toBe(`${manifest.repository.url.replace(/^git\+/, "").replace(/\.git$/, "")}/releases/download/v\${VERSION}/`);
  });

  it("takes a mirror from the build option, and refuses one that is not http(s) without printing it", () => {
    const mirror = "https://mirror.example.com/analytics/";
    expect(generator.pluginDownloadUrl(manifest, { [generator.DOWNLOAD_URL_VARIABLE]: mirror })).toBe(mirror);
    expect(generator.pluginDownloadUrl(manifest, { [generator.DOWNLOAD_URL_VARIABLE]: "" })).toBe(schema.pluginDownloadURL);
    const refused = (): string => generator.pluginDownloadUrl(manifest, { [generator.DOWNLOAD_URL_VARIABLE]: "file:///srv/token-abc" });
    expect(refused).toThrow(/ANALYTICS_PLUGIN_DOWNLOAD_URL must be an http\(s\) URL/);
    expect(refused).not.toThrow(/token-abc/);
  });
});

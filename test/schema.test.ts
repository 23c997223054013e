/**
 * The native provider's package schema is generated from the kind specs (tools/generate-schema.js)
 * and committed; this holds the committed file to the specs. Uses dist/: `npm run build` first.
 */
import * as fs from "node:fs";
import { describe, expect, it } from "vitest";
import { KINDS, inputNames, nativeTypeToken, outputNames, secretFieldNames } from "../src/kinds";

const generator = require("../tools/generate-schema.js") as {
  SCHEMA_FILE: string;
  DOWNLOAD_URL_VARIABLE: string;
  schemaText(): string;
  pluginDownloadUrl(manifest: unknown, env: Record<string, string | undefined>): string;
};
const manifest = JSON.parse(fs.readFileSync(`${__dirname}/../package.json`, "utf8")) as { repository: { url: string } };

interface PropertySchema {
  type: string;
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
const schema = JSON.parse(committed) as {
  pluginDownloadURL: string; resources: Record<string, ResourceSchema>; config: { variables: Record<string, PropertySchema> } };

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

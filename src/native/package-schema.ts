/**
 * The package schema (`schema.json`, generated from the kind specs and committed). The static
 * import is what copies it to dist and into the plugin archive's bundle.
 */
import schema from "./schema.json";

/** The package schema as the engine's GetSchema answer carries it. */
export function schemaText(): string {
  return JSON.stringify(schema);
}

/** The package version the schema was generated for (package.json's). */
export function schemaVersion(): string {
  return schema.version;
}

/**
 * The package schema (`schema.json`, generated and committed), in its own module so the provider
 * loads it only when the engine asks for it; the static import is what copies it to dist.
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

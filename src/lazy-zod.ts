/**
 * zod, loaded on first use. Loading it takes longer than the rest of the reference server
 * together, and the server's first answers (a 401, the OpenAPI document's 404s) need none of it,
 * so schemas are built when something is first validated.
 */
import type { z } from "zod";

/** The zod namespace; the first call loads the package. */
export function zod(): typeof z {
  return (require("zod") as typeof import("zod")).z;
}

/** A schema built on first call and kept: `const nameSchema = lazySchema((z) => z.string())`. */
export function lazySchema<T>(build: (zodNamespace: typeof z) => T): () => T {
  let built: { schema: T } | undefined;
  return () => (built ??= { schema: build(zod()) }).schema;
}

/**
 * pg, the Postgres client of the schema sync: an optional peer dependency of the package, so only
 * those who run the reference server against a real database install it. Loaded by the first sync
 * rather than at start (it is a large share of the server's start-up, and a server whose data
 * sources are never synced, or whose sync is replaced, never needs it).
 */
import { AnalyticsError } from "../../errors";

/** The npm package the schema sync connects with. */
export const PG_PACKAGE = "pg";

/** What a sync without pg says, in the data source's `syncErrorMessage` and on the server's start-up. */
export const PG_MISSING_MESSAGE =
  "the reference server's schema sync needs the pg package, an optional peer dependency of pulumi-analytics that is not installed: run `npm install pg` next to pulumi-analytics";

/** Raised when pg cannot be resolved; its message names the fix. */
export class PgNotInstalledError extends AnalyticsError {
  override readonly name = "PgNotInstalledError";
  override readonly code = "ANALYTICS_MISSING_PEER" as const;
}

/** Whether `error` says that pg itself (not one of its own dependencies) cannot be found. */
function isPgMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === "MODULE_NOT_FOUND" && String((error as Error).message).includes(`'${PG_PACKAGE}'`);
}

/**
 * pg through a `require` of the literal name, which a bundler follows: the single file
 * (tools/build-reference-server-binary.js) carries pg in its bundle.
 */
const requirePg = (_id: string): unknown => require("pg");

/** Whether this process is a single executable, whose bundle carries pg (nothing to resolve on disk). */
const inSingleFile = (): boolean => (require("node:sea") as typeof import("node:sea")).isSea();

/** Where pg resolves from: nowhere on disk in the single file, which bundles it. */
const resolvePg = (id: string): string => (inSingleFile() ? id : require.resolve(id));

/** pg, or a {@link PgNotInstalledError} when it is not installed; other failures pass through. `load` is injectable for tests. */
export function loadPg(load: (id: string) => unknown = requirePg): typeof import("pg") {
  try {
    return load(PG_PACKAGE) as typeof import("pg");
  } catch (error) {
    if (isPgMissing(error)) throw new PgNotInstalledError(PG_MISSING_MESSAGE);
    throw error;
  }
}

/** Whether pg can be resolved, without loading it. `resolve` is injectable for tests. */
export function pgInstalled(resolve: (id: string) => string = resolvePg): boolean {
  try {
    resolve(PG_PACKAGE);
    return true;
  } catch (error) {
    if (isPgMissing(error)) return false;
    throw error;
  }
}

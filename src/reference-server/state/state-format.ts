/**
 * The state file's format: its header (format name and layout version), the shapes of the records
 * it and its journal hold, and the checks of a file's parsed JSON against them. state-file.ts reads
 * and writes the file; store.ts holds the records in memory.
 */
import { SECRET_DATA_SOURCE_FIELDS } from "../../contract/fields";
import { responseShape } from "../../contract/schemas";
import { dataSourceSpec, organizationSpec } from "../../kinds";
import { lazySchema } from "../../lazy-zod";
import { StateError, USER_NAME_PATTERN, type ReferenceStore, type StoredRecords } from "./store";

/** Every public field of a data source, exactly (no extras): the shape of the API's `data`. */
export const dataSourceFieldsSchema = lazySchema((z) => z.strictObject(responseShape(dataSourceSpec.outputs)));

/** Identifies a state file as this server's. */
export const STATE_FORMAT = "pulumi-analytics/reference-server-state";

/**
 * Layout versions of the state file. 1: the whole state in one file (still loaded). 2: the same,
 * plus `journalSeq`, the last line of the journal beside it (`<file>.journal`) the file includes.
 */
export const STATE_VERSION = 2;

/** Shapes of the records the state file and its journal hold. Secrets have no place in them: data source fields are the public ones only. */
export const stateRecordSchemas = lazySchema((z) => {
  const syncedTableSchema = z.strictObject({
    schema: z.string(),
    name: z.string(),
    columns: z.array(z.strictObject({ name: z.string(), type: z.string(), nullable: z.boolean() })),
  });
  return {
    apiKey: z.strictObject({
      digest: z.string().regex(/^[0-9a-f]{64}$/),
      userName: z.string().regex(USER_NAME_PATTERN),
      createdAt: z.string(),
    }),
    organization: z.strictObject({
      ...responseShape(organizationSpec.outputs),
      ownerUserName: z.string(),
      createdAt: z.string(),
      trial: z.strictObject({ startedAt: z.string(), endsAt: z.string() }).nullable(),
    }),
    dataSource: z.strictObject({
      organizationId: z.string(),
      fields: dataSourceFieldsSchema(),
      tables: z.array(syncedTableSchema).nullable(),
      providedSecretFields: z.array(z.enum(SECRET_DATA_SOURCE_FIELDS)),
    }),
  };
});

/** The state file's shape, either version. */
const stateSnapshotSchema = lazySchema((z) => {
  const records = stateRecordSchemas();
  const shape = {
    format: z.literal(STATE_FORMAT),
    apiKeys: z.array(records.apiKey),
    organizations: z.array(records.organization),
    dataSources: z.array(records.dataSource),
  };
  return z.discriminatedUnion("version", [
    z.strictObject({ ...shape, version: z.literal(1) }),
    z.strictObject({ ...shape, version: z.literal(2), journalSeq: z.number().int().nonnegative() }),
  ]);
});

/** Everything the state file holds. */
export interface StateSnapshot extends StoredRecords {
  /** Identifies the file as this server's state. */
  format: typeof STATE_FORMAT;
  /** Layout version: 1 (no journal) or {@link STATE_VERSION}. */
  version: 1 | typeof STATE_VERSION;
  /** Version 2: the last journal line this file includes (0: none). */
  journalSeq?: number;
}

/** The parsed JSON of a state file, checked against its shape (either version). Throws a {@link StateError} naming the first problem. */
export function parseStateSnapshot(raw: unknown): StateSnapshot {
  // The common case, checked without zod (a second or more at 100,000 data sources); zod names the problem otherwise.
  if (isStateSnapshot(raw)) return raw;
  const parsed = stateSnapshotSchema().safeParse(raw);
  if (!parsed.success) {
    const where = parsed.error.issues[0]?.path.join(".") || "(root)";
    throw new StateError(`state file is not a reference-server state file (first problem at ${where})`);
  }
  return parsed.data;
}

type FieldCheck = (value: unknown) => boolean;

const isString: FieldCheck = (v) => typeof v === "string";

/** Checks of a spec's output fields, as {@link responseShape} types them. */
function outputChecks(outputs: Readonly<Record<string, { type: string; nullable?: boolean }>>): Record<string, FieldCheck> {
  return Object.fromEntries(
    Object.entries(outputs).map(([name, field]) => {
      const base: FieldCheck = field.type === "string" ? isString : field.type === "integer" ? (v) => Number.isSafeInteger(v) : (v) => typeof v === "boolean";
      return [name, field.nullable ? (v: unknown) => v === null || base(v) : base];
    }),
  );
}

/** True when `value` is a plain object with exactly the keys of `checks`, each passing its check. */
function isExactly(value: unknown, checks: Readonly<Record<string, FieldCheck>>, size: number): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  let keys = 0;
  for (const key in value) {
    if (!Object.hasOwn(checks, key) || !checks[key]!((value as Record<string, unknown>)[key])) return false;
    keys++;
  }
  return keys === size;
}

/** Built on first use: the same rules as {@link stateRecordSchemas}, without zod. */
let fastChecks: { apiKey: FieldCheck; organization: FieldCheck; dataSource: FieldCheck } | undefined;

function recordChecks(): NonNullable<typeof fastChecks> {
  if (fastChecks) return fastChecks;
  const exactly = (checks: Record<string, FieldCheck>): FieldCheck => {
    const size = Object.keys(checks).length;
    return (v) => isExactly(v, checks, size);
  };
  const arrayOf = (check: FieldCheck): FieldCheck => (v) => Array.isArray(v) && v.every(check);
  const column = exactly({ name: isString, type: isString, nullable: (v) => typeof v === "boolean" });
  const table = exactly({ schema: isString, name: isString, columns: arrayOf(column) });
  const secretField: FieldCheck = (v) => (SECRET_DATA_SOURCE_FIELDS as readonly unknown[]).includes(v);
  fastChecks = {
    apiKey: exactly({ digest: (v) => typeof v === "string" && /^[0-9a-f]{64}$/.test(v), userName: (v) => typeof v === "string" && USER_NAME_PATTERN.test(v), createdAt: isString }),
    organization: exactly({
      ...outputChecks(organizationSpec.outputs),
      ownerUserName: isString,
      createdAt: isString,
      trial: (v) => v === null || exactly({ startedAt: isString, endsAt: isString })(v),
    }),
    dataSource: exactly({
      organizationId: isString,
      fields: exactly(outputChecks(dataSourceSpec.outputs)),
      tables: (v) => v === null || arrayOf(table)(v),
      providedSecretFields: arrayOf(secretField),
    }),
  };
  return fastChecks;
}

/** True when `raw` is a valid record of kind `kind` (a key, an organization, a data source), by the rules of {@link stateRecordSchemas}. */
export function isStateRecord(kind: "apiKey" | "organization" | "dataSource", raw: unknown): boolean {
  return recordChecks()[kind](raw);
}

/** True when `raw` is a state file of either version, by the rules of its zod schema. */
function isStateSnapshot(raw: unknown): raw is StateSnapshot {
  if (typeof raw !== "object" || raw === null) return false;
  const { format, version, journalSeq, apiKeys, organizations, dataSources, ...rest } = raw as Record<string, unknown>;
  if (format !== STATE_FORMAT || Object.keys(rest).length > 0) return false;
  if (version === 1 ? journalSeq !== undefined || "journalSeq" in raw : version !== 2 || !Number.isSafeInteger(journalSeq) || (journalSeq as number) < 0) return false;
  const checks = recordChecks();
  return Array.isArray(apiKeys) && apiKeys.every(checks.apiKey) && Array.isArray(organizations) && organizations.every(checks.organization) && Array.isArray(dataSources) && dataSources.every(checks.dataSource);
}

/** A detached copy of everything `store` persists, as a state file of the current version holds it: no key, no credential. */
export function stateSnapshot(store: ReferenceStore): StateSnapshot {
  return structuredClone({
    format: STATE_FORMAT,
    version: STATE_VERSION,
    journalSeq: 0,
    apiKeys: [...store.apiKeys.values()],
    organizations: [...store.organizations.values()],
    dataSources: [...store.dataSources.values()],
  });
}

/**
 * The state file's format: its header (format name, layout version, the release that wrote it),
 * the shapes of the records it and its journal hold, derived from the kinds' output fields, and
 * the one check of parsed JSON against them, which gives a record of an earlier release the fields
 * it lacks. state-file.ts reads and writes the file; store.ts holds the records in memory.
 */
import { SECRET_DATA_SOURCE_FIELDS } from "../../contract/fields";
import { dataSourceSpec, organizationSpec, type OutputFieldSpec } from "../../kinds";
import type { ApiKeyRecord } from "./auth";
import { StateError, USER_NAME_PATTERN, type DataSourceRecord, type OrganizationRecord, type ReferenceStore, type StoredRecords } from "./store";

/** Identifies a state file as this server's. */
export const STATE_FORMAT = "pulumi-analytics/reference-server-state";

/**
 * Layout versions of the state file. 1: the whole state in one file (still loaded). 2: the same,
 * plus `journalSeq`, the last line of the journal beside it (`<file>.journal`) the file includes,
 * and `release`, the package version that wrote it (absent in files of releases before it).
 */
export const STATE_VERSION = 2;

/**
 * This code's release (package.json's version, as the package schema records it: see
 * schemaVersion() in src/native/package-schema.ts): the state files it writes name it. Required,
 * not imported, so that programs compiled without JSON modules (bench/) can load the server.
 */
export const RELEASE: string = (require("../../native/schema.json") as { version: string }).version;

/** Everything the state file holds. */
export interface StateFileContents extends StoredRecords {
  /** Identifies the file as this server's state. */
  format: typeof STATE_FORMAT;
  /** Layout version: 1 (no journal) or {@link STATE_VERSION}. */
  version: 1 | typeof STATE_VERSION;
  /** The release that wrote the file; absent in files of releases before the field. */
  release?: string;
  /** Version 2: the last journal line this file includes (0: none). */
  journalSeq?: number;
}

/** What a journal line or the file holds a list of. */
export type StateRecordKind = "apiKey" | "organization" | "dataSource";

/** Where a value breaks its shape: the path to it and why. */
class Problem {
  readonly path: Array<string | number> = [];
  constructor(readonly reason: string) {}
  /** The path and the reason, as messages print them. */
  toString(): string {
    return `${this.path.join(".") || "(root)"}: ${this.reason}`;
  }
}

/** Checks a parsed JSON value: returns it (records given the fields they lacked) or the first {@link Problem}. */
type Shape = (value: unknown) => unknown;

/** One field of a record: its shape, and what a record without it gets (undefined: it must be there). */
interface Field {
  readonly shape: Shape;
  readonly fallback?: string | number | boolean | null | undefined;
}

function at(key: string | number, problem: Problem): Problem {
  problem.path.unshift(key);
  return problem;
}

const string: Shape = (v) => (typeof v === "string" ? v : new Problem("not a string"));
const integer: Shape = (v) => (Number.isSafeInteger(v) ? v : new Problem("not an integer"));
const boolean: Shape = (v) => (typeof v === "boolean" ? v : new Problem("not a boolean"));

function matching(pattern: RegExp, what: string): Shape {
  return (v) => (typeof v === "string" && pattern.test(v) ? v : new Problem(`not ${what}`));
}

function oneOf(values: readonly unknown[]): Shape {
  return (v) => (values.includes(v) ? v : new Problem(`not one of ${values.map((x) => JSON.stringify(x)).join(", ")}`));
}

function nullable(shape: Shape): Shape {
  return (v) => {
    if (v === null) return v;
    const checked = shape(v);
    return checked instanceof Problem && checked.path.length === 0 ? new Problem(`${checked.reason} or null`) : checked;
  };
}

function arrayOf(item: Shape): Shape {
  return (value) => {
    if (!Array.isArray(value)) return new Problem("not an array");
    for (let i = 0; i < value.length; i++) {
      const checked = item(value[i]);
      if (checked instanceof Problem) return at(i, checked);
      value[i] = checked;
    }
    return value;
  };
}

/** A field every record of this shape has. */
function required(shape: Shape): Field {
  return { shape };
}

/**
 * An object with exactly `fields`: an unknown field is refused, and a missing one takes its
 * fallback (the record rebuilt in the fields' order) or is refused when it has none.
 */
function record(fields: Readonly<Record<string, Field>>): Shape {
  const byName = new Map(Object.entries(fields));
  return (value) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return new Problem("not an object");
    const object = value as Record<string, unknown>;
    let present = 0;
    for (const key in object) {
      const field = byName.get(key);
      if (field === undefined) return at(key, new Problem("an unknown field"));
      const checked = field.shape(object[key]);
      if (checked instanceof Problem) return at(key, checked);
      object[key] = checked;
      present++;
    }
    if (present === byName.size) return object;
    const complete: Record<string, unknown> = {};
    for (const [name, field] of byName) {
      if (Object.hasOwn(object, name)) complete[name] = object[name];
      else if (field.fallback !== undefined) complete[name] = field.fallback;
      else return at(name, new Problem("missing, and it has no default"));
    }
    return complete;
  };
}

/**
 * The fields of a kind's outputs: a record without one gets the spec's `storedDefault`, else `null`
 * when the field is nullable, else it is refused (OutputFieldSpec in src/kinds/spec.ts).
 */
function outputFields(outputs: Readonly<Record<string, OutputFieldSpec>>): Record<string, Field> {
  return Object.fromEntries(
    Object.entries(outputs).map(([name, field]) => {
      const base = field.type === "string" ? string : field.type === "integer" ? integer : boolean;
      const shape = field.nullable ? nullable(base) : base;
      const fallback = field.storedDefault ?? (field.nullable ? null : undefined);
      if (fallback !== undefined && shape(fallback) instanceof Problem) throw new TypeError(`the storedDefault of output field ${name} is not a ${field.type}`);
      return [name, { shape, fallback }];
    }),
  );
}

/** Built on first use: the shapes of the records, from the kinds as they are then. */
let shapes: { records: Record<StateRecordKind, Shape>; files: Record<1 | 2, Shape> } | undefined;

function stateShapes(): NonNullable<typeof shapes> {
  if (shapes) return shapes;
  const column = record({ name: required(string), type: required(string), nullable: required(boolean) });
  const table = record({ schema: required(string), name: required(string), columns: required(arrayOf(column)) });
  const trial = record({ startedAt: required(string), endsAt: required(string) });
  const records = {
    apiKey: record({
      digest: required(matching(/^[0-9a-f]{64}$/, "a SHA-256 digest in hex")),
      userName: required(matching(USER_NAME_PATTERN, "a user name")),
      createdAt: required(string),
    }),
    organization: record({
      ...outputFields(organizationSpec.outputs),
      ownerUserName: required(string),
      createdAt: required(string),
      trial: required(nullable(trial)),
    }),
    dataSource: record({
      organizationId: required(string),
      fields: required(record(outputFields(dataSourceSpec.outputs))),
      tables: required(nullable(arrayOf(table))),
      providedSecretFields: required(arrayOf(oneOf(SECRET_DATA_SOURCE_FIELDS))),
    }),
  };
  const body = {
    format: required(oneOf([STATE_FORMAT])),
    apiKeys: required(arrayOf(records.apiKey)),
    organizations: required(arrayOf(records.organization)),
    dataSources: required(arrayOf(records.dataSource)),
  };
  const journalSeq = required((v) => (Number.isSafeInteger(v) && (v as number) >= 0 ? v : new Problem("not an integer >= 0")));
  shapes = { records, files: { 1: record({ ...body, version: required(oneOf([1])) }), 2: record({ ...body, version: required(oneOf([2])), journalSeq }) } };
  return shapes;
}

/** A release version: `major.minor.patch`, perhaps with a prerelease (`-rc.1`). */
const RELEASE_PATTERN = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?$/;

/** Orders release versions: by major, minor and patch, a prerelease before its release. */
export function compareReleases(a: string, b: string): number {
  const [, ...pa] = RELEASE_PATTERN.exec(a) ?? [];
  const [, ...pb] = RELEASE_PATTERN.exec(b) ?? [];
  for (let i = 0; i < 3; i++) {
    const d = Number(pa[i]) - Number(pb[i]);
    if (d !== 0) return d;
  }
  if (pa[3] === pb[3]) return 0;
  if (pa[3] === undefined || pb[3] === undefined) return pa[3] === undefined ? 1 : -1;
  return pa[3] < pb[3] ? -1 : 1;
}

function notStateFile(problem: Problem): StateError {
  return new StateError(`state file is not a reference-server state file (first problem at ${problem.toString()})`);
}

/**
 * The parsed JSON of a state file, checked against its shape: a record of an earlier release gets
 * the fields it lacks (see {@link outputFields}); a file of a newer release is refused before its
 * records are read. Throws a {@link StateError} naming the first problem.
 */
export function parseStateFileContents(raw: unknown): StateFileContents {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw notStateFile(new Problem("not an object"));
  const { release, ...rest } = raw as Record<string, unknown>;
  if (rest.format !== STATE_FORMAT) throw notStateFile(at("format", new Problem(`not ${JSON.stringify(STATE_FORMAT)}`)));
  if (release !== undefined) {
    if (typeof release !== "string" || !RELEASE_PATTERN.test(release)) throw notStateFile(at("release", new Problem("not a release version such as 0.1.0")));
    if (compareReleases(release, RELEASE) > 0) {
      throw new StateError(
        `state file written by pulumi-analytics ${release}, a newer release than this reference server (${RELEASE}): its records may hold fields this release does not know and would drop. ` +
          `Nothing was changed: run ${release} or later on it, or start this release on another file.`,
      );
    }
  }
  const shape = rest.version === 1 || rest.version === 2 ? stateShapes().files[rest.version] : undefined;
  if (shape === undefined) throw notStateFile(at("version", new Problem("not 1 or 2, the layouts this release reads")));
  const checked = shape(rest);
  if (checked instanceof Problem) throw notStateFile(checked);
  return release === undefined ? (checked as StateFileContents) : { ...(checked as StateFileContents), release };
}

/** `raw` checked as a record of `kind` (a journal line's), by the same rules as the file's records. Throws a {@link StateError} naming the first problem. */
export function parseStateRecord(kind: StateRecordKind, raw: unknown): ApiKeyRecord | OrganizationRecord | DataSourceRecord {
  const checked = stateShapes().records[kind](raw);
  if (checked instanceof Problem) throw new StateError(`not a valid ${kind} record (first problem at ${checked.toString()})`);
  return checked as ApiKeyRecord | OrganizationRecord | DataSourceRecord;
}

/** A detached copy of everything `store` persists, as a state file of the current version holds it: no key, no credential. */
export function stateFileContents(store: ReferenceStore): StateFileContents {
  return structuredClone({
    format: STATE_FORMAT,
    version: STATE_VERSION,
    release: RELEASE,
    journalSeq: 0,
    apiKeys: [...store.apiKeys.values()],
    organizations: [...store.organizations.values()],
    dataSources: [...store.dataSources.values()],
  });
}

/** Pure input handling for the dynamic providers: validation (check), defaults and diffing. */
import {
  DATA_SOURCE_DEFAULTS,
  DATA_SOURCE_REQUEST_FIELDS,
  SECRET_DATA_SOURCE_FIELDS,
  createDataSourceRequest,
  createOrganizationRequest,
  describeValue,
  validate,
} from "../contract";

/**
 * The engine's placeholder for a value not known until apply (`pulumi.runtime.unknownValue`),
 * repeated here so this module stays free of the SDK.
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Property the dynamic provider host keeps the serialized provider under. */
export const PROVIDER_KEY = "__provider";

/** The two resource kinds. */
export type ResourceKind = "organization" | "dataSource";

/** A failed input, as the engine reports it. */
export interface InputFailure {
  /** Input property name. */
  property: string;
  /** What is wrong and what is allowed. */
  reason: string;
}

/** Result of checking one resource's inputs. */
export interface CheckOutcome {
  /** Inputs with defaults applied (the originals when there are failures). */
  inputs: Record<string, unknown>;
  /** One entry per offending property; empty when valid. */
  failures: InputFailure[];
}

/** Result of diffing old outputs against new inputs. */
export interface DiffOutcome {
  /** Whether anything the user declared changed. */
  changes: boolean;
  /** The changed properties; every change is a replace, since the API cannot update. */
  replaces: string[];
  /** Always false: the replacement is created before the old object is let go. */
  deleteBeforeReplace: false;
}

/** Inputs of an Organization, in the order they are compared. */
export const ORGANIZATION_INPUTS = ["name"] as const;
/** Inputs of a DataSource, in the order they are compared. */
export const DATA_SOURCE_INPUTS = ["orgId", ...DATA_SOURCE_REQUEST_FIELDS] as const;

/** Input names of a kind. */
export function inputNames(kind: ResourceKind): readonly string[] {
  return kind === "organization" ? ORGANIZATION_INPUTS : DATA_SOURCE_INPUTS;
}

function withoutProvider(values: Record<string, unknown>): Record<string, unknown> {
  const { [PROVIDER_KEY]: _ignored, ...rest } = values;
  return rest;
}

function unknownKeys(values: Record<string, unknown>): string[] {
  return Object.keys(values).filter((key) => values[key] === UNKNOWN);
}

/** Validates an Organization's inputs with the API contract; unknown values pass. */
export function checkOrganization(news: Record<string, unknown>): CheckOutcome {
  const inputs = withoutProvider(news);
  const pending = unknownKeys(inputs);
  const known = Object.fromEntries(Object.entries(inputs).filter(([key]) => !pending.includes(key)));
  const schema = pending.length ? createOrganizationRequest.partial() : createOrganizationRequest;
  const result = validate(schema, known);
  if (!result.ok) return { inputs, failures: result.errors.map((e) => ({ property: e.field, reason: e.reason })) };
  return { inputs: { ...result.value, ...Object.fromEntries(pending.map((key) => [key, UNKNOWN])) }, failures: [] };
}

/**
 * Validates a DataSource's inputs with the API contract and applies the spec's defaults
 * (sslEnabled true, sshEnabled false; an absent databaseName becomes null). Values still unknown
 * during preview are not failed; they are checked again once known.
 */
export function checkDataSource(news: Record<string, unknown>): CheckOutcome {
  const inputs = withoutProvider(news);
  const { orgId, ...body } = inputs;
  const failures: InputFailure[] = [];
  if (orgId !== UNKNOWN && (typeof orgId !== "string" || orgId.length === 0)) {
    failures.push({
      property: "orgId",
      reason:
        orgId === undefined
          ? "is required: pass the organization's id, e.g. `orgId: org.id`"
          : `must be a non-empty string (an organization id), got ${describeValue(orgId)}`,
    });
  }
  const pending = unknownKeys(body);
  const known = Object.fromEntries(Object.entries(body).filter(([key]) => !pending.includes(key)));
  const mask = Object.fromEntries(pending.filter((k) => k in createDataSourceRequest.shape).map((k) => [k, true as const])) as Partial<
    Record<keyof typeof createDataSourceRequest.shape, true>
  >;
  const schema = pending.length ? createDataSourceRequest.partial(mask) : createDataSourceRequest;
  const result = validate(schema, known);
  if (!result.ok) failures.push(...result.errors.map((e) => ({ property: e.field, reason: e.reason })));
  if (failures.length || !result.ok) return { inputs, failures };
  const checked: Record<string, unknown> = { orgId, ...result.value };
  if (checked.databaseName === undefined) checked.databaseName = null;
  for (const key of pending) checked[key] = UNKNOWN;
  return { inputs: checked, failures: [] };
}

/** Checks inputs of either kind. */
export function checkInputs(kind: ResourceKind, news: Record<string, unknown>): CheckOutcome {
  return kind === "organization" ? checkOrganization(news) : checkDataSource(news);
}

/** The value a field stands for once defaults apply: absent and null are the same, and so is a default written out. */
function effective(field: string, value: unknown): unknown {
  if (value === undefined || value === null) {
    if (field in DATA_SOURCE_DEFAULTS) return DATA_SOURCE_DEFAULTS[field as keyof typeof DATA_SOURCE_DEFAULTS];
    return null;
  }
  return value;
}

/**
 * Compares the previous outputs with the new inputs, field by field. `__provider` is never
 * compared; an unknown new value counts as a change. Every change is a replace.
 */
export function diffInputs(kind: ResourceKind, olds: Record<string, unknown>, news: Record<string, unknown>): DiffOutcome {
  const replaces = inputNames(kind).filter((field) => {
    const next = news[field];
    if (next === UNKNOWN) return true;
    return effective(field, olds[field]) !== effective(field, next);
  });
  return { changes: replaces.length > 0, replaces, deleteBeforeReplace: false };
}

/** The request body for a checked DataSource: its inputs without orgId. */
export function dataSourceBody(inputs: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of DATA_SOURCE_REQUEST_FIELDS) {
    if (inputs[field] !== undefined) body[field] = inputs[field];
  }
  return body;
}

/** Secret input names of a kind (kept as same-named secret outputs). */
export function secretInputs(kind: ResourceKind): readonly string[] {
  return kind === "organization" ? [] : SECRET_DATA_SOURCE_FIELDS;
}

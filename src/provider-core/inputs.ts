/** Pure input handling of both providers: validation (check), defaults and diffing, and the results they answer. */
import { describeValue, requestSchema, validate } from "../contract";
import { bodyFieldNames, defaultsOf, inputNames, kindSpec, ownerFieldNames, secretFieldNames, type KindSpec, type ResourceKind } from "../kinds";
import { PROVIDER_KEY, UNKNOWN } from "./engine-markers";

export { PROVIDER_KEY, UNKNOWN } from "./engine-markers";

export type { ResourceKind } from "../kinds";

/** A failed input, as the engine reports it. */
export interface CheckFailure {
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
  failures: CheckFailure[];
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

function withoutProvider(values: Record<string, unknown>): Record<string, unknown> {
  const { [PROVIDER_KEY]: _ignored, ...rest } = values;
  return rest;
}

function unknownKeys(values: Record<string, unknown>): string[] {
  return Object.keys(values).filter((key) => values[key] === UNKNOWN);
}

/** Failures of the owner ids (such as `orgId`), which travel in the path and so are checked here. */
function ownerFailures(spec: KindSpec, inputs: Record<string, unknown>): CheckFailure[] {
  const failures: CheckFailure[] = [];
  for (const name of ownerFieldNames(spec)) {
    const value = inputs[name];
    if (value === UNKNOWN || (typeof value === "string" && value.length > 0)) continue;
    const owner = spec.inputs[name]!.owner!;
    const example = `\`${name}: ${name.replace(/Id$/, "")}.id\``;
    const reason =
      value === undefined ? `is required: pass the ${owner}'s id, e.g. ${example}` : `must be a non-empty string (an ${owner} id), got ${describeValue(value)}`;
    failures.push({ property: name, reason });
  }
  return failures;
}

/** The contract's reason for a field the request does not have. */
const UNKNOWN_FIELD_REASON = "is not a field of this request";

/** A failure's reason in terms of the resource: an unknown field's names the inputs there are. */
function inputReason(spec: KindSpec, reason: string): string {
  if (reason !== UNKNOWN_FIELD_REASON) return reason;
  return `is not an input of ${spec.typeName}; its inputs are ${inputNames(spec).join(", ")}`;
}

/**
 * Validates a resource's inputs with the API contract and applies the spec's defaults (an absent
 * nullable field becomes null). Values still unknown during preview are not failed; they are
 * checked again once known.
 */
export function checkInputs(kind: ResourceKind, news: Record<string, unknown>): CheckOutcome {
  const spec = kindSpec(kind);
  const inputs = withoutProvider(news);
  const owners = ownerFieldNames(spec);
  const body = Object.fromEntries(Object.entries(inputs).filter(([key]) => !owners.includes(key)));
  const failures = ownerFailures(spec, inputs);
  const pending = unknownKeys(body);
  const known = Object.fromEntries(Object.entries(body).filter(([key]) => !pending.includes(key)));
  const schema = requestSchema(spec);
  // Own keys only: an unknown `toString` is not a field, though `in` finds it on every object.
  const mask = Object.fromEntries(pending.filter((key) => Object.hasOwn(schema.shape, key)).map((key) => [key, true as const]));
  const result = validate(pending.length ? schema.partial(mask as never) : schema, known);
  if (!result.ok) failures.push(...result.errors.map((e) => ({ property: e.field, reason: inputReason(spec, e.reason) })));
  for (const key of pending) if (!Object.hasOwn(schema.shape, key)) failures.push({ property: key, reason: inputReason(spec, UNKNOWN_FIELD_REASON) });
  if (failures.length || !result.ok) return { inputs, failures };
  const checked: Record<string, unknown> = { ...Object.fromEntries(owners.map((name) => [name, inputs[name]])), ...result.value };
  for (const [name, field] of Object.entries(spec.inputs)) if (field.nullable && checked[name] === undefined) checked[name] = null;
  for (const key of pending) checked[key] = UNKNOWN;
  return { inputs: checked, failures: [] };
}

/** The value a field stands for once defaults apply: absent and null are the same, and so is a default written out. */
function effective(defaults: Record<string, unknown>, field: string, value: unknown): unknown {
  if (value === undefined || value === null) return field in defaults ? defaults[field] : null;
  return value;
}

/**
 * Compares the previous outputs with the new inputs, input by input in the spec's order.
 * `__provider` is never compared; an unknown new value counts as a change. Every change is a
 * replace: the API cannot update.
 */
export function diffInputs(kind: ResourceKind, olds: Record<string, unknown>, news: Record<string, unknown>): DiffOutcome {
  const spec = kindSpec(kind);
  const defaults = defaultsOf(spec);
  const replaces = inputNames(spec).filter((field) => {
    const next = news[field];
    if (next === UNKNOWN) return true;
    return effective(defaults, field, olds[field]) !== effective(defaults, field, next);
  });
  return { changes: replaces.length > 0, replaces, deleteBeforeReplace: false };
}

/** The create body for checked inputs: the body fields that are set (owner ids travel in the path). */
export function requestBody(kind: ResourceKind, inputs: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of bodyFieldNames(kindSpec(kind))) {
    if (inputs[field] !== undefined) body[field] = inputs[field];
  }
  return body;
}

/** The owner ids of checked inputs, as the create path takes them (e.g. `{ orgId }`). */
export function ownerIds(kind: ResourceKind, inputs: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(ownerFieldNames(kindSpec(kind)).map((name) => [name, String(inputs[name])]));
}

/** Secret input names of a kind (kept as same-named secret outputs). */
export function secretInputs(kind: ResourceKind): readonly string[] {
  return secretFieldNames(kindSpec(kind));
}

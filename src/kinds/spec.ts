/**
 * The shape of a resource kind's spec: what the API takes and returns for it, written once per
 * kind (organization.ts, data-source.ts) and read by the contract, the client, the dynamic
 * providers and the reference server. Free of zod and of the Pulumi SDK, so every layer can load it.
 */

/** A JSON value type a field can have. */
export type FieldType = "string" | "integer" | "boolean";

/** One input: a body field of the create request, or (with `inPath`) the parent id in its path. */
export interface InputFieldSpec {
  /** JSON type of the value. */
  readonly type: FieldType;
  /** Must be given. */
  readonly required?: true;
  /** `null` is accepted too. */
  readonly nullable?: true;
  /** A credential: accepted on create, never returned by the API, never shown. */
  readonly secret?: true;
  /** Value the spec states for an omitted field. */
  readonly default?: boolean;
  /** The only values allowed, each with what it means: a closed set, an enum type in the package schema. */
  readonly values?: Readonly<Record<string, string>>;
  /** Shortest string allowed. */
  readonly minLength?: number;
  /** Smallest and largest integer allowed. */
  readonly range?: readonly [number, number];
  /** The id of the owning object, of this kind (noun); sent in the endpoint's path, not in the body. */
  readonly owner?: string;
}

/** One output: a field of the API's answer. */
export interface OutputFieldSpec {
  /** JSON type of the value. */
  readonly type: FieldType;
  /** May be `null` (an optional field left unset). */
  readonly nullable?: true;
  /**
   * Value the field takes in a stored record that lacks it: one that the reference server of an
   * earlier release wrote before the field was added to this spec. Without it, such a record gets
   * `null` for a nullable field and is refused otherwise, so a field added after a release needs
   * one unless it is nullable. (Not the API's: an answer always has every field.)
   */
  readonly storedDefault?: string | number | boolean;
}

/** Everything the project knows about one kind of object of the API. */
export interface KindSpec {
  /** The kind's name in the serialized providers of existing stacks (never renamed). */
  readonly kind: string;
  /** Type name shown to users, e.g. `DataSource`; the engine's type tokens are built from it ({@link dynamicTypeToken}). */
  readonly typeName: string;
  /** Words for it in messages, e.g. `data source`. */
  readonly noun: string;
  /** Input that names an object in messages (never a secret). */
  readonly labelField: string;
  /** The create endpoint: `POST` on this path pattern (`{orgId}` and the like are `inPath` inputs). */
  readonly endpoint: { readonly method: "POST"; readonly pattern: string };
  /** Inputs, in the spec's order. The API cannot update, so a change to any of them is a replace. */
  readonly inputs: Readonly<Record<string, InputFieldSpec>>;
  /** Fields of the API's answer, in the spec's order; the first is `id`. */
  readonly outputs: Readonly<Record<string, OutputFieldSpec>>;
}

/** Pulumi module of every kind: the `analytics` in `pulumi-nodejs:dynamic/analytics:DataSource`. */
export const PULUMI_MODULE = "analytics";

/** The type token the engine records for a kind's dynamic resource, e.g. `pulumi-nodejs:dynamic/analytics:DataSource`. */
export function dynamicTypeToken(spec: KindSpec): string {
  return `pulumi-nodejs:dynamic/${PULUMI_MODULE}:${spec.typeName}`;
}

/** The type token of a kind's resource in the native provider's schema, e.g. `analytics:index:DataSource`. */
export function nativeTypeToken(spec: KindSpec): string {
  return `${PULUMI_MODULE}:index:${spec.typeName}`;
}

/** The id of a kind's create operation, as routes, fault settings and the OpenAPI document name it, e.g. `createDataSource`. */
export function createOperationId<S extends KindSpec>(spec: S): `create${S["typeName"]}` {
  return `create${spec.typeName}` as `create${S["typeName"]}`;
}

/** Names of the inputs a kind takes, in order. */
export function inputNames(spec: KindSpec): string[] {
  return Object.keys(spec.inputs);
}

/** Names of the inputs sent in the create body (not in the path), in order. */
export function bodyFieldNames(spec: KindSpec): string[] {
  return Object.keys(spec.inputs).filter((name) => spec.inputs[name]!.owner === undefined);
}

/** Names of the inputs that are owners' ids, sent in the endpoint's path, in order. */
export function ownerFieldNames(spec: KindSpec): string[] {
  return Object.keys(spec.inputs).filter((name) => spec.inputs[name]!.owner !== undefined);
}

/** How messages name one object, e.g. `data source "Warehouse" in organization org_1`; never a secret. */
export function describeObject(spec: KindSpec, values: Readonly<Record<string, unknown>>): string {
  const owners = ownerFieldNames(spec).map((name) => ` in ${spec.inputs[name]!.owner} ${String(values[name])}`);
  return `${spec.noun} ${JSON.stringify(values[spec.labelField])}${owners.join("")}`;
}

/** The inputs of `spec` among `values`: no field the kind does not have (such as `__provider` or `id`). */
export function declaredInputs(spec: KindSpec, values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    inputNames(spec)
      .filter((name) => Object.hasOwn(values, name))
      .map((name) => [name, values[name]]),
  );
}

/** Names of the secret inputs, in order. */
export function secretFieldNames(spec: KindSpec): string[] {
  return Object.keys(spec.inputs).filter((name) => spec.inputs[name]!.secret === true);
}

/**
 * Names of the inputs stored and shown in plain text where a credential could be pasted by
 * mistake: free-form strings, so not secrets, owner ids or fields limited to fixed values.
 */
export function plainTextFieldNames(spec: KindSpec): string[] {
  return Object.keys(spec.inputs).filter((name) => {
    const field = spec.inputs[name]!;
    return field.type === "string" && !field.secret && field.owner === undefined && field.values === undefined;
  });
}

/** Names of the API answer's fields, in order. */
export function outputNames(spec: KindSpec): string[] {
  return Object.keys(spec.outputs);
}

/** The defaults the spec states for omitted inputs. */
export function defaultsOf(spec: KindSpec): Record<string, unknown> {
  const defaults: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(spec.inputs)) if (field.default !== undefined) defaults[name] = field.default;
  return defaults;
}

/** The create path for an object whose path inputs are `params` (each URL-encoded). */
export function endpointPath(spec: KindSpec, params: Readonly<Record<string, string>> = {}): string {
  return spec.endpoint.pattern.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ""));
}

/** The values an input allows, in the spec's order; undefined when any value of its type is allowed. */
export function allowedValues(field: InputFieldSpec): string[] | undefined {
  return field.values === undefined ? undefined : Object.keys(field.values);
}

/** The name of the enum type of a closed input, e.g. `DataSourceType` for the data source's `type`. */
export function enumTypeName(spec: KindSpec, input: string): string {
  return `${spec.typeName}${input[0]!.toUpperCase()}${input.slice(1)}`;
}

/** The name of an enum value's constant in the SDKs, from the value: `direct` → `Direct`, `POSTGRES` → `Postgres`, `read_only` → `ReadOnly`. */
export function enumValueName(value: string): string {
  return value
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => `${word[0]!.toUpperCase()}${word.slice(1).toLowerCase()}`)
    .join("");
}

/** How the rules name a range: `an integer from 0 to 65535`. */
export function rangeWords([min, max]: readonly [number, number]): string {
  return `an integer from ${min} to ${max}`;
}

/**
 * The rules the spec sets for an input, as sentences for its documentation: required, allowed
 * values, length, range, default, secret, and that a change replaces the object.
 */
export function inputRules(spec: KindSpec, name: string): string[] {
  const field = spec.inputs[name]!;
  const values = allowedValues(field);
  const rules: string[] = [];
  if (field.required) rules.push("Required.");
  if (values !== undefined) rules.push(`${values.length === 1 ? "Allowed value" : "Allowed values"}: ${values.map((v) => `\`${v}\``).join(", ")}.`);
  if (field.minLength !== undefined) rules.push(`At least ${field.minLength} character${field.minLength === 1 ? "" : "s"}.`);
  if (field.range !== undefined) rules.push(`${capitalized(rangeWords(field.range))}.`);
  if (field.default !== undefined) rules.push(`Defaults to \`${String(field.default)}\`.`);
  if (field.secret) rules.push("Always a secret: encrypted in the state, `[secret]` in previews.");
  rules.push(`Changing it replaces the ${spec.noun}; the old one stays in the service.`);
  return rules;
}

/** `text` with its first letter in upper case. */
function capitalized(text: string): string {
  return `${text[0]!.toUpperCase()}${text.slice(1)}`;
}

/** JSON value type of a field. */
type ValueOfType<T extends FieldType> = T extends "string" ? string : T extends "integer" ? number : boolean;

/** The value an input field takes (enum values narrowed, `null` where allowed). */
export type InputValue<F extends InputFieldSpec> =
  | (F extends { values: infer V } ? keyof V & string : ValueOfType<F["type"]>)
  | (F extends { nullable: true } ? null : never);

/** The value an output field has. */
export type OutputValue<F extends OutputFieldSpec> = ValueOfType<F["type"]> | (F extends { nullable: true } ? null : never);

/** Names of the required inputs of `I`. */
export type RequiredInputs<I extends Record<string, InputFieldSpec>> = { [K in keyof I]: I[K] extends { required: true } ? K : never }[keyof I];

/** Inputs of `I` as plain values, each with the doc comment of its spec entry; optional unless required. */
export type InputValues<I extends Record<string, InputFieldSpec>> = Pick<{ -readonly [K in keyof I]: InputValue<I[K]> }, RequiredInputs<I>> &
  Partial<Pick<{ -readonly [K in keyof I]: InputValue<I[K]> }, Exclude<keyof I, RequiredInputs<I>>>>;

/** Outputs of `O` as plain values, each with the doc comment of its spec entry. */
export type OutputValues<O extends Record<string, OutputFieldSpec>> = { -readonly [K in keyof O]: OutputValue<O[K]> };

/** Names of the inputs of `I` that carry an owner's id in the path. */
export type OwnerInputs<I extends Record<string, InputFieldSpec>> = { [K in keyof I]: I[K] extends { owner: string } ? K : never }[keyof I];

/** Names of the inputs of `I` for which the spec states a default. */
export type DefaultedInputs<I extends Record<string, InputFieldSpec>> = { [K in keyof I]: I[K] extends { default: boolean } ? K : never }[keyof I];

/** A create body of `I` as sent: its inputs without the owner ids, which travel in the path. */
export type BodyValues<I extends Record<string, InputFieldSpec>> = Omit<InputValues<I>, OwnerInputs<I>>;

/** A create body of `I` once parsed: the spec's defaults applied, so every defaulted field is present. */
export type ParsedBodyValues<I extends Record<string, InputFieldSpec>> = Omit<BodyValues<I>, DefaultedInputs<I>> & {
  -readonly [K in DefaultedInputs<I>]: InputValue<I[K]>;
};

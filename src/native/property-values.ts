/**
 * The engine's property values (a `google.protobuf.Struct` as JavaScript) to and from the plain
 * values the shared check, diff and create logic takes: secrets unwrapped and wrapped again,
 * unknowns kept as the marker `checkInputs` understands. Pure: no gRPC, no SDK.
 */
import { UNKNOWN } from "../provider-core/engine-markers";

export { UNKNOWN } from "../provider-core/engine-markers";

/** Key of the signature that marks a special value in a property Struct. */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";

/** Signature of a secret: `{ [SIG_KEY]: SECRET_SIG, value }`. */
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

/** A property map as the engine sends it, decoded from its Struct. */
export type PropertyMap = Record<string, unknown>;

/** A secret as it travels on the wire. */
export interface WireSecret {
  /** The secret signature. */
  readonly [SIG_KEY]: typeof SECRET_SIG;
  /** The value it hides. */
  readonly value: unknown;
}

/** Whether `value` is a wire secret. */
export function isSecret(value: unknown): value is WireSecret {
  return typeof value === "object" && value !== null && (value as Record<string, unknown>)[SIG_KEY] === SECRET_SIG;
}

/** `value` as a wire secret (unchanged if it already is one). */
export function asSecret(value: unknown): WireSecret {
  return isSecret(value) ? value : { [SIG_KEY]: SECRET_SIG, value };
}

/** `value` with every secret inside it replaced by its value. */
function reveal(value: unknown): { value: unknown; secret: boolean } {
  if (isSecret(value)) return { value: reveal(value.value).value, secret: true };
  if (Array.isArray(value)) {
    const items = value.map(reveal);
    return { value: items.map((item) => item.value), secret: items.some((item) => item.secret) };
  }
  if (typeof value === "object" && value !== null) {
    const { values, secretKeys } = unwrapProperties(value as PropertyMap);
    return { value: values, secret: secretKeys.size > 0 };
  }
  return { value, secret: false };
}

/** Plain values of a property map, and which of its top-level keys were (or held) secrets. */
export interface UnwrappedProperties {
  /** Every secret replaced by its value; unknowns stay {@link UNKNOWN}. */
  values: PropertyMap;
  /** Top-level keys whose value was a secret or contained one. */
  secretKeys: Set<string>;
}

/** Unwraps every secret of `properties`, remembering which top-level keys were secret. */
export function unwrapProperties(properties: PropertyMap): UnwrappedProperties {
  const values: PropertyMap = {};
  const secretKeys = new Set<string>();
  for (const [key, raw] of Object.entries(properties)) {
    const { value, secret } = reveal(raw);
    values[key] = value;
    if (secret) secretKeys.add(key);
  }
  return { values, secretKeys };
}

/** `values` with each of `names` that is present wrapped as a secret (an unknown too: it stays a secret once known). */
export function wrapSecrets(values: PropertyMap, names: Iterable<string>): PropertyMap {
  const wrapped: PropertyMap = { ...values };
  for (const name of names) {
    if (wrapped[name] !== undefined) wrapped[name] = asSecret(wrapped[name]);
  }
  return wrapped;
}

/** Whether `value` is the engine's unknown marker. */
export function isUnknown(value: unknown): boolean {
  return value === UNKNOWN;
}

/**
 * Answer profiles: the ways the public API specification allows a create's answer to look, beyond
 * the one this server gives by default. The spec leaves open the success status, fields beyond those
 * listed, the full value sets of the status fields, and how an unset field is sent; a client must
 * work whichever way the real service chose. A profile is a fault setting (`answerProfile`), chosen
 * at start (`--answer-profile`) or through `POST /_reference/faults`; the answers it shaped carry
 * {@link PROFILE_HEADER}. docs/spec-gaps.md lists each choice and the test that holds it.
 */
import type { KindSpec } from "../../kinds";

/** Every profile, with what it changes. */
export const ANSWER_PROFILES = {
  spec: "Every field of the spec, an unset one as null, with 201 Created: the default.",
  "absent-unset": "Fields that are unset are left out of the answer instead of being null.",
  "status-200": "Creates answer 200 OK instead of 201 Created.",
  "extra-fields": "Each answer carries fields the spec does not list: a string, a number, an object and an array.",
  "new-status-values":
    "The status fields carry values beyond the observed ones (onboardingStatus IN_PROGRESS, lastSyncStatus QUEUED, lastHealthStatus UNKNOWN).",
  "other-types":
    "Values of other JSON types: ids as numbers (aliases kept in memory, accepted in paths), integers as decimal strings, booleans as 0 and 1, timestamps as milliseconds since 1970.",
} as const;

/** One of {@link ANSWER_PROFILES}. */
export type AnswerProfile = keyof typeof ANSWER_PROFILES;

/** The profile of a server that was given none. */
export const DEFAULT_ANSWER_PROFILE: AnswerProfile = "spec";

/** Response header naming the profile that shaped a create's answer, when it is not {@link DEFAULT_ANSWER_PROFILE}. */
export const PROFILE_HEADER = "X-Reference-Profile";

/** The names of {@link ANSWER_PROFILES}, in order. */
export const ANSWER_PROFILE_NAMES = Object.keys(ANSWER_PROFILES) as [AnswerProfile, ...AnswerProfile[]];

/** Whether `name` is a profile. */
export function isAnswerProfile(name: unknown): name is AnswerProfile {
  return typeof name === "string" && Object.hasOwn(ANSWER_PROFILES, name);
}

/** The fields `extra-fields` adds to every answer. */
export const EXTRA_FIELDS: Readonly<Record<string, unknown>> = {
  region: "local",
  schemaVersion: 2,
  workspace: { id: "ws_reference", plan: "trial" },
  labels: ["reference-server"],
};

/** The values `new-status-values` gives the state-carrying fields, where a kind has them. */
export const NEW_STATUS_VALUES: Readonly<Record<string, string>> = { onboardingStatus: "IN_PROGRESS", lastSyncStatus: "QUEUED", lastHealthStatus: "UNKNOWN" };

/**
 * Numeric ids for `other-types`: each object's answer gives a number, and a path naming that number
 * reaches the object. Kept in memory only: after a restart, the numbers given before are unknown.
 */
export class NumericIds {
  private readonly numbers = new Map<string, number>();
  private readonly ids = new Map<string, string>();

  /** The number standing for `id`, given on first use. */
  numberOf(id: string): number {
    let number = this.numbers.get(id);
    if (number === undefined) {
      number = this.numbers.size + 1;
      this.numbers.set(id, number);
      this.ids.set(String(number), id);
    }
    return number;
  }

  /** The id a path segment names: the object's own id, or the id a number stands for. */
  resolve(segment: string): string {
    return this.ids.get(segment) ?? segment;
  }
}

/** Whether a field of the answer is a timestamp (the spec's date-time fields all end in `At`). */
function isTimestamp(name: string): boolean {
  return name.endsWith("At");
}

/** A value of `other-types`: by the field's type in the spec. */
function otherType(spec: KindSpec, name: string, value: unknown, ids: NumericIds): unknown {
  if (value === null) return null;
  if (name === "id") return ids.numberOf(String(value as string));
  const type = spec.outputs[name]?.type;
  if (type === "integer") return String(value as number);
  if (type === "boolean") return value === true ? 1 : 0;
  if (type === "string" && isTimestamp(name) && typeof value === "string") return Date.parse(value);
  return value;
}

/** `data` of a create's answer as `profile` shapes it, and the answer's status. */
export function shapeAnswer(
  profile: AnswerProfile,
  spec: KindSpec,
  data: Readonly<Record<string, unknown>>,
  ids: NumericIds,
): { status: number; data: Record<string, unknown> } {
  const entries = Object.entries(data);
  switch (profile) {
    case "spec":
      return { status: 201, data: { ...data } };
    case "status-200":
      return { status: 200, data: { ...data } };
    case "absent-unset":
      return { status: 201, data: Object.fromEntries(entries.filter(([, value]) => value !== null)) };
    case "extra-fields":
      return { status: 201, data: { ...data, ...structuredClone(EXTRA_FIELDS) } };
    case "new-status-values":
      return {
        status: 201,
        data: Object.fromEntries(entries.map(([name, value]) => [name, Object.hasOwn(NEW_STATUS_VALUES, name) ? NEW_STATUS_VALUES[name] : value])),
      };
    case "other-types":
      return { status: 201, data: Object.fromEntries(entries.map(([name, value]) => [name, otherType(spec, name, value, ids)])) };
  }
}

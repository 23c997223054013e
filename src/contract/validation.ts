import type { z } from "zod";
import { allSecretFieldNames } from "../kinds";

/** One offending field and a reason a person can act on. */
export interface FieldError {
  /** Dotted path of the field, or `(body)` for the request as a whole. */
  field: string;
  /** What is wrong and what is allowed. */
  reason: string;
}

/** Result of {@link validate}: the parsed value, or every offending field. */
export type ValidationResult<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/** A short description of a JSON value, for "got ..." in reasons: short strings and numbers are quoted. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      if (value === "") return "an empty string";
      return value.length > 40 ? `a ${value.length}-character string` : JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? String(value) : "a non-finite number";
    case "boolean":
      return String(value);
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}

/** What was given in a credential field, never the value itself: its kind and, for strings, its length. */
export function describeSecretValue(value: unknown): string {
  if (typeof value === "string") return value === "" ? "an empty string" : `a ${value.length}-character string`;
  if (typeof value === "number") return "a number";
  if (typeof value === "boolean") return "a boolean";
  return describeValue(value);
}

const ARTICLES: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "a boolean (true or false)",
  object: "a JSON object",
  array: "an array",
};

/** The value at `path` in `input`, following own properties only; `found` is false when any step is missing. */
function lookup(input: unknown, path: readonly PropertyKey[]): { found: boolean; value: unknown } {
  let current = input;
  for (const key of path) {
    if (current === null || typeof current !== "object" || !Object.prototype.hasOwnProperty.call(current, key)) return { found: false, value: undefined };
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return { found: true, value: current };
}

function reasonFor(issue: z.core.$ZodIssue, input: unknown): string {
  const { found, value } = lookup(input, issue.path);
  if (!found) return "is required";
  // A credential of any kind is described, never quoted.
  const secret = allSecretFieldNames().has(String(issue.path[issue.path.length - 1] ?? ""));
  const got = `got ${secret ? describeSecretValue(value) : describeValue(value)}`;
  // Schemas that word their own rule ("must be ...") keep it, with the offending value.
  if (issue.message.startsWith("must ")) return `${issue.message}, ${got}`;
  switch (issue.code) {
    case "invalid_type":
      return `must be ${ARTICLES[issue.expected] ?? issue.expected}, ${got}`;
    case "invalid_value": {
      const allowed = issue.values.map((v) => JSON.stringify(v));
      return allowed.length === 1 ? `must be ${allowed[0]} (the only allowed value), ${got}` : `must be one of ${allowed.join(", ")}, ${got}`;
    }
    case "too_small":
      if (issue.origin === "string") return `must be at least ${String(issue.minimum)} character${issue.minimum === 1 ? "" : "s"} long, ${got}`;
      return `must be ${issue.inclusive ? "at least" : "greater than"} ${String(issue.minimum)}, ${got}`;
    case "too_big":
      if (issue.origin === "string") return `must be at most ${String(issue.maximum)} characters long, got ${String((value as string).length)} characters`;
      return `must be ${issue.inclusive ? "at most" : "less than"} ${String(issue.maximum)}, ${got}`;
    default:
      return `${issue.message}, ${got}`;
  }
}

/** Turns zod issues into one {@link FieldError} per offending field, in the schema's order. */
export function fieldErrors(issues: readonly z.core.$ZodIssue[], input: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const field = [...issue.path.map(String), key].join(".");
        if (!seen.has(field)) errors.push({ field, reason: "is not a field of this request" });
        seen.add(field);
      }
      continue;
    }
    const field = issue.path.length ? issue.path.map(String).join(".") : "(body)";
    if (seen.has(field)) continue;
    seen.add(field);
    errors.push({ field, reason: reasonFor(issue, input) });
  }
  return errors;
}

/** Parses `input` with `schema`, collecting every offending field instead of stopping at the first. */
export function validate<S extends z.ZodType>(schema: S, input: unknown): ValidationResult<z.output<S>> {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    return { ok: false, errors: [{ field: "(body)", reason: `must be a JSON object, got ${describeValue(input)}` }] };
  }
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, errors: fieldErrors(parsed.error.issues, input) };
}

/** `field: reason; field: reason`, the detail text of a ValidationError. */
export function formatFieldErrors(errors: readonly FieldError[]): string {
  return errors.map((e) => `${e.field}: ${e.reason}`).join("; ");
}

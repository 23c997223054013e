/**
 * How a create's answer is read: tolerantly, as clients of unversioned APIs are. The id is the one
 * thing that must be there; every other field of the kind is read as the spec types it, converted
 * where nothing is lost (a decimal string to an integer, a number to its text), null otherwise,
 * and each difference is said. Fields the spec does not list are kept as they came. Pure: no zod,
 * no HTTP. The table of what the spec leaves open, and what the provider does, is
 * docs/spec-gaps.md.
 */
import type { FieldType, KindSpec, OutputFieldSpec } from "../kinds";

/** One field of an answer that was not what the kind's spec says, and what is recorded instead. */
export interface AnswerDifference {
  /** The output field. */
  readonly field: string;
  /** What came, e.g. `absent`, `null`, `a string ("5432")`. A value is quoted only for what could not be kept, whole: redact it, then {@link shortQuote}. */
  readonly received: string;
  /** What the state records. */
  readonly recorded: unknown;
  /** True when nothing was lost: an absent or null value recorded as null, or a conversion that keeps the value. */
  readonly lossless: boolean;
}

/** An answer's `data` as the provider records it. */
export type AnswerReading =
  | { readonly id: string; readonly values: Record<string, unknown>; readonly differences: AnswerDifference[] }
  | { readonly id: undefined; readonly why: string };

/** What a field's value became: the value kept, and how it differed from the spec's type if it did. */
interface FieldReading {
  value: unknown;
  difference?: Omit<AnswerDifference, "field" | "recorded">;
}

/** How the spec's types read in messages. */
const TYPE_WORDS: Readonly<Record<FieldType, string>> = { string: "a string", integer: "an integer", boolean: "a boolean" };

/** Longest value quoted in a difference. */
const QUOTE_LIMIT = 40;

/** A JSON value's type in words, e.g. `a string`, `a number`, `an object`. */
export function jsonTypeWords(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return typeof value === "number" ? "a number" : `a ${typeof value}`;
}

/** A value as a difference quotes it: its type, and for a string, number or boolean its JSON text, whole (see {@link shortQuote}). */
function quoted(value: unknown): string {
  if (value === null || typeof value === "object") return jsonTypeWords(value);
  return `${jsonTypeWords(value)} (${JSON.stringify(value)})`;
}

/**
 * A difference's `received` with its quoted value cut to its first {@link QUOTE_LIMIT} characters.
 * Cut only once credentials are taken out of it: a cut first could leave part of one.
 */
export function shortQuote(received: string): string {
  const open = received.indexOf(" (");
  if (open < 0 || !received.endsWith(")")) return received;
  const text = received.slice(open + 2, -1);
  return text.length > QUOTE_LIMIT ? `${received.slice(0, open)} (${text.slice(0, QUOTE_LIMIT)}…)` : received;
}

/** A value that came as another type, converted without loss. */
function converted(value: unknown, to: unknown): FieldReading {
  return { value: to, difference: { received: jsonTypeWords(value), lossless: true } };
}

/** A value that could not be kept: recorded as null. */
function dropped(value: unknown): FieldReading {
  return { value: null, difference: { received: quoted(value), lossless: false } };
}

/** Reads a string field: a number or a boolean becomes its text. */
function readString(value: unknown): FieldReading {
  if (typeof value === "string") return { value };
  if ((typeof value === "number" && Number.isFinite(value)) || typeof value === "boolean") return converted(value, String(value));
  return dropped(value);
}

/** Reads an integer field: a decimal string becomes the integer it spells, when that is exact. */
function readInteger(value: unknown): FieldReading {
  if (typeof value === "number" && Number.isSafeInteger(value)) return { value };
  if (typeof value === "string" && /^-?\d{1,16}$/.test(value.trim()) && Number.isSafeInteger(Number(value))) return converted(value, Number(value));
  return dropped(value);
}

/** Reads a boolean field: the strings `true` and `false` become booleans. */
function readBoolean(value: unknown): FieldReading {
  if (typeof value === "boolean") return { value };
  if (value === "true" || value === "false") return converted(value, value === "true");
  return dropped(value);
}

const READERS: Readonly<Record<FieldType, (value: unknown) => FieldReading>> = { string: readString, integer: readInteger, boolean: readBoolean };

/** Reads one output field of the answer (`undefined` when absent). */
export function readField(field: OutputFieldSpec, value: unknown): FieldReading {
  if (value === undefined) return { value: null, difference: { received: "absent", lossless: true } };
  if (value === null) return field.nullable ? { value: null } : { value: null, difference: { received: "null", lossless: true } };
  return READERS[field.type](value);
}

/** The id of an answer's `data`: a non-empty string, or an integer number as its decimal text; else why there is none. */
export function readId(data: Readonly<Record<string, unknown>>): { id: string; converted: boolean } | { id: undefined; why: string } {
  const id = data.id;
  if (typeof id === "string" && id.trim() !== "") return { id, converted: false };
  if (typeof id === "number" && Number.isSafeInteger(id)) return { id: String(id), converted: true };
  if (typeof id === "number") return { id: undefined, why: `data.id is a number that cannot be read exactly (${String(id)})` };
  if (id === undefined) return { id: undefined, why: "data has no id" };
  return { id: undefined, why: `data.id is ${typeof id === "string" ? "an empty string" : jsonTypeWords(id)}` };
}

/**
 * Reads `data` of a kind's 2xx answer: the id, each output of the spec (in its order) as
 * {@link readField} reads it, then the fields the spec does not list, as they came.
 */
export function readAnswer(spec: KindSpec, data: unknown): AnswerReading {
  if (data === undefined) return { id: undefined, why: "the body has no data" };
  if (data === null || typeof data !== "object" || Array.isArray(data)) return { id: undefined, why: `data is ${jsonTypeWords(data)}, not an object` };
  const answer = data as Record<string, unknown>;
  const id = readId(answer);
  if (id.id === undefined) return id;
  const values: Record<string, unknown> = { id: id.id };
  const differences: AnswerDifference[] = id.converted ? [{ field: "id", received: jsonTypeWords(answer.id), recorded: id.id, lossless: true }] : [];
  for (const [name, field] of Object.entries(spec.outputs)) {
    if (name === "id") continue;
    const read = readField(field, Object.hasOwn(answer, name) ? answer[name] : undefined);
    values[name] = read.value;
    if (read.difference) differences.push({ field: name, recorded: read.value, ...read.difference });
  }
  for (const [name, value] of Object.entries(answer)) if (!Object.hasOwn(spec.outputs, name)) values[name] = value;
  return { id: id.id, values, differences };
}

/** What the spec says a field is, e.g. `an integer or null`. */
export function expectedWords(field: OutputFieldSpec): string {
  return `${TYPE_WORDS[field.type]}${field.nullable ? " or null" : ""}`;
}

/**
 * The zod schemas of each kind's create body and answer, built from the kind specs (src/kinds)
 * on first use and kept, one object per kind: zod compiles a parser for each schema object the
 * first time it parses with it. zod itself loads with the first schema (see src/lazy-zod.ts).
 */
import type { z } from "zod";
import { allowedValues, bodyFieldNames, rangeWords, type InputFieldSpec, type KindSpec, type OutputFieldSpec, type OutputValue } from "../kinds";
import { zod } from "../lazy-zod";

/** The schema of one input field, with the reasons the spec's rules are worded in. */
function inputSchema(z: typeof import("zod").z, field: InputFieldSpec): z.ZodType {
  let schema: z.ZodType;
  const values = allowedValues(field);
  if (values !== undefined) {
    schema = z.enum(values as [string, ...string[]]);
  } else if (field.range !== undefined) {
    // One reason for any invalid value, so every failure names the allowed range.
    const [min, max] = field.range;
    const rule = { error: `must be ${rangeWords(field.range)}` };
    schema = z.number(rule).int(rule).min(min, rule).max(max, rule);
  } else if (field.type === "string") {
    const text = field.nullable ? z.string({ error: "must be a string or null" }) : z.string();
    schema = field.minLength === undefined ? text : text.min(field.minLength);
  } else {
    schema = field.type === "integer" ? z.number().int() : z.boolean();
  }
  if (field.nullable) schema = schema.nullable();
  if (field.default !== undefined) return schema.default(field.default as never);
  return field.required ? schema : schema.optional();
}

/** A create body's schema. */
export type RequestSchema = z.ZodObject<Record<string, z.ZodType>, z.core.$strict>;

const requestSchemas = new WeakMap<KindSpec, RequestSchema>();

/** The create body's schema of a kind: its body inputs, unknown fields rejected so typos surface, defaults applied. */
export function requestSchema(spec: KindSpec): RequestSchema {
  let schema = requestSchemas.get(spec);
  if (schema === undefined) {
    const z = zod();
    schema = z.strictObject(Object.fromEntries(bodyFieldNames(spec).map((name) => [name, inputSchema(z, spec.inputs[name]!)])));
    requestSchemas.set(spec, schema);
  }
  return schema;
}

/** Zod schemas of a kind's answer fields, typed by the spec. */
export type ResponseShape<O extends Record<string, OutputFieldSpec>> = { -readonly [K in keyof O]: z.ZodType<OutputValue<O[K]>> };

/** The schemas of a kind's answer fields, in the spec's order. */
export function responseShape<O extends Record<string, OutputFieldSpec>>(outputs: O): ResponseShape<O> {
  const z = zod();
  const shape: Record<string, z.ZodType> = {};
  for (const [name, field] of Object.entries(outputs)) {
    const base = field.type === "string" ? z.string() : field.type === "integer" ? z.number().int() : z.boolean();
    shape[name] = field.nullable ? base.nullable() : base;
  }
  return shape as ResponseShape<O>;
}

/** The schema of a kind's object as the API returns it. */
export type ResponseSchema<O extends Record<string, OutputFieldSpec>> = z.ZodObject<ResponseShape<O>, z.core.$loose>;

const responseSchemas = new WeakMap<object, z.ZodType>();

/** The schema of a kind's object as the API returns it; extra fields are tolerated so new API fields do not break clients. */
export function responseSchema<O extends Record<string, OutputFieldSpec>>(outputs: O): ResponseSchema<O> {
  const built = responseSchemas.get(outputs);
  if (built !== undefined) return built as ResponseSchema<O>;
  const schema: ResponseSchema<O> = zod().looseObject(responseShape(outputs));
  responseSchemas.set(outputs, schema);
  return schema;
}

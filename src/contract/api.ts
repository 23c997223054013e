/**
 * The service's public API as zod schemas, built from the kind specs (src/kinds): the one source
 * of request and response validation for both the reference server and the provider. It states
 * only what the API specification states; the reference server's own limits live in the server.
 */
import { z } from "zod";
import {
  bodyFieldNames,
  dataSourceSpec,
  endpointPath,
  organizationSpec,
  type DataSourceInputs,
  type DataSourceOutputs,
  type InputFieldSpec,
  type KindSpec,
  type OrganizationInputs,
  type OutputFieldSpec,
  type OutputValue,
  type OrganizationOutputs,
} from "../kinds";

/** Path of the create-organization endpoint. */
export const ORGANIZATIONS_PATH = endpointPath(organizationSpec);

/** Path of the create-data-source endpoint for an organization. */
export function dataSourcesPath(orgId: string): string {
  return endpointPath(dataSourceSpec, { orgId });
}

/** Path of the single-sign-on endpoint for embedding (method and payload not shown in the spec). */
export const SSO_JWT_PATH = "/api/sso/jwt";

/** Length of the random part of an API key. */
export const API_KEY_SECRET_LENGTH = 32;

/** The schema of one input field, with the reasons the spec's rules are worded in. */
function inputSchema(field: InputFieldSpec): z.ZodType {
  let schema: z.ZodType;
  if (field.values !== undefined) {
    schema = z.enum(field.values as [string, ...string[]]);
  } else if (field.range !== undefined) {
    // One reason for any invalid value, so every failure names the allowed range.
    const [min, max] = field.range;
    const rule = { error: `must be an integer from ${min} to ${max}` };
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

/** The create body's schema of a kind: its body inputs, unknown fields rejected so typos surface, defaults applied. */
export function requestSchema(spec: KindSpec): z.ZodObject<Record<string, z.ZodType>, z.core.$strict> {
  return z.strictObject(Object.fromEntries(bodyFieldNames(spec).map((name) => [name, inputSchema(spec.inputs[name]!)])));
}

/** Zod schemas of a kind's answer fields, typed by the spec. */
export type ResponseShape<O extends Record<string, OutputFieldSpec>> = { -readonly [K in keyof O]: z.ZodType<OutputValue<O[K]>> };

/** The schemas of a kind's answer fields, in the spec's order. */
export function responseShape<O extends Record<string, OutputFieldSpec>>(outputs: O): ResponseShape<O> {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, field] of Object.entries(outputs)) {
    const base = field.type === "string" ? z.string() : field.type === "integer" ? z.number().int() : z.boolean();
    shape[name] = field.nullable ? base.nullable() : base;
  }
  return shape as ResponseShape<O>;
}

/** The schema of a kind's object as the API returns it; extra fields are tolerated so new API fields do not break clients. */
export function responseSchema<O extends Record<string, OutputFieldSpec>>(outputs: O) {
  return z.looseObject(responseShape(outputs));
}

/** Body of `POST /api/public/organizations`. */
export const createOrganizationRequest = requestSchema(organizationSpec);

/** Parsed body of a create-organization request. */
export type CreateOrganizationRequest = OrganizationInputs;

/** Body of a create-data-source request; unknown fields are rejected, defaults applied. */
export const createDataSourceRequest = requestSchema(dataSourceSpec);

/** A create-data-source body as sent (defaults optional). */
export type CreateDataSourceInput = Omit<DataSourceInputs, "orgId">;

/** Parsed (defaults applied) body of a create-data-source request. */
export type CreateDataSourceRequest = WithDefaults<CreateDataSourceInput>;

/** `T` with the data source defaults present, as a parsed body has them. */
type WithDefaults<T> = T extends { sslEnabled?: boolean } ? Omit<T, "sslEnabled" | "sshEnabled"> & { sslEnabled: boolean; sshEnabled: boolean } : T;

/** Names of every data source request field, in the spec's order. */
export const DATA_SOURCE_REQUEST_FIELDS = bodyFieldNames(dataSourceSpec) as Array<keyof CreateDataSourceInput>;

/** An organization, as `data` of the create-organization response. Extra fields are tolerated. */
export const organization = responseSchema(organizationSpec.outputs);

/** An organization returned by the API. */
export type Organization = OrganizationOutputs;

/**
 * A data source, as `data` of the create-data-source response. Fields the request left unset
 * come back as null (the spec types them as strings but shows no value for the unset case).
 * Secrets are never part of it. Extra fields are tolerated so new API fields do not break clients.
 */
export const dataSource = responseSchema(dataSourceSpec.outputs);

/** A data source returned by the API. */
export type DataSource = DataSourceOutputs;

/** Error titles the reference server uses; the spec names ValidationError and Unauthorized. */
export const ERROR_TITLES = [
  "ValidationError",
  "Unauthorized",
  "NotFound",
  "MethodNotAllowed",
  "PayloadTooLarge",
  "UnsupportedMediaType",
  "RateLimited",
  "NotImplemented",
  "ServiceUnavailable",
  "InternalError",
] as const;

/** One of {@link ERROR_TITLES}. */
export type ErrorTitle = (typeof ERROR_TITLES)[number];

/** `{ "error": { "title", "detail" } }`: the failure envelope. */
export const errorEnvelope = z.object({
  error: z.object({ title: z.string(), detail: z.string() }),
});

/** A failure body. */
export type ErrorEnvelope = z.infer<typeof errorEnvelope>;

/** `{ "data": T }`: the success envelope around a schema. */
export function successEnvelope<T extends z.ZodType>(schema: T) {
  return z.object({ data: schema });
}

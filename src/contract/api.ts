/**
 * The service's public API as zod schemas, built from the kind specs (src/kinds): the one source
 * of request and response validation for both the reference server and the provider. It states
 * only what the API specification states; the reference server's own limits live in the server.
 * Importing this module builds the schemas; the reference server takes them from ./schemas when
 * it first validates instead.
 */
import { z } from "zod";
import {
  bodyFieldNames,
  dataSourceSpec,
  organizationSpec,
  type BodyValues,
  type DataSourceOutputs,
  type OrganizationInputs,
  type OrganizationOutputs,
  type ParsedBodyValues,
} from "../kinds";
import { requestSchema, responseSchema } from "./schemas";

/** Body of the create-organization request. */
export const createOrganizationRequest = requestSchema(organizationSpec);

/** Parsed body of a create-organization request. */
export type CreateOrganizationRequest = OrganizationInputs;

/** Body of a create-data-source request; unknown fields are rejected, defaults applied. */
export const createDataSourceRequest = requestSchema(dataSourceSpec);

/** A create-data-source body as sent (defaults optional). */
export type CreateDataSourceInput = BodyValues<typeof dataSourceSpec.inputs>;

/** Parsed (defaults applied) body of a create-data-source request. */
export type CreateDataSourceRequest = ParsedBodyValues<typeof dataSourceSpec.inputs>;

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

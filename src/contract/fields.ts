/**
 * Field names of the API, free of zod so that a Pulumi program can load the resource classes
 * without the validation library (the provider process loads it for check). Read from the specs.
 */
import { dataSourceSpec, outputNames, secretFieldNames, type DataSourceOutputs, type SecretDataSourceField } from "../kinds";

export type { SecretDataSourceField } from "../kinds";

/** Data source fields that carry credentials: accepted on create, never returned. */
export const SECRET_DATA_SOURCE_FIELDS = secretFieldNames(dataSourceSpec) as unknown as readonly [SecretDataSourceField, ...SecretDataSourceField[]];

/** Names of every data source response field, in the spec's order. */
export const DATA_SOURCE_RESPONSE_FIELDS = outputNames(dataSourceSpec) as unknown as ReadonlyArray<keyof DataSourceOutputs>;

/**
 * Field names of the API, free of zod so that a Pulumi program can load the resource classes
 * without the validation library (the provider process loads it for check).
 */

/** Data source fields that carry credentials: accepted on create, never returned, always Pulumi secrets. */
export const SECRET_DATA_SOURCE_FIELDS = [
  "password",
  "snowflakePrivateKey",
  "snowflakePrivateKeyPassphrase",
  "bigQueryJsonKey",
  "sshPassword",
  "sshPrivateKey",
  "sshPrivateKeyPassphrase",
] as const;

/** One of {@link SECRET_DATA_SOURCE_FIELDS}. */
export type SecretDataSourceField = (typeof SECRET_DATA_SOURCE_FIELDS)[number];

/** Names of every data source response field, in the spec's order (api.ts checks it against the schema). */
export const DATA_SOURCE_RESPONSE_FIELDS = [
  "id",
  "displayName",
  "description",
  "dialect",
  "databaseName",
  "username",
  "host",
  "port",
  "sslEnabled",
  "sslCustomCertificatesEnabled",
  "sshEnabled",
  "sshHost",
  "sshPort",
  "sshUsername",
  "bigQueryProjectId",
  "spannerInstanceId",
  "snowflakeAccountId",
  "snowflakeWarehouse",
  "snowflakeRole",
  "lastSuccessfulSyncAt",
  "lastSyncStatus",
  "lastSyncAttemptAt",
  "hasCompletedFirstSync",
  "syncErrorMessage",
  "lastHealthyAt",
  "lastHealthStatus",
  "lastHealthCheckAttemptAt",
  "isDemo",
  "isServiceWarehouse",
  "createdAt",
  "updatedAt",
] as const;

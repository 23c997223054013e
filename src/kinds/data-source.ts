/** The data source kind: what `POST /api/public/organizations/{orgId}/data-sources` takes and returns. */
import type { InputValues, KindSpec, OutputValues } from "./spec";

/** Port numbers the spec allows, for `port` and `sshPort`. */
const PORT_RANGE = [0, 65535] as const;

/** The data source kind's spec. */
export const dataSourceSpec = {
  kind: "dataSource",
  typeName: "DataSource",
  noun: "data source",
  labelField: "displayName",
  endpoint: { method: "POST", pattern: "/api/public/organizations/{orgId}/data-sources" },
  inputs: {
    /** Id of the owning organization, typically `org.id`. */
    orgId: { type: "string", required: true, minLength: 1, owner: "organization" },
    /** How the service reaches the database. */
    type: {
      type: "string",
      required: true,
      values: { direct: "The service connects to the database itself, at `host` and `port` (or through the SSH tunnel when `sshEnabled`)." },
    },
    /** SQL dialect of the database. */
    dialect: { type: "string", required: true, values: { POSTGRES: "PostgreSQL." } },
    /** Name shown in the service. */
    displayName: { type: "string", required: true, minLength: 1 },
    /** Snowflake account ID. */
    snowflakeAccountId: { type: "string" },
    /** Snowflake warehouse. */
    snowflakeWarehouse: { type: "string" },
    /** Snowflake role. */
    snowflakeRole: { type: "string" },
    /** Snowflake private key; a credential, never returned by the API. */
    snowflakePrivateKey: { type: "string", secret: true },
    /** Snowflake private key passphrase; a credential, never returned by the API. */
    snowflakePrivateKeyPassphrase: { type: "string", secret: true },
    /** Database name; null or omitted for the server's default. */
    databaseName: { type: "string", nullable: true },
    /** Database username. */
    username: { type: "string" },
    /** Database host. */
    host: { type: "string" },
    /** Database port. */
    port: { type: "integer", range: PORT_RANGE },
    /** Database password; a credential, never returned by the API. */
    password: { type: "string", secret: true },
    /** BigQuery JSON key; a credential, never returned by the API. */
    bigQueryJsonKey: { type: "string", secret: true },
    /** BigQuery project ID. */
    bigQueryProjectId: { type: "string" },
    /** Spanner instance ID. */
    spannerInstanceId: { type: "string" },
    /** Connect with SSL. */
    sslEnabled: { type: "boolean", default: true },
    /** Connect through an SSH tunnel. */
    sshEnabled: { type: "boolean", default: false },
    /** SSH tunnel host. */
    sshHost: { type: "string" },
    /** SSH tunnel port. */
    sshPort: { type: "integer", range: PORT_RANGE },
    /** SSH tunnel username. */
    sshUsername: { type: "string" },
    /** SSH tunnel password; a credential, never returned by the API. */
    sshPassword: { type: "string", secret: true },
    /** SSH private key; a credential, never returned by the API. */
    sshPrivateKey: { type: "string", secret: true },
    /** SSH private key passphrase; a credential, never returned by the API. */
    sshPrivateKeyPassphrase: { type: "string", secret: true },
  },
  outputs: {
    /** Data source id (`ds_...`). */
    id: { type: "string" },
    /** Display name. */
    displayName: { type: "string" },
    /** Description; null when unset. */
    description: { type: "string", nullable: true },
    /** SQL dialect. */
    dialect: { type: "string" },
    /** Database name; null when unset. */
    databaseName: { type: "string", nullable: true },
    /** Database username; null when unset. */
    username: { type: "string", nullable: true },
    /** Database host; null when unset. */
    host: { type: "string", nullable: true },
    /** Database port; null when unset. */
    port: { type: "integer", nullable: true },
    /** Whether SSL is used. */
    sslEnabled: { type: "boolean" },
    /** Whether custom SSL certificates are used. */
    sslCustomCertificatesEnabled: { type: "boolean" },
    /** Whether an SSH tunnel is used. */
    sshEnabled: { type: "boolean" },
    /** SSH tunnel host; null when unset. */
    sshHost: { type: "string", nullable: true },
    /** SSH tunnel port; null when unset. */
    sshPort: { type: "integer", nullable: true },
    /** SSH tunnel username; null when unset. */
    sshUsername: { type: "string", nullable: true },
    /** BigQuery project ID; null when unset. */
    bigQueryProjectId: { type: "string", nullable: true },
    /** Spanner instance ID; null when unset. */
    spannerInstanceId: { type: "string", nullable: true },
    /** Snowflake account ID; null when unset. */
    snowflakeAccountId: { type: "string", nullable: true },
    /** Snowflake warehouse; null when unset. */
    snowflakeWarehouse: { type: "string", nullable: true },
    /** Snowflake role; null when unset. */
    snowflakeRole: { type: "string", nullable: true },
    /** As reported when created (never updated; see `statusObservedAt`): when the schema last synced successfully, null before the first success. */
    lastSuccessfulSyncAt: { type: "string", nullable: true },
    /** As reported when created (never updated; see `statusObservedAt`): schema sync state, PENDING at creation. */
    lastSyncStatus: { type: "string" },
    /** As reported when created (never updated; see `statusObservedAt`): when a sync was last attempted, null before the first. */
    lastSyncAttemptAt: { type: "string", nullable: true },
    /** As reported when created (never updated; see `statusObservedAt`): whether a first sync had completed. */
    hasCompletedFirstSync: { type: "boolean" },
    /** As reported when created (never updated; see `statusObservedAt`): why the last sync failed, null when it had not. */
    syncErrorMessage: { type: "string", nullable: true },
    /** As reported when created (never updated; see `statusObservedAt`): when the database was last healthy, null before the first check. */
    lastHealthyAt: { type: "string", nullable: true },
    /** As reported when created (never updated; see `statusObservedAt`): health state, HEALTHY at creation. */
    lastHealthStatus: { type: "string" },
    /** As reported when created (never updated; see `statusObservedAt`): when health was last checked, null before the first check. */
    lastHealthCheckAttemptAt: { type: "string", nullable: true },
    /** Whether this is a demo data source. */
    isDemo: { type: "boolean" },
    /** Whether this is the service's own warehouse. */
    isServiceWarehouse: { type: "boolean" },
    /** Creation time, ISO 8601. */
    createdAt: { type: "string" },
    /** As reported when created (never updated): last update time, ISO 8601. */
    updatedAt: { type: "string" },
  },
} as const satisfies KindSpec;

/** Inputs of a data source (the create body plus `orgId`), as plain values. */
export type DataSourceInputs = InputValues<typeof dataSourceSpec.inputs>;

/** A data source as the API returns it. */
export type DataSourceOutputs = OutputValues<typeof dataSourceSpec.outputs>;

/** Names of the data source inputs that carry credentials. */
export type SecretDataSourceField = {
  [K in keyof typeof dataSourceSpec.inputs]: (typeof dataSourceSpec.inputs)[K] extends { secret: true } ? K : never;
}[keyof typeof dataSourceSpec.inputs];

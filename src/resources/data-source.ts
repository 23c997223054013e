import * as pulumi from "@pulumi/pulumi";
import { rejectImport } from "./import-guard";
import { DATA_SOURCE_RESPONSE_FIELDS, SECRET_DATA_SOURCE_FIELDS } from "../contract/fields";
import { dataSourceProvider } from "./provider";
import { STATUS_OBSERVED_AT } from "./status";

/** Arguments of a {@link DataSource}: the API's create-data-source body plus the owning organization. Any change creates a new data source. */
export interface DataSourceArgs {
  /** Id of the owning organization, typically `org.id`. */
  orgId: pulumi.Input<string>;
  /** Connection type; `direct` is the only one. */
  type: pulumi.Input<"direct">;
  /** SQL dialect; `POSTGRES` is the only one. */
  dialect: pulumi.Input<"POSTGRES">;
  /** Name shown in the service (at least 1 character). */
  displayName: pulumi.Input<string>;
  /** Database name; null or omitted for the server's default. */
  databaseName?: pulumi.Input<string | null>;
  /** Database username. */
  username?: pulumi.Input<string>;
  /** Database host. */
  host?: pulumi.Input<string>;
  /** Database port, 0 to 65535. */
  port?: pulumi.Input<number>;
  /** Database password; always stored as a Pulumi secret. */
  password?: pulumi.Input<string>;
  /** Connect with SSL (default true). */
  sslEnabled?: pulumi.Input<boolean>;
  /** Connect through an SSH tunnel (default false). */
  sshEnabled?: pulumi.Input<boolean>;
  /** SSH tunnel host. */
  sshHost?: pulumi.Input<string>;
  /** SSH tunnel port, 0 to 65535. */
  sshPort?: pulumi.Input<number>;
  /** SSH tunnel username. */
  sshUsername?: pulumi.Input<string>;
  /** SSH tunnel password; always stored as a Pulumi secret. */
  sshPassword?: pulumi.Input<string>;
  /** SSH private key; always stored as a Pulumi secret. */
  sshPrivateKey?: pulumi.Input<string>;
  /** SSH private key passphrase; always stored as a Pulumi secret. */
  sshPrivateKeyPassphrase?: pulumi.Input<string>;
  /** Snowflake account ID. */
  snowflakeAccountId?: pulumi.Input<string>;
  /** Snowflake warehouse. */
  snowflakeWarehouse?: pulumi.Input<string>;
  /** Snowflake role. */
  snowflakeRole?: pulumi.Input<string>;
  /** Snowflake private key; always stored as a Pulumi secret. */
  snowflakePrivateKey?: pulumi.Input<string>;
  /** Snowflake private key passphrase; always stored as a Pulumi secret. */
  snowflakePrivateKeyPassphrase?: pulumi.Input<string>;
  /** BigQuery JSON key; always stored as a Pulumi secret. */
  bigQueryJsonKey?: pulumi.Input<string>;
  /** BigQuery project ID. */
  bigQueryProjectId?: pulumi.Input<string>;
  /** Spanner instance ID. */
  spannerInstanceId?: pulumi.Input<string>;
}

/**
 * A database connection ("data source") in an organization. The API can only create: a change
 * replaces it, and destroy leaves it in the service (the CLI says so). Sync and health outputs are
 * a snapshot, as reported when created (at {@link statusObservedAt}), and never change: the API
 * offers no way to read them later.
 */
export class DataSource extends pulumi.dynamic.Resource {
  /** Type token the engine records for this dynamic resource; policy packs match on it. */
  static readonly __pulumiType = "pulumi-nodejs:dynamic/analytics:DataSource";

  /** Whether `obj` is a DataSource (also across copies of this package), by its type token. */
  static override isInstance(obj: unknown): obj is DataSource {
    return (obj as { __pulumiType?: unknown } | null | undefined)?.__pulumiType === DataSource.__pulumiType;
  }

  /** Id of the owning organization. */
  declare readonly orgId: pulumi.Output<string>;
  /** Connection type. */
  declare readonly type: pulumi.Output<string>;
  /** Display name. */
  declare readonly displayName: pulumi.Output<string>;
  /** Description; null when unset. */
  declare readonly description: pulumi.Output<string | null>;
  /** SQL dialect. */
  declare readonly dialect: pulumi.Output<string>;
  /** Database name; null when unset. */
  declare readonly databaseName: pulumi.Output<string | null>;
  /** Database username; null when unset. */
  declare readonly username: pulumi.Output<string | null>;
  /** Database host; null when unset. */
  declare readonly host: pulumi.Output<string | null>;
  /** Database port; null when unset. */
  declare readonly port: pulumi.Output<number | null>;
  /** Database password (secret). */
  declare readonly password: pulumi.Output<string | undefined>;
  /** Whether SSL is used. */
  declare readonly sslEnabled: pulumi.Output<boolean>;
  /** Whether custom SSL certificates are used. */
  declare readonly sslCustomCertificatesEnabled: pulumi.Output<boolean>;
  /** Whether an SSH tunnel is used. */
  declare readonly sshEnabled: pulumi.Output<boolean>;
  /** SSH tunnel host; null when unset. */
  declare readonly sshHost: pulumi.Output<string | null>;
  /** SSH tunnel port; null when unset. */
  declare readonly sshPort: pulumi.Output<number | null>;
  /** SSH tunnel username; null when unset. */
  declare readonly sshUsername: pulumi.Output<string | null>;
  /** SSH tunnel password (secret). */
  declare readonly sshPassword: pulumi.Output<string | undefined>;
  /** SSH private key (secret). */
  declare readonly sshPrivateKey: pulumi.Output<string | undefined>;
  /** SSH private key passphrase (secret). */
  declare readonly sshPrivateKeyPassphrase: pulumi.Output<string | undefined>;
  /** BigQuery project ID; null when unset. */
  declare readonly bigQueryProjectId: pulumi.Output<string | null>;
  /** BigQuery JSON key (secret). */
  declare readonly bigQueryJsonKey: pulumi.Output<string | undefined>;
  /** Spanner instance ID; null when unset. */
  declare readonly spannerInstanceId: pulumi.Output<string | null>;
  /** Snowflake account ID; null when unset. */
  declare readonly snowflakeAccountId: pulumi.Output<string | null>;
  /** Snowflake warehouse; null when unset. */
  declare readonly snowflakeWarehouse: pulumi.Output<string | null>;
  /** Snowflake role; null when unset. */
  declare readonly snowflakeRole: pulumi.Output<string | null>;
  /** Snowflake private key (secret). */
  declare readonly snowflakePrivateKey: pulumi.Output<string | undefined>;
  /** Snowflake private key passphrase (secret). */
  declare readonly snowflakePrivateKeyPassphrase: pulumi.Output<string | undefined>;
  /** As reported when created (never updated; see {@link statusObservedAt}): when the schema last synced successfully, null before the first success. */
  declare readonly lastSuccessfulSyncAt: pulumi.Output<string | null>;
  /** As reported when created (never updated; see {@link statusObservedAt}): schema sync state, PENDING at creation. */
  declare readonly lastSyncStatus: pulumi.Output<string>;
  /** As reported when created (never updated; see {@link statusObservedAt}): when a sync was last attempted, null before the first. */
  declare readonly lastSyncAttemptAt: pulumi.Output<string | null>;
  /** As reported when created (never updated; see {@link statusObservedAt}): whether a first sync had completed. */
  declare readonly hasCompletedFirstSync: pulumi.Output<boolean>;
  /** As reported when created (never updated; see {@link statusObservedAt}): why the last sync failed, null when it had not. */
  declare readonly syncErrorMessage: pulumi.Output<string | null>;
  /** As reported when created (never updated; see {@link statusObservedAt}): when the database was last healthy, null before the first check. */
  declare readonly lastHealthyAt: pulumi.Output<string | null>;
  /** As reported when created (never updated; see {@link statusObservedAt}): health state, HEALTHY at creation. */
  declare readonly lastHealthStatus: pulumi.Output<string>;
  /** As reported when created (never updated; see {@link statusObservedAt}): when health was last checked, null before the first check. */
  declare readonly lastHealthCheckAttemptAt: pulumi.Output<string | null>;
  /** Whether this is a demo data source. */
  declare readonly isDemo: pulumi.Output<boolean>;
  /** Whether this is the service's own warehouse. */
  declare readonly isServiceWarehouse: pulumi.Output<boolean>;
  /** Creation time, ISO 8601. */
  declare readonly createdAt: pulumi.Output<string>;
  /** As reported when created (never updated): last update time, ISO 8601. */
  declare readonly updatedAt: pulumi.Output<string>;
  /**
   * When this provider received the create response the status outputs come from (ISO 8601,
   * the provider machine's clock); undefined for data sources created by an earlier version.
   */
  declare readonly statusObservedAt: pulumi.Output<string | undefined>;

  constructor(name: string, args: DataSourceArgs, opts?: pulumi.CustomResourceOptions) {
    rejectImport("DataSource", name, opts);
    const props: Record<string, unknown> = {};
    for (const field of DATA_SOURCE_RESPONSE_FIELDS) props[field] = undefined;
    props[STATUS_OBSERVED_AT] = undefined;
    for (const [key, value] of Object.entries(args)) props[key] = value;
    // Credentials are secrets even when passed as plain strings, so the engine encrypts the
    // same-named outputs and masks them in every diff.
    for (const field of SECRET_DATA_SOURCE_FIELDS) {
      if (args[field] !== undefined) props[field] = pulumi.secret(args[field]);
    }
    super(dataSourceProvider, name, props, { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...SECRET_DATA_SOURCE_FIELDS] }, "analytics", "DataSource");
  }
}

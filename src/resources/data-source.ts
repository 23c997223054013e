import * as pulumi from "@pulumi/pulumi";
import { rejectImport } from "./import-guard";
import { DATA_SOURCE_RESPONSE_FIELDS, SECRET_DATA_SOURCE_FIELDS } from "../contract/fields";
import type { DataSourceInputs, DataSourceOutputs } from "../kinds";
import { dataSourceProvider } from "./provider";
import { STATUS_OBSERVED_AT, type StatusObservedAtOutput } from "./status";

/**
 * Arguments of a {@link DataSource}: the API's create-data-source body plus the owning
 * organization. Any change creates a new data source. Credentials (`password`, `sshPassword`,
 * `sshPrivateKey`, `sshPrivateKeyPassphrase`, `snowflakePrivateKey`,
 * `snowflakePrivateKeyPassphrase`, `bigQueryJsonKey`) are always stored as Pulumi secrets.
 */
export type DataSourceArgs = { [K in keyof DataSourceInputs]: pulumi.Input<DataSourceInputs[K]> };

/** Every output of a {@link DataSource}: the API's answer (its id is the resource id) and the declared inputs. */
export type DataSourceOutputProperties = {
  readonly [K in keyof Omit<DataSourceOutputs, "id">]: pulumi.Output<DataSourceOutputs[K]>;
} & {
  readonly [K in keyof Omit<DataSourceInputs, keyof DataSourceOutputs>]-?: pulumi.Output<DataSourceInputs[K]>;
};

/** The outputs of a {@link DataSource}, each documented by the kind's spec. */
export interface DataSource extends DataSourceOutputProperties, StatusObservedAtOutput {}

/**
 * A database connection ("data source") in an organization. The API can only create: a change
 * replaces it, and destroy leaves it in the service (the CLI says so). Sync and health outputs are
 * a snapshot, as reported when created (at `statusObservedAt`), and never change: the API
 * offers no way to read them later. Credentials are Pulumi secrets: encrypted in state,
 * `[secret]` in every preview.
 */
export class DataSource extends pulumi.dynamic.Resource {
  /** Type token the engine records for this dynamic resource; policy packs match on it. */
  static readonly __pulumiType = "pulumi-nodejs:dynamic/analytics:DataSource";

  /** Whether `obj` is a DataSource (also across copies of this package), by its type token. */
  static override isInstance(obj: unknown): obj is DataSource {
    return (obj as { __pulumiType?: unknown } | null | undefined)?.__pulumiType === DataSource.__pulumiType;
  }

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

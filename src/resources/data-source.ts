import type * as pulumi from "@pulumi/pulumi";
import { dataSourceSpec, dynamicTypeToken } from "../kinds";
import { KindResource, hasTypeToken, type ResourceArgs, type ResourceOutputs } from "./kind-resource";

/**
 * Arguments of a {@link DataSource}: the API's create-data-source body plus the owning
 * organization. Any change creates a new data source. Every credential (each field documented as
 * one) is always stored as a Pulumi secret, even when passed as a plain string.
 */
export type DataSourceArgs = ResourceArgs<typeof dataSourceSpec>;

/** The outputs of a {@link DataSource}: the API's answer and the declared inputs, each documented by the kind's spec. */
export interface DataSource extends ResourceOutputs<typeof dataSourceSpec> {}

/**
 * A database connection ("data source") in an organization. The API can only create: a change
 * replaces it, and destroy leaves it in the service (the CLI says so). Sync and health outputs are
 * a snapshot, as reported when created (at `statusObservedAt`), and never change: the API
 * offers no way to read them later. Credentials are Pulumi secrets: encrypted in state,
 * `[secret]` in every preview.
 */
export class DataSource extends KindResource {
  /** Type token the engine records for this dynamic resource; policy packs match on it. */
  static readonly __pulumiType = dynamicTypeToken(dataSourceSpec);

  /** Whether `obj` is a DataSource (also across copies of this package), by its type token. */
  static override isInstance(obj: unknown): obj is DataSource {
    return hasTypeToken(obj, DataSource.__pulumiType);
  }

  constructor(name: string, args: DataSourceArgs, opts?: pulumi.CustomResourceOptions) {
    super("dataSource", name, args, opts);
  }
}

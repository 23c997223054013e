import * as pulumi from "@pulumi/pulumi";
import { organizationSpec, outputNames, type OrganizationInputs, type OrganizationOutputs } from "../kinds";
import { organizationProvider } from "./provider";
import { rejectImport } from "./import-guard";
import { STATUS_OBSERVED_AT, type StatusObservedAtOutput } from "./status";

/** Arguments of an {@link Organization}. */
export type OrganizationArgs = { [K in keyof OrganizationInputs]: pulumi.Input<OrganizationInputs[K]> };

/** Every output of an {@link Organization}: the API's answer (its id is the resource id). */
export type OrganizationOutputProperties = { readonly [K in keyof Omit<OrganizationOutputs, "id">]: pulumi.Output<OrganizationOutputs[K]> };

/** The outputs of an {@link Organization}, each documented by the kind's spec. */
export interface Organization extends OrganizationOutputProperties, StatusObservedAtOutput {}

/**
 * An organization in the analytics service. The API can only create: a change replaces it, and
 * destroy leaves it in the service (the CLI says so).
 */
export class Organization extends pulumi.dynamic.Resource {
  /** Type token the engine records for this dynamic resource; policy packs match on it. */
  static readonly __pulumiType = "pulumi-nodejs:dynamic/analytics:Organization";

  /** Whether `obj` is an Organization (also across copies of this package), by its type token. */
  static override isInstance(obj: unknown): obj is Organization {
    return (obj as { __pulumiType?: unknown } | null | undefined)?.__pulumiType === Organization.__pulumiType;
  }

  constructor(name: string, args: OrganizationArgs, opts?: pulumi.CustomResourceOptions) {
    rejectImport("Organization", name, opts);
    const props: Record<string, unknown> = {};
    // Every output is declared up front (the id is the resource's own), so the engine tracks it.
    for (const field of outputNames(organizationSpec)) if (field !== "id") props[field] = undefined;
    props[STATUS_OBSERVED_AT] = undefined;
    props.name = args.name;
    super(organizationProvider, name, props, opts, "analytics", "Organization");
  }
}

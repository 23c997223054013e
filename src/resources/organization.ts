import type * as pulumi from "@pulumi/pulumi";
import { dynamicTypeToken, organizationSpec, type OrganizationInputs, type OrganizationOutputs } from "../kinds";
import { KindResource, hasTypeToken } from "./kind-resource";
import type { StatusObservedAtOutput } from "./status";

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
export class Organization extends KindResource {
  /** Type token the engine records for this dynamic resource; policy packs match on it. */
  static readonly __pulumiType = dynamicTypeToken(organizationSpec);

  /** Whether `obj` is an Organization (also across copies of this package), by its type token. */
  static override isInstance(obj: unknown): obj is Organization {
    return hasTypeToken(obj, Organization.__pulumiType);
  }

  constructor(name: string, args: OrganizationArgs, opts?: pulumi.CustomResourceOptions) {
    super("organization", name, args, opts);
  }
}

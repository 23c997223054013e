import type * as pulumi from "@pulumi/pulumi";
import { dynamicTypeToken, organizationSpec } from "../kinds";
import { KindResource, hasTypeToken, type ResourceArgs, type ResourceOutputs } from "./kind-resource";

/** Arguments of an {@link Organization}. */
export type OrganizationArgs = ResourceArgs<typeof organizationSpec>;

/** The outputs of an {@link Organization}: the API's answer, each documented by the kind's spec. */
export interface Organization extends ResourceOutputs<typeof organizationSpec> {}

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

import * as pulumi from "@pulumi/pulumi";
import { organizationProvider } from "./provider";

/** Arguments of an {@link Organization}. */
export interface OrganizationArgs {
  /** Organization name (at least 1 character). Changing it creates a new organization. */
  name: pulumi.Input<string>;
}

/**
 * An organization in the analytics service. The API can only create: a change replaces it, and
 * destroy leaves it in the service (the CLI says so).
 */
export class Organization extends pulumi.dynamic.Resource {
  /** Organization name, as declared. */
  declare readonly name: pulumi.Output<string>;
  /** URL-style short name the service derived from the name. */
  declare readonly slug: pulumi.Output<string>;
  /** Custom AI context; null when unset. */
  declare readonly customAiContext: pulumi.Output<string | null>;
  /** Onboarding state (observed: `STARTED`). */
  declare readonly onboardingStatus: pulumi.Output<string>;

  constructor(name: string, args: OrganizationArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      organizationProvider,
      name,
      { name: args.name, slug: undefined, customAiContext: undefined, onboardingStatus: undefined },
      opts,
      "analytics",
      "Organization",
    );
  }
}

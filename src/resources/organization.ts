import * as pulumi from "@pulumi/pulumi";
import { rejectImport } from "./import-guard";
import { organizationProvider } from "./provider";
import { STATUS_OBSERVED_AT } from "./status";

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
  /** Type token the engine records for this dynamic resource; policy packs match on it. */
  static readonly __pulumiType = "pulumi-nodejs:dynamic/analytics:Organization";

  /** Whether `obj` is an Organization (also across copies of this package), by its type token. */
  static override isInstance(obj: unknown): obj is Organization {
    return (obj as { __pulumiType?: unknown } | null | undefined)?.__pulumiType === Organization.__pulumiType;
  }

  /** Organization name, as declared. */
  declare readonly name: pulumi.Output<string>;
  /** URL-style short name the service derived from the name. */
  declare readonly slug: pulumi.Output<string>;
  /** Custom AI context; null when unset. */
  declare readonly customAiContext: pulumi.Output<string | null>;
  /** As reported when created (never updated; see {@link statusObservedAt}): onboarding state, observed `STARTED`. */
  declare readonly onboardingStatus: pulumi.Output<string>;
  /** When this provider received the create response (ISO 8601, provider machine's clock); undefined for organizations created by an earlier version. */
  declare readonly statusObservedAt: pulumi.Output<string | undefined>;

  constructor(name: string, args: OrganizationArgs, opts?: pulumi.CustomResourceOptions) {
    rejectImport("Organization", name, opts);
    super(
      organizationProvider,
      name,
      { name: args.name, slug: undefined, customAiContext: undefined, onboardingStatus: undefined, [STATUS_OBSERVED_AT]: undefined },
      opts,
      "analytics",
      "Organization",
    );
  }
}
